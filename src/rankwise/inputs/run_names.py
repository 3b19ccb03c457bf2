"""Names of runs given as files: the TREC run tag when the file has one, else the file's name
without its final extension, made unique among the runs of one command.

trec_eval prints a run's tag (the sixth field of its lines) as ``runid``; ranx and ir-measures
users name runs by their files. Two files whose first choice collides (``results.test`` and
``results.trunc``, or two runs tagged ``STANDARD``) are told apart by their whole file names,
then by their folders, then by a number.

>>> unique_names(["results.test", "results.trunc", "bm25.run.gz", "a/x.parquet", "b/x.parquet"], tags=False)
['results.test', 'results.trunc', 'bm25', 'a/x', 'b/x']
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import PurePath

from rankwise.errors import InvalidParameterError, in_syntax

_COMPRESSED = (".gz",)


def check_run_names(names: Iterable[object]) -> None:
    """Refuse a run's name that is empty or only whitespace (``--name ""``, ``{'': run}``): a
    table, a report or a TREC ``runid`` line could not show which run it is.

    >>> check_run_names(["bm25", "dense"])
    >>> check_run_names(["bm25", " "])
    Traceback (most recent call last):
    ...
    rankwise.errors.InvalidParameterError: a run's name cannot be empty or only whitespace, got ' ': name each run, e.g. runs={'bm25': run}
    """
    for name in names:
        if isinstance(name, str) and not name.strip():
            raise InvalidParameterError(
                f"a run's name cannot be empty or only whitespace, got {name!r}: name each run, e.g. "
                + in_syntax("runs={'bm25': run}", "--name bm25")
            )


def file_stem(path: str | os.PathLike[str]) -> str:
    """The file (or folder) name without its final extension (and without ``.gz``); whitespace,
    which a TREC line cannot hold, becomes ``_``.

    >>> file_stem("runs/my run.trec.gz"), file_stem("exports/run/"), file_stem("results.test")
    ('my_run', 'run', 'results')
    """
    name = _file_name(path)
    return (name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name) or "run"


def _file_name(path: str | os.PathLike[str]) -> str:
    """The whole file name, without ``.gz``, whitespace as ``_``."""
    name = PurePath(os.fspath(path)).name
    for suffix in _COMPRESSED:
        name = name.removesuffix(suffix)
    return "_".join(name.split()) or "run"


def _with_folder(path: str | os.PathLike[str]) -> str:
    p = PurePath(os.fspath(path))
    return "/".join(part for part in (p.parent.name, file_stem(p)) if part)


def unique_names(paths: Sequence[str | os.PathLike[str]], *, tags: bool = True) -> list[str]:
    """One name per path, all different: the TREC run tag (with ``tags``), else
    :func:`file_stem`; where names collide, the whole file name, then the folder and stem,
    then a number (``name#2``)."""
    from rankwise.inputs.read import trec_runid

    def tag(p: str | os.PathLike[str]) -> str:
        found = trec_runid(p) if tags else None
        return found if found else file_stem(p)

    choices: list[Callable[[str | os.PathLike[str]], str]] = [tag, file_stem, _file_name, _with_folder]
    names = [choices[0](p) for p in paths]
    for choose in choices[1:]:
        counts = Counter(names)
        if all(c == 1 for c in counts.values()):
            return names
        names = [choose(p) if counts[n] > 1 else n for p, n in zip(paths, names, strict=True)]
    seen: Counter[str] = Counter()
    out = []
    for n in names:
        seen[n] += 1
        out.append(n if seen[n] == 1 else f"{n}#{seen[n]}")
    return out
