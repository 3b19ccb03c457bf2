"""Documentation generated from the metric specs (the README's metric table).

    python -m rankwise.docs                   # prints the Markdown table the README embeds
    python -m rankwise.docs --write README.md # replaces it between the README's markers
"""

from __future__ import annotations

from rankwise.registry import SPECS


def metric_table() -> str:
    """The README's metric table, one row per spec.

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
        empty = repr(s.empty_value) if isinstance(s.empty_value, str) else f"{s.empty_value:g}"
        rows.append(
            f"| **{s.name}** — {s.description} | {names} | {params} | {s.cutoff} | {s.formula} "
            f"| {empty} | {s.aggregate} | {s.trec_eval or '—'} |"
        )
    return "\n".join(rows)


START, END = "<!-- metrics:start -->\n", "\n<!-- metrics:end -->"


def write_readme(path: str) -> None:
    """Replace the table between the metrics markers of the file at ``path``."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(head + START + metric_table() + END + tail)


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        write_readme(sys.argv[2])
    else:
        print(metric_table())
