"""The report in a real browser: headless Chromium (Debian's ``chromium``, driven by
Playwright) opens the page written from the bundled data, and the page must load without a
script error or a network request, sort and filter its per-query table, open a query's
explanation, fit 1280 and 400 px wide windows, and render something (not an empty page).

Chromium missing is a failure, not a skip: CI installs it (``.ci/run``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankwise as rw

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
QRELS = DATA / "qrels.parquet"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def page_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of three runs of the bundled data: the sample run, a coarser copy (ties)
    and the reversed run (significantly worse: the summary has letters)."""
    folder = tmp_path_factory.mktemp("report")
    base = pl.read_parquet(DATA / "run.parquet")
    runs: dict[str, Any] = {"base": DATA / "run.parquet"}
    for name, score in (("flat", (pl.col("score") * 7).round(0)), ("reversed", -pl.col("score"))):
        path = folder / f"{name}.parquet"
        base.with_columns(score=score).write_parquet(path)
        runs[name] = path
    target = folder / "report.html"
    rw.report(QRELS, runs, ["AP", "nDCG@5", "nDCG@10"], target, resamples=1000, explain=20)
    return target


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        found = shutil.which("chromium")
        pytest.fail(f"the browser tests need Chromium at {CHROMIUM} (found: {found}): apt-get install chromium chromium-driver")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the browser tests need Playwright: pip install 'rankwise[test]' (playwright>=1.40)")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@dataclass
class Opened:
    """A page opened on the report, with what went wrong meanwhile."""

    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


@pytest.fixture
def open_page(browser: Any, page_path: Path) -> Iterator[Any]:
    """Open the report (or the page at ``path``) at a window width; every request but the
    file's own is recorded and refused."""
    contexts: list[Any] = []

    def opener(width: int = 1280, path: Path = page_path) -> Opened:
        context = browser.new_context(viewport={"width": width, "height": 900})
        contexts.append(context)
        page = context.new_page()
        url = path.as_uri()
        opened = Opened(page)
        page.on("pageerror", lambda exc: opened.errors.append(f"page error: {exc}"))
        page.on("console", lambda msg: opened.errors.append(f"console: {msg.text}") if msg.type == "error" else None)

        def route(r: Any) -> None:
            if r.request.url == url:
                r.continue_()
            else:
                opened.requests.append(r.request.url)
                r.abort()

        page.on("request", lambda req: None if req.url == url or req.url.startswith("data:") else opened.requests.append(req.url))
        context.route("**/*", route)
        page.goto(url)
        page.wait_for_selector("#pq-table tbody tr.q")
        return opened

    yield opener
    for context in contexts:
        context.close()


def _column(page: Any, index: int) -> list[str]:
    return page.eval_on_selector_all(
        f"#pq-table tbody tr.q td:nth-child({index + 1})", "cells => cells.map(c => c.textContent)"
    )


def _header(page: Any, label: str) -> tuple[int, Any]:
    headers = page.eval_on_selector_all("#pq-table thead th", "ths => ths.map(t => t.textContent)")
    index = next(i for i, h in enumerate(headers) if h.rstrip(" ▲▼") == label)
    return index, page.locator("#pq-table thead th").nth(index)


def _numbers(texts: list[str]) -> list[float]:
    return [float(t) for t in texts if t]


def test_page_loads_without_errors_or_requests(open_page: Any) -> None:
    opened = open_page()
    assert opened.page.title() == "rankwise comparison"
    assert opened.errors == []
    assert opened.requests == []
    # worst losses first: the first pair's difference ascending
    index, th = _header(opened.page, "Δ flat − base")
    assert th.get_attribute("aria-sort") == "ascending"
    diffs = _numbers(_column(opened.page, index))
    assert diffs == sorted(diffs) and diffs[0] < 0


def test_sort_by_a_column(open_page: Any) -> None:
    opened = open_page()
    index, th = _header(opened.page, "base")
    th.click()
    values = _numbers(_column(opened.page, index))
    assert len(values) == 199 and values == sorted(values)
    _, th = _header(opened.page, "base")
    assert th.get_attribute("aria-sort") == "ascending"
    th.click()
    values = _numbers(_column(opened.page, index))
    assert values == sorted(values, reverse=True)
    _, th = _header(opened.page, "query_id")
    th.click()
    ids = _column(opened.page, 0)
    assert ids == sorted(ids)
    assert opened.errors == []


def test_filter_by_query_id(open_page: Any) -> None:
    opened = open_page()
    opened.page.fill("#pq-filter", "q098")
    assert _column(opened.page, 0) == ["q098"]
    assert "1 of 199 queries" in opened.page.text_content("#pq-note")
    opened.page.fill("#pq-filter", "")
    assert len(_column(opened.page, 0)) == 199
    assert opened.errors == []


