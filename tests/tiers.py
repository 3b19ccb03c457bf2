"""The test tiers. ``pytest`` runs the fast tier, for the inner loop: the tests marked
``slow`` (every test of a Spark session, and the heaviest others) are left out, and each
property test draws a quarter of its examples (hypothesis profile ``fast``). ``pytest --full``
runs everything at full size (profile ``full``): the README's test command and CI
(``.ci/run``)."""

from __future__ import annotations

from hypothesis import settings

PROFILES = {"fast": 25, "full": 100}
"""Each tier's hypothesis profile: the percentage of its full examples a property test draws."""

for _name, _share in PROFILES.items():
    # max_examples holds the share; each test states its full size through examples(n)
    settings.register_profile(_name, max_examples=_share)


def load(full: bool) -> None:
    """Load the tier's profile (``tests/conftest.py``, from ``--full``, before the test modules
    are collected)."""
    settings.load_profile("full" if full else "fast")


def examples(n: int) -> int:
    """A property test's number of examples: ``n`` in the full tier, its profile's share of ``n``
    in the fast tier (at least 3)."""
    share = settings().max_examples
    return n if share >= 100 else max(3, n * share // 100)
