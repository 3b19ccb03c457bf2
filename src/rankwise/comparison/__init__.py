"""Is the new ranking better? The paired comparison of runs (:mod:`~rankwise.comparison.paired`),
its statistics (:mod:`~rankwise.comparison.statistics`), the runs × metrics summary
(:mod:`~rankwise.comparison.summary`), the same comparison as one SQL statement
(:mod:`~rankwise.comparison.sql`) and how much a ranking changed (:mod:`~rankwise.comparison.change`)."""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    # rankwise.comparison.comparison(...) and the rest of what the module rankwise.comparison
    # of earlier versions held (now rankwise.comparison.paired), found when first used
    paired = importlib.import_module("rankwise.comparison.paired")
    if name.startswith("_") or not hasattr(paired, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(paired, name)
