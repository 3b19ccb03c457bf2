"""The test tiers. ``pytest`` runs the fast tier, for the inner loop: the tests marked
``slow`` (every test of a Spark session, and the heaviest others) are left out, and each
property test draws a quarter of its examples. ``pytest --full`` runs everything at full size:
the README's test command and CI (``.ci/run``)."""

from __future__ import annotations

FULL = False
"""Set by ``tests/conftest.py`` from ``--full`` before the test modules are collected."""


def examples(n: int) -> int:
    """A property test's number of examples: ``n`` with ``--full``, else a quarter (at least 3)."""
    return n if FULL else max(3, n // 4)