def test_a_query_opens_its_explanation(open_page: Any) -> None:
    opened = open_page()
    page = opened.page
    query = _column(page, 0)[0]  # the worst loss: among the queries explained
    page.locator("#pq-table tbody tr.q").first.click()
    detail = page.locator("#pq-table td.detail")
    assert detail.count() == 1
    assert [h.strip() for h in detail.locator("h4").all_text_contents()] == ["base", "flat", "reversed"]
    first = detail.locator("table.rank").first
    assert first.locator("thead th").all_text_contents()[:3] == ["rank", "doc_id", "relevance"]
    ranks = first.locator("tbody tr td:first-child").all_text_contents()
    assert ranks[:3] == ["1", "2", "3"]
    assert query in page.text_content("details")  # the page lists the queries explained
    page.locator("#pq-table tbody tr.q").first.click()  # and closes it again
    assert page.locator("#pq-table td.detail").count() == 0
    assert opened.errors == []


@pytest.mark.parametrize("width", [1280, 400])
def test_nothing_overflows_the_window(open_page: Any, width: int) -> None:
    opened = open_page(width)
    page = opened.page
    page.locator("#pq-table tbody tr.q").first.click()  # an explanation open too
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll <= inner, f"the page is {scroll} px wide in a {inner} px window"
    # every figure fits the window
    widths = page.eval_on_selector_all("figure img", "imgs => imgs.map(i => i.getBoundingClientRect().right)")
    assert widths and max(widths) <= inner
    assert opened.errors == []


def test_the_page_renders_something(open_page: Any, tmp_path: Path) -> None:
    import matplotlib.image as mpimg
    import numpy as np

    opened = open_page()
    page = opened.page
    box = page.locator("#summary").bounding_box()
    assert box is not None and box["width"] > 100 and box["height"] > 40
    # the summary has the runs, a bold best mean and a significance letter: base (a) is
    # significantly better than reversed (c)
    assert page.locator("#summary td.best").count() >= 3
    assert page.locator("#summary tbody tr").first.locator("sup").first.text_content() == "c"
    shot = tmp_path / "summary.png"
    page.screenshot(path=str(shot), clip=box)
    pixels = mpimg.imread(str(shot))[..., :3]
    ink = (pixels < 0.9).any(axis=-1).mean()
    colours = len(np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0))
    assert ink > 0.05, f"the summary table looks empty: {ink:.1%} of its pixels are not white"
    assert colours > 8
    # the whole first screen too: text, tables and colour
    page.screenshot(path=str(shot))
    pixels = mpimg.imread(str(shot))[..., :3]
    assert len(np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0)) > 50


