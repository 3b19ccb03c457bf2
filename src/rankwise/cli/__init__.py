"""The ``rankwise`` command line: what its commands do (:mod:`~rankwise.cli.commands`), their
arguments (:mod:`~rankwise.cli.arguments`, the conventions' flags built from their declaration),
the terminal (:mod:`~rankwise.cli.terminal`: standard output and error, signals, exit codes), the
names of runs given as files (:mod:`~rankwise.inputs.run_names`) and the ``trec_eval -q`` writer
(:mod:`~rankwise.cli.trec_writer`)."""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """The console script ``rankwise`` (``python -m rankwise``)."""
    from rankwise.cli.commands import main as run

    return run(argv)
