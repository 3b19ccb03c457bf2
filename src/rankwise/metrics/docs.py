"""Documentation generated from the metric specs (the metric table of docs/metrics.md).

    python -m rankwise.metrics.docs                         # prints the Markdown table docs/metrics.md embeds
    python -m rankwise.metrics.docs --write docs/metrics.md # replaces it between the page's markers
    python -m rankwise.metrics.docs --bounds          # the numeric parameters' valid ranges, and why
"""

from __future__ import annotations

from rankwise.metrics.registry import SPECS


def _cell(text: str) -> str:
    """``text`` as a Markdown table cell: its bars (|x|, the formulas' sizes) escaped, so that the
    table keeps its columns."""
    return text.replace("|", "\\|")


def metric_table() -> str:
    """The metric table (docs/metrics.md), one row per spec.

    >>> metric_table().splitlines()[0]
    '| metric | names | parameters (default) | @k | formula | empty query | summary | trec_eval |'
    """
    rows = [
        "| metric | names | parameters (default) | @k | formula | empty query | summary | trec_eval |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in SPECS:
        params = ", ".join(f"`{p.name}`={p.default!r}" for p in s.params) or "—"
        names = ", ".join(f"`{n}`" for n in s.all_names)
        if s.empty_value is None:
            empty = "NULL"
        else:
            empty = repr(s.empty_value) if isinstance(s.empty_value, str) else f"{s.empty_value:g}"
        rows.append(
            f"| **{s.name}** — {_cell(s.description)} | {names} | {_cell(params)} | {s.cutoff} | {_cell(s.formula)} "
            f"| {empty} | {s.aggregate} | {s.trec_eval or '—'} |"
        )
    return "\n".join(rows)


def bounds_table() -> str:
    """Every numeric parameter (and the cutoff), its valid range and why, one row per
    parameter declaration (shared declarations, such as ``rel``, list all their metrics).

    >>> bounds_table().splitlines()[0]
    '| parameter | metrics | default | valid | why |'
    """
    rows = ["| parameter | metrics | default | valid | why |", "| --- | --- | --- | --- | --- |"]
    seen: dict[int, list[str]] = {}
    params = {}
    for s in SPECS:
        for p in s.params:
            if p.numeric:
                seen.setdefault(id(p), []).append(s.name)
                params[id(p)] = p
    for key, p in params.items():
        kind = {"pairs": " (each gain of the table)", "numbers": " (each number of the list)"}.get(
            p.numbers or "", ""
        )
        rows.append(
            f"| `{p.name}`{kind} | {', '.join(seen[key])} | {_cell(repr(p.default))} | {p.interval()} | {_cell(p.bounds)} |"
        )
    cut = ", ".join(s.name for s in SPECS if s.cutoff != "none")
    rows.append(
        f"| `@k` (cutoff) | {cut} | — | [1, 2**62] | a number of documents from the top; at most "
        "2**62, the engines' Int64 range |"
    )
    return "\n".join(rows)


def write_readme(path: str) -> None:
    """Replace the table between the metrics markers of the file at ``path``."""
    from rankwise.outputs.files import replace_marked

    replace_marked(path, "metrics", metric_table())


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        write_readme(sys.argv[2])
    elif sys.argv[1:] == ["--bounds"]:
        print(bounds_table())
    else:
        print(metric_table())