def test_print_hides_the_controls(open_page: Any) -> None:
    opened = open_page()
    page = opened.page
    page.emulate_media(media="print")
    assert page.locator("#pq-filter").is_hidden()
    assert page.locator("#summary").is_visible()
    page.emulate_media(media="screen")
    assert page.locator("#pq-filter").is_visible()


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report whose query ids and run names hold what ends or alters a script block or a
    Markdown table: ``<!--<script>``, ``</script>``, ``|`` (the data of tests/reporting/test_safe_output.py)."""
    from tests.reporting.test_safe_output import _qrels, _runs

    target = tmp_path_factory.mktemp("hostile") / "report.html"
    rw.report(_qrels(), _runs(), ["AP", "P@1"], target, resamples=100, explain=5)
    return target


def test_hostile_ids_and_run_names_load_and_show(open_page: Any, hostile_page: Path) -> None:
    from tests.reporting.test_safe_output import AP, BACKSLASH_PIPE, BASE, IDS, PIPE

    opened = open_page(path=hostile_page)
    page = opened.page
    assert opened.errors == [] and opened.requests == []
    # the data loaded: every query id shown as it is, in the first column
    assert sorted(_column(page, 0)) == sorted(IDS)
    headers = [h.rstrip(" ▲▼") for h in page.eval_on_selector_all("#pq-table thead th", "ths => ths.map(t => t.textContent)")]
    assert headers[1:4] == [BASE, PIPE, BACKSLASH_PIPE]
    index, _ = _header(page, PIPE)
    assert _numbers(_column(page, index)) == [AP[PIPE]] * len(IDS)
    # the summary names the runs as they are
    assert page.locator("#summary tbody tr td:nth-child(2)").all_text_contents() == [BASE, PIPE, BACKSLASH_PIPE]
    # filtering by an id that opens a script finds it; its explanation opens
    page.fill("#pq-filter", "<!--<script>")
    assert _column(page, 0) == ["<!--<script>"]
    page.locator("#pq-table tbody tr.q").first.click()
    detail = page.locator("#pq-table td.detail")
    assert [h.strip() for h in detail.locator("h4").all_text_contents()] == [BASE, PIPE, BACKSLASH_PIPE]
    page.fill("#pq-filter", "</script>")
    assert _column(page, 0) == ["</script>"]
    assert opened.errors == []


# -- issue 36: a report that reads like a paper ----------------------------------------------------
_OVERFLOWS = """() => Array.from(document.querySelectorAll("table")).filter(t => t.offsetParent !== null).map(t => {
  const box = t.closest(".scroll"), frame = t.closest(".tbox"), hint = frame && frame.querySelector(".hint");
  return {id: t.id, wide: t.scrollWidth > box.clientWidth + 1, cue: !!frame && frame.classList.contains("overflow")
          && !!hint && getComputedStyle(hint).display !== "none"};
})"""


@pytest.mark.parametrize("width", [1280, 400])
def test_screenshots_tables_fit_or_show_the_scroll_cue(open_page: Any, tmp_path: Path, width: int) -> None:
    """Screenshots at 1280 and 400 px (under tmp_path, to look at); a table wider than its box
    shows the cue; at 1280 px no table is wider than its box and the page, with 199 queries,
    is shorter than 6,000 px (9,900 px with every query's row on the page)."""
    opened = open_page(width)
    page = opened.page
    page.screenshot(path=str(tmp_path / f"report_{width}.png"), full_page=True)
    assert (tmp_path / f"report_{width}.png").stat().st_size > 10_000
    tables = page.evaluate(_OVERFLOWS)
    assert len(tables) >= 6
    assert all(t["cue"] for t in tables if t["wide"]), tables
    if width == 1280:
        assert not any(t["wide"] for t in tables), tables
        assert not any(t["cue"] for t in tables)
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height < 6000, f"the page is {height} px tall"
    else:
        assert sum(t["wide"] for t in tables) >= 2  # the differences and risk tables scroll, with their cue
    assert opened.errors == []


def test_the_per_query_table_scrolls_under_its_sticky_header(open_page: Any) -> None:
    page = open_page().page
    box = page.locator(".pq .scroll")
    assert len(_column(page, 0)) == 199
    top = box.bounding_box()
    assert top is not None and top["height"] <= 600
    box.evaluate("b => b.scrollTop = 2000")
    header = page.locator("#pq-table thead th").first.bounding_box()
    assert header is not None and abs(header["y"] - top["y"]) <= 2  # the header stays at the box's top


def test_headers_a_person_reads_explained_on_hover_and_in_a_legend(open_page: Any) -> None:
    page = open_page().page
    effects = page.locator("#effects ~ .tbox").first
    headers = [h.strip() for h in effects.locator("thead th").all_text_contents()]
    assert headers == ["run", "baseline", "metric", "Δ mean", "Δ / baseline", "95% CI (BCa)", "95% CI (t)",
                       "d_z", "g_z", "Glass's Δ", "p (t-test, Holm)", "significant"]
    titles = effects.locator("thead th").evaluate_all("ths => ths.map(t => t.title)")
    assert titles[10] == "the p-value (paired t-test, Holm-corrected)"
    assert titles[11] == "whether the p-value (paired t-test, Holm-corrected) is below 0.05"
    legend = page.locator("#effects ~ p.legend").first.text_content()
    assert legend is not None and "p (t-test, Holm): the p-value (paired t-test, Holm-corrected)" in legend
    risk = [h.strip() for h in page.locator("#risk ~ .tbox").first.locator("thead th").all_text_contents()]
    assert risk[3:7] == ["URisk", "TRisk", "GeoRisk", "hurt"]
    assert not page.locator("th", has_text="p_t_adj").count() and not page.locator("th", has_text="sig_t").count()


def test_buttons_save_the_latex_table_and_each_figure(open_page: Any, page_path: Path) -> None:
    import base64

    page = open_page().page
    with page.expect_download() as download:
        page.click("#save-tex")
    assert download.value.suggested_filename == "table.tex"
    # the same table as the report's LaTeX summary written beside the page
    assert Path(download.value.path()).read_text(encoding="utf-8") == page_path.with_suffix(".tex").read_text(encoding="utf-8")
    figure = page.locator("figure").first
    stem = figure.get_attribute("data-stem")
    with page.expect_download() as download:
        figure.locator("button[data-save=svg]").click()
    assert download.value.suggested_filename == f"{stem}.svg"
    svg = Path(download.value.path()).read_text(encoding="utf-8")
    assert "<svg" in svg and "per query" in svg  # the title is text, to edit in a paper
    with page.expect_download() as download:
        figure.locator("button[data-save=png]").click()
    assert download.value.suggested_filename == f"{stem}.png"
    src = figure.locator("img").get_attribute("src")
    assert Path(download.value.path()).read_bytes() == base64.b64decode(src.split(",", 1)[1])


def test_the_page_prints_on_a4_without_cut_tables(open_page: Any, tmp_path: Path) -> None:
    """Printed (A4 less 12 mm margins: 703 px wide), every table fits the page's width; the
    buttons and the per-query table are left out, with a note; a PDF is written."""
    opened = open_page(703)
    page = opened.page
    page.emulate_media(media="print")
    widths = page.evaluate("() => Array.from(document.querySelectorAll('table')).filter(t => t.offsetParent !== null)"
                           ".map(t => t.getBoundingClientRect().width)")
    body = page.evaluate("document.body.clientWidth")
    assert widths and max(widths) <= body + 1, (widths, body)
    assert page.locator("#pq-table").is_hidden() and page.locator("#save-tex").is_hidden()
    assert page.locator("figure button").first.is_hidden()
    assert page.locator(".print-only").is_visible()
    page.pdf(path=str(tmp_path / "report.pdf"), format="A4")
    assert (tmp_path / "report.pdf").read_bytes().startswith(b"%PDF")
