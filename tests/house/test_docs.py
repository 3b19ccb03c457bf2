"""The README and the pages of docs/: their links resolve, each page's table of contents is its
headings, and their examples run.

* Every relative link of README.md and docs/*.md points to a file that exists and, with an
  ``#anchor``, to a heading of that file (GitHub's anchors: :func:`slug`).
* Each page of docs/ (but the index, docs/README.md) has a table of contents between
  ``<!-- toc:start -->`` and ``<!-- toc:end -->`` listing its ``##`` and ``###`` headings
  (``python -m tests.house.test_docs`` rewrites them).
* Every ```python block runs, page by page, in one namespace per page (a block may use the names an
  earlier block of its page defined), from a temporary folder holding the bundled data under the
  names the blocks use (:func:`data_folder`); a block of ``>>>`` lines runs as a doctest. Every
  ```bash block whose lines start with ``rankwise `` runs each line as a command (``python -m
  rankwise.cli``) that must exit 0. A block that cannot run here (a Spark session, a download, a
  user's own file) carries a mark on the line just before it, ``<!-- not run: why -->``; the marks
  are counted (:data:`NOT_RUN`) so that they stay few.
* Every rankwise metric string in docs/coming-from.md's tables (the column headed ``rankwise
  metric``) parses as ``evaluate`` parses it, :func:`rankwise.parse_metrics` (every naming
  scheme: :func:`rankwise.parse_metric` reads ir-measures' syntax alone, so not ``r-precision``
  or ``P.5,10``), each string alone; the sets (``official``, ``all_trec``) expand there too.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

import rankwise as rw

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = 6
"""How many blocks are marked ``<!-- not run: ... -->`` over README.md and docs/ (a new mark must
be counted here: such marks stay few)."""

HAND_TOC = {"README.md"}
"""The page of docs/ without a generated table of contents: docs/README.md, the index."""


# -- reading the pages ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """A fenced code block: its language, its text, its first line's number, and the reason of
    the ``<!-- not run: ... -->`` mark before it (None: it runs)."""

    language: str
    text: str
    line: int
    not_run: str | None


def blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, in order."""
    found: list[Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        fence = re.match(r"^(\s*)(```+)(\S*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        start, indent = i, len(fence.group(1))
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == fence.group(2))
        mark = re.match(r"^\s*<!-- not run: (.+) -->$", lines[start - 1]) if start else None
        body = "\n".join(line[indent:] for line in lines[start + 1 : end])
        found.append(Block(fence.group(3), body, start + 1, mark.group(1) if mark else None))
        i = end + 1
    return found


def prose(text: str) -> str:
    """The text outside fenced code blocks (code spans kept)."""
    return re.sub(r"^\s*```.*?^\s*```[^\n]*$", "", text, flags=re.S | re.M)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, the Markdown of links and code spans read as
    their text, every character but letters, digits, ``_``, ``-`` and spaces dropped, spaces as
    ``-``.

    >>> slug("Ties that are not decided: `ties='expected'`")
    'ties-that-are-not-decided-tiesexpected'
    >>> slug("Both trec_eval versions")
    'both-trec_eval-versions'
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(text: str) -> list[tuple[int, str]]:
    """The headings (level, text) outside code blocks."""
    return [(len(m.group(1)), m.group(2).strip()) for m in re.finditer(r"^(#{1,6}) (.+)$", prose(text), re.M)]


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings, numbered as GitHub numbers a repeated one (``-1``, ...)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for _, heading in headings(text):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def toc(text: str) -> str:
    """A page's table of contents: its ``##`` and ``###`` headings as nested links."""
    lines = []
    for level, heading in headings(text):
        if level in (2, 3):
            label = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
            lines.append(f"{'  ' * (level - 2)}- [{label}](#{slug(heading)})")
    return "\n".join(lines)


TOC = re.compile(r"(<!-- toc:start -->\n)(.*?)(\n<!-- toc:end -->)", re.S)


def write_tocs() -> None:
    """Rewrite the table of contents of every page of docs/ that has one."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        if TOC.search(text):
            contents = toc(text)
            page.write_text(TOC.sub(lambda m, contents=contents: m.group(1) + contents + m.group(3), text), encoding="utf-8")


# -- links and contents ---------------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    """Each relative link (``[text](path)``, ``[text](path#anchor)``, ``[text](#anchor)``,
    ``![alt](image)``) names a file that exists and, with an anchor, a heading of it."""
    text = page.read_text(encoding="utf-8")
    links = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", prose(text))
    assert links
    broken = []
    for link in links:
        if re.match(r"^[a-z]+:", link):  # https:, mailto:
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{link}: no file {target}")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target.read_text(encoding="utf-8")):
            broken.append(f"{link}: no heading #{anchor} in {target.name}")
    assert not broken, broken


def test_every_page_is_listed_in_the_index_and_linked_from_the_readme() -> None:
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name != "README.md":
            assert f"({page.name})" in index, page.name
            assert f"(docs/{page.name})" in readme, page.name


@pytest.mark.parametrize("page", [p for p in PAGES if p.parent.name == "docs" and p.name not in HAND_TOC],
                         ids=lambda p: p.name)
def test_each_page_has_its_table_of_contents(page: Path) -> None:
    """The table of contents at the page's top is its headings (``python -m tests.house.test_docs``
    rewrites it)."""
    text = page.read_text(encoding="utf-8")
    found = TOC.search(text)
    assert found, f"{page.name}: no <!-- toc:start --> ... <!-- toc:end -->"
    assert found.group(2) == toc(text)
    assert text.startswith("# ") and text.index("<!-- toc:start -->") < text.index("\n## ")


def test_no_prose_line_is_a_wall() -> None:
    """Outside tables and code, no line of the pages runs over 400 characters."""
    for page in PAGES:
        for n, line in enumerate(prose(page.read_text(encoding="utf-8")).split("\n"), start=1):
            assert line.startswith("|") or len(line) <= 400, f"{page.name}:{n}: {len(line)} characters"


# -- the examples ----------------------------------------------------------------------------------------


def data_folder(folder: Path) -> Path:
    """A folder where the pages' examples run: the bundled data (examples/data/*) both under its
    own path and at the top (``qrels.parquet``, ``run.parquet``, ``run_b.parquet``), the run as
    CSV with its query column named ``qid`` (``run.csv``), and the SQL macros (``sql/``)."""
    data = ROOT / "examples" / "data"
    shutil.copytree(data, folder / "examples" / "data")
    for file in data.iterdir():
        shutil.copy(file, folder / file.name)
    pl.read_parquet(data / "run.parquet").rename({"query_id": "qid"}).write_csv(folder / "run.csv")
    shutil.copytree(ROOT / "sql", folder / "sql")
    return folder


def _command_lines(block: Block) -> list[str]:
    return [line for line in block.text.split("\n") if line.strip()]


def runs(block: Block) -> bool:
    """Whether the examples' test runs the block: a ```python block, or a ```bash block of
    ``rankwise`` commands, without a ``not run`` mark."""
    commands = block.language == "bash" and all(line.startswith("rankwise ") for line in _command_lines(block))
    return block.not_run is None and (block.language == "python" or commands)


def pages_with_examples() -> list[Path]:
    return [p for p in PAGES if any(runs(b) for b in blocks(p.read_text(encoding="utf-8")))]


def test_the_not_run_marks_are_counted() -> None:
    """Every ``<!-- not run: ... -->`` mark stands just before a block, and there are
    :data:`NOT_RUN` of them."""
    marks = 0
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        on_blocks = sum(b.not_run is not None for b in blocks(text))
        assert len(re.findall(r"^\s*<!-- not run: ", text, re.M)) == on_blocks, f"{page.name}: a mark is not just before a block"
        marks += on_blocks
    assert marks == NOT_RUN


@pytest.mark.parametrize("page", pages_with_examples(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_page_s_examples_run(page: Path, tmp_path: Path) -> None:
    """Every unmarked ```python block of the page runs (in order, sharing one namespace), a block
    of ``>>>`` lines as a doctest, and every unmarked ```bash block of ``rankwise`` commands exits 0,
    from a folder holding the bundled data."""
    folder = data_folder(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    cwd = Path.cwd()
    os.chdir(folder)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(rw.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}
    try:
        for block in filter(runs, blocks(page.read_text(encoding="utf-8"))):
            where = f"{page.relative_to(ROOT)}:{block.line}"
            if block.language == "python":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if block.text.lstrip().startswith(">>>"):
                        test = doctest.DocTestParser().get_doctest(block.text, namespace, where, str(page), block.line)
                        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
                        runner.run(test, clear_globs=False)
                        assert runner.failures == 0, where
                        namespace.update(test.globs)  # a doctest runs on a copy of the names
                    else:
                        try:
                            exec(compile(block.text, where, "exec"), namespace)
                        except Exception as exc:  # the block's own error, named by its place
                            raise AssertionError(f"{where}: {type(exc).__name__}: {exc}") from exc
            else:
                for line in _command_lines(block):
                    out = subprocess.run([sys.executable, "-m", "rankwise.cli", *shlex.split(line)[1:]],
                                         capture_output=True, text=True, timeout=600, cwd=folder, env=env)
                    assert out.returncode == 0, f"{where}: {line}\n{out.stderr}"
    finally:
        os.chdir(cwd)


# -- coming from other tools -----------------------------------------------------------------------------

SETS = {"official", "all_trec"}
"""The metric lists of trec_eval's names, which expand to several metrics."""


def coming_from_metric_strings() -> list[str]:
    """The code spans of docs/coming-from.md's table columns headed ``rankwise metric``."""
    strings: list[str] = []
    header: list[str] = []
    for line in (ROOT / "docs" / "coming-from.md").read_text(encoding="utf-8").split("\n"):
        if not line.startswith("|"):
            header = []
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if not header:
            header = cells
        elif "rankwise metric" in header and not set(cells[0]) <= {"-", " "}:
            strings += re.findall(r"`([^`]+)`", cells[header.index("rankwise metric")])
    return strings


def test_every_rankwise_metric_string_of_the_coming_from_page_parses() -> None:
    strings = coming_from_metric_strings()
    assert len(strings) > 30 and set(strings) >= SETS
    for string in strings:
        parsed = rw.parse_metrics([string])
        assert parsed and (len(parsed) == 1 or string in SETS), string


if __name__ == "__main__":
    write_tocs()
