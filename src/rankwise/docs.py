"""Documentation generated from the metric specs (the README's metric table).

    python -m rankwise.docs        # prints the Markdown table the README embeds
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
        rows.append(
            f"| **{s.name}** — {s.description} | {names} | {params} | {s.cutoff} | {s.formula} "
            f"| {s.empty_value:g} | {s.aggregate} | {s.trec_eval or '—'} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    print(metric_table())
