"""The ``rankwise`` command line's arguments: each command's parser (:func:`parse`), and the
reading of its flags back into the keyword options of the Python functions they stand for.

The conventions' flags are built from their one declaration,
:data:`rankwise.conventions.CONVENTION_FLAGS` (:func:`_convention_flags`), and read back by the
conventions' names (:func:`conventions`): a convention declared there reaches ``eval``,
``compare`` and ``explain`` alike. compare's flags are read back by the names and defaults of
:class:`rankwise.comparison.paired.Settings` (:func:`compare_options`).

Each command's arguments are added to the parser only when it is the command given
(:class:`_Parser`): ``rankwise eval`` does not import what ``compare`` needs, nor the reverse.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn, cast, get_args, get_origin, get_type_hints

from rankwise import __version__
from rankwise.conventions import (
    COLUMN_KEYWORDS,
    CONVENTION_FLAGS,
    CONVENTION_KEYWORDS,
    KEYS,
    SIDE_INPUTS,
    ColumnOptions,
    ConventionOptions,
    Conventions,
    InputOptions,
    Library,
    PresetOptions,
    ReadOptions,
)
from rankwise.errors import InvalidParameterError

if TYPE_CHECKING:
    from rankwise.comparison.paired import CompareOptions

def _convention(name: str) -> Callable[[str], object]:
    """An argparse ``type=`` for the convention ``name``: the value is the literal's choice
    written as it (``--empty 1``: the number 1), checked as
    :class:`~rankwise.conventions.Conventions` checks it, and refused with its message (as a
    usage error, exit code 2)."""
    choices = get_args(get_type_hints(Conventions)[name])

    def check(value: str) -> object:
        chosen = next((c for c in choices if str(c) == value), value)
        try:
            Conventions.from_options({name: chosen})
        except InvalidParameterError as exc:
            # no argument name before the message: it names the convention itself
            raise argparse.ArgumentError(None, str(exc)) from None
        return chosen

    return check


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one line and exit code 2.

    A command's parser is given its arguments (``arguments=``, a function adding them) when
    it is first used, for the command given or its help (:class:`_Commands`): ``rankwise eval``
    neither builds nor imports what the other commands' arguments need."""

    def __init__(self, *args: Any, arguments: Callable[[argparse.ArgumentParser], None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._arguments = arguments

    def complete(self) -> None:
        """Add the arguments, once."""
        arguments, self._arguments = self._arguments, None
        if arguments is not None:
            arguments(self)

    def format_usage(self) -> str:
        self.complete()
        return super().format_usage()

    def format_help(self) -> str:
        self.complete()
        return super().format_help()

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        hint = _one_metric_per_flag(getattr(self, "_given", []))
        self.exit(2, f"rankwise: error: {message}{hint} (see {self.prog} --help)\n")


def _one_metric_per_flag(given: Sequence[str]) -> str:
    """A hint for ``-m nDCG@10 AP`` (trec_eval's and rankwise's ``-m`` take one metric each):
    the word after a ``-m`` value is a metric name, not a file."""
    for i, token in enumerate(given[:-2]):
        after = given[i + 2]
        if token in ("-m", "--metric") and not after.startswith("-") and not Path(after).exists() and _a_metric(after):
            return f"; each metric takes its own -m: -m {given[i + 1]} -m {after}"
    return ""


def _a_metric(text: str) -> bool:
    from rankwise.errors import RankwiseError
    from rankwise.names.parse import parse_metrics

    try:
        parse_metrics(text)
    except RankwiseError:
        return False
    return True


class _Commands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """The subcommands: the command given gets its arguments before it parses them."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        if isinstance(values, (list, tuple)) and values:
            chosen = self._name_parser_map.get(values[0])
            if isinstance(chosen, _Parser):
                chosen.complete()
        super().__call__(parser, namespace, values, option_string)


# -- the conventions: one flag each, from their declaration -------------------------------------


def _convention_flag(
    parser: argparse.ArgumentParser, name: str, help: str | None = None, given_only: bool = False
) -> None:
    """The flag of the convention ``name`` (:data:`~rankwise.conventions.CONVENTION_FLAGS`),
    its value in ``args.<name>`` and its default the convention's: a switch sets its value; a
    flag of a literal convention takes one of its choices, checked as
    :class:`~rankwise.conventions.Conventions` checks it; any other flag a value of the
    convention's type (``int | None``: an int, so that argparse words its error as for ``int``).
    ``help`` replaces the declared help. ``given_only``: ``args`` holds the convention only when
    the flag is given (so that ``--like``'s preset sets the others), the help still saying its default."""
    flag = CONVENTION_FLAGS[name]
    default: Any = next(f.default for f in fields(Conventions) if f.name == name)
    shown = flag.help if help is None else help
    if given_only:
        shown, default = shown.replace("%(default)s", str(default)), argparse.SUPPRESS
    if flag.switch is not None:
        parser.add_argument(*flag.names, dest=name, action="store_const", const=flag.switch, default=default, help=shown)
        return
    kind = get_type_hints(Conventions)[name]
    if get_origin(kind) is Literal:
        parser.add_argument(*flag.names, dest=name, choices=get_args(kind), type=_convention(name), default=default,
                            help=shown)
        return
    plain = next(a for a in (get_args(kind) or (kind,)) if a is not type(None))  # int | None: int
    parser.add_argument(*flag.names, dest=name, type=plain, default=default, help=shown)


def _convention_flags(parser: argparse.ArgumentParser) -> None:
    """The conventions, trec_eval's flags where it has them: the same on eval, compare and
    explain (:func:`conventions` reads them)."""
    for name in CONVENTION_FLAGS:
        _convention_flag(parser, name, given_only=True)
    parser.add_argument(
        "--like", choices=get_args(Library), default=None,
        help="each metric as this library computes its metric of the same name: its parameters and "
        "conventions (a convention flag given wins); `python -c \"import rankwise as rw; "
        "print(rw.like('lightgbm', 'nDCG@10'))\"` shows them",
    )


def conventions(args: argparse.Namespace, given_only: bool = False) -> ConventionOptions:
    """The conventions of :func:`_convention_flags`: each flag's value, or its default when it
    is not given (``given_only``: only those given)."""
    defaults = {f.name: f.default for f in fields(Conventions)}
    return cast(ConventionOptions, {
        name: getattr(args, name, defaults[name]) for name in CONVENTION_KEYWORDS
        if hasattr(args, name) or not given_only
    })


def _preset_options(args: argparse.Namespace) -> PresetOptions:
    """``--like``, when given."""
    return {"like": args.like} if getattr(args, "like", None) is not None else {}


# -- the columns and each input's own names ----------------------------------------------------


def _cost_col(parser: argparse.ArgumentParser) -> None:
    """The ``--cost-col`` option (``cost=``) of eval, compare and explain."""
    parser.add_argument(
        "--cost-col", dest="cost", nargs="?", const="cost", default=None,
        help="the run's cost column (default name 'cost'): each document's cost as cwl_eval's costs, read by "
        "the C/W/L measures' EC and ETC and by U, TBG, BPM, IFTRate and IFTGoalRate (absent: 1 a document)",
    )


_FILE_COLUMNS = ("query_id", "doc_id")
"""The columns named per input on the command line (``--run-query-id-col``, ...)."""


def _input_flags(parser: argparse.ArgumentParser) -> None:
    """The names of the columns common to both inputs, and each input's own column names
    (``run_columns``, ``qrels_columns``, ``run_names``, ``qrels_names`` in Python)."""
    for col in ("query_id", "doc_id", "score", "relevance"):
        parser.add_argument(f"--{col.replace('_', '-')}-col", dest=col, default=col, help=f"name of the {col} column")
    for kind in ("run", "qrels"):
        for col in _FILE_COLUMNS:
            parser.add_argument(
                f"--{kind}-{col.replace('_', '-')}-col", dest=f"{kind}_{col}",
                help=f"name of the {kind}'s {col} column, where it differs from the other input's",
            )
        parser.add_argument(
            f"--{kind}-names", type=_names,
            help=f"column names of a CSV/TSV {kind} file without a header row, comma-separated, e.g. "
            + ("query_id,doc_id,score" if kind == "run" else "query_id,doc_id,relevance"),
        )
    parser.add_argument(
        "--train", help="the training interactions (one row per (user, item) interaction: a Parquet or CSV/TSV file, "
        "a folder or a glob), read by the popularity family (MIUF, Surprisal, ARP, UnseenShare, EPC, EFD)",
    )
    _side_column_flags(parser, "train", "the training interactions'", {"query_id": "user", "doc_id": "item"})
    parser.add_argument(
        "--features", help="the item features (one row per item, the item in the run's doc_id column and its vector "
        "in one list column or one numeric column per dimension: a Parquet or CSV/TSV file), read by the "
        "feature-diversity family (ILD, ILS)",
    )
    parser.add_argument(
        "--features-col", dest="features_column",
        help="the item features' column of the vectors (lists or arrays), where they have other columns",
    )
    parser.add_argument(
        "--base-run", help="the base run (the baseline ranking each user's list is compared with: a run file in any "
        "format the run takes), ranked as the run is, read by the base-run family (Unexpectedness)",
    )
    _side_column_flags(parser, "base_run", "the base run's", {"query_id": "query", "doc_id": "doc", "score": "score"})
    parser.add_argument(
        "--catalog", help="the catalog (the items that could be recommended: a Parquet or CSV/TSV file, the items in "
        "the run's doc_id column or its only column), read by the set-level metrics (CatalogCoverage, Gini)",
    )
    parser.add_argument(
        "--catalog-col", dest="catalog_column", help="the catalog's column of the items, where it has several",
    )
    parser.add_argument(
        "--categories", help="the item categories (one row per (item, category), an item on as many rows as it has "
        "categories, the item in the run's doc_id column and the category in 'category' or the only other column: "
        "a Parquet or CSV/TSV file), read by the category family (CategoryDiversity, CategoryEntropy)",
    )
    _side_column_flags(parser, "categories", "the item categories'", {"doc_id": "item", "category": "category"})
    parser.add_argument(
        "--groups", help="the document groups (a Parquet or CSV/TSV file of (doc, group[, weight]) rows: the doc in "
        "the run's doc_id column, the group in 'group', its weight in 'weight', 1 without it), read by the "
        "fair-exposure metrics",
    )
    _side_column_flags(parser, "groups", "the document groups'", {"doc_id": "doc", "group": "group", "weight": "weight"})
    parser.add_argument(
        "--target", help="the target distribution over the groups (a Parquet or CSV/TSV file of (group, share) rows, "
        "or (query, group, share) rows for one per query), or a named default: uniform, relevant",
    )
    _side_column_flags(parser, "target", "the target's", {"query_id": "query", "group": "group", "share": "share"})


def _side_column_flags(parser: argparse.ArgumentParser, kind: str, owner: str, words: Mapping[str, str]) -> None:
    """A side input's own column flags (``--train-query-id-col``, ``--base-run-score-col``: its
    ``*_columns`` in Python, :data:`~rankwise.conventions.KEYS`), each column's word in ``words``."""
    for col in KEYS[kind]:
        parser.add_argument(
            f"--{kind.replace('_', '-')}-{col.replace('_', '-')}-col", dest=f"{kind}_{col}",
            help=f"name of {owner} {words[col]} column, where it differs from the run's {col}"
            if col in COLUMN_KEYWORDS else f"name of {owner} {words[col]} column (default: {col})",
        )


def _side_columns(args: argparse.Namespace, kind: str) -> dict[str, str]:
    """The columns a side input's flags name (:func:`_side_column_flags`), by keyword."""
    return {col: str(getattr(args, f"{kind}_{col}")) for col in KEYS[kind] if getattr(args, f"{kind}_{col}")}


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",")]


def _input_options(args: argparse.Namespace) -> InputOptions:
    """The per-input options of the flags of :func:`_input_flags`, as keyword arguments."""
    options = InputOptions()
    run = {col: str(getattr(args, f"run_{col}")) for col in _FILE_COLUMNS if getattr(args, f"run_{col}")}
    qrels = {col: str(getattr(args, f"qrels_{col}")) for col in _FILE_COLUMNS if getattr(args, f"qrels_{col}")}
    if run:
        options["run_columns"] = run
    if qrels:
        options["qrels_columns"] = qrels
    if args.run_names is not None:
        options["run_names"] = args.run_names
    if args.qrels_names is not None:
        options["qrels_names"] = args.qrels_names
    given = cast(dict[str, Any], options)
    for side in SIDE_INPUTS.values():  # each side input and its own options (a column, or columns by keyword)
        if getattr(args, side.keyword) is not None:
            given[side.keyword] = getattr(args, side.keyword)
        for option in side.options:
            value = _side_columns(args, side.keyword) if option.endswith("_columns") else getattr(args, option)
            if value:
                given[option] = value
    return options


def _column_options(args: argparse.Namespace) -> ColumnOptions:
    """The column names the command's flags give (``--query-id-col``, ..., ``--cost-col``)."""
    return cast(ColumnOptions, {name: getattr(args, name) for name in COLUMN_KEYWORDS if hasattr(args, name)})


def read_options(args: argparse.Namespace) -> ReadOptions:
    """The keyword options of an evaluation that the flags give: the conventions, the column
    names and each input's own names."""
    preset = _preset_options(args)
    # with --like, the preset sets the conventions whose flag is not given
    given = conventions(args, given_only=bool(preset))
    return {**given, **_column_options(args), **_input_options(args), **preset}


def compare_options(args: argparse.Namespace) -> CompareOptions:
    """The keyword options of :func:`rankwise.comparison.paired.comparison` that compare's flags
    give: :func:`read_options` and the settings given (their flags named as the settings, a
    setting not given left to its default)."""
    from rankwise.comparison.paired import SETTING_KEYWORDS

    given = {name: value for name in SETTING_KEYWORDS if (value := getattr(args, name, None)) is not None}
    return cast("CompareOptions", {**read_options(args), **given})


# -- each command's arguments ------------------------------------------------------------------


def _eval_arguments(ev: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise eval``."""
    from rankwise.evaluation.evaluate import ENGINES
    from rankwise.inputs.read import FORMATS

    ev.add_argument("qrels", help="qrels (judgments first, as trec_eval): a Parquet, CSV/TSV or TREC file (gzip too), a folder or a glob")
    ev.add_argument("run", help="run: a Parquet, CSV/TSV or TREC file (gzip too), a folder or a glob")
    ev.add_argument("--name", help="the run's name in --format trec's runid lines (default: its TREC tag, else its file name)")
    ev.add_argument("-m", "--metric", action="append", help="metric string, e.g. nDCG@10, P.5,10 or official (repeatable; default: official)")
    ev.add_argument("-q", "--per-query", action="store_true", help="also print per-query values")
    ev.add_argument("--engine", choices=ENGINES, default="polars")
    _convention_flags(ev)
    ev.add_argument("--format", choices=("table", "csv", "json", "parquet", "trec"), default="table",
                    help="trec: what trec_eval prints (with -q, per query too); parquet needs -o")
    ev.add_argument("--memory-limit", help="DuckDB engine: memory limit, e.g. 2GB (spills to disk beyond it)")
    ev.add_argument("--query-chunks", type=int, help="Polars engine: evaluate the queries in this many groups, "
                    "one after the other (memory held: about one group's share)")
    ev.add_argument("--by", action="append", help="segment column of the run (repeatable): one summary per segment")
    ev.add_argument("--sample", metavar="COLUMN", help="the run's sample column: a stochastic run, each (query, sample) "
                    "one ranking; each query's values the mean over its samples (EE_D, EE_L: of each document's mean "
                    "exposure); a TREC run file's second field is read as the sample under this name")
    ev.add_argument("--run-format", choices=FORMATS, help="read the run as this format (default: from extension/content)")
    ev.add_argument("--qrels-format", choices=FORMATS, help="read the qrels as this format")
    ev.add_argument("-o", "--output", help="write to this file instead of stdout")
    ev.add_argument("--quiet", action="store_true", help="no warnings, no progress display and no closing 'wrote' line on stderr")
    _input_flags(ev)
    ev.add_argument(
        "--subtopic-col", dest="subtopic", nargs="?", const="subtopic", default=None,
        help="subtopic qrels (diversity measures, as ndeval): the qrels' subtopic column (default name "
        "'subtopic'; a TREC qrels file's second field)",
    )
    _cost_col(ev)


def _compare_arguments(co: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise compare``: each setting's flag named as the setting
    (``args.<setting>``), its default the setting's (:class:`~rankwise.comparison.paired.Settings`)."""
    from rankwise.comparison.paired import PAIRS, TESTS, Settings
    from rankwise.comparison.statistics import CORRECTIONS
    from rankwise.evaluation.evaluate import ENGINES

    default = Settings()
    co.add_argument("qrels", help="qrels file, folder or glob")
    co.add_argument("runs", nargs="+", help="runs, the first the baseline; each named by its TREC tag, else its "
                    "file name without the extension (told apart when two collide), or by --name")
    co.add_argument("--name", action="append", help="the runs' names, one per run in order (repeat: --name bm25 --name dense)")
    co.add_argument("-m", "--metric", action="append", help="metric string (repeatable; default AP, nDCG@10, P@10, RR)")
    co.add_argument("--baseline", default=default.baseline, help="name of the baseline run (default: the first)")
    co.add_argument("--test", dest="tests", action="append", choices=TESTS, help="test (repeatable; default t)")
    co.add_argument("--alpha", type=float, default=default.alpha)
    co.add_argument("--correction", choices=CORRECTIONS, default=default.correction,
                    help="multiple-comparison correction (statsmodels' names; default %(default)s)")
    co.add_argument("--pairs", choices=PAIRS, default=default.pairs,
                    help="compare each run with the baseline, or every pair of runs (default %(default)s)")
    co.add_argument("--by", action="append", help="segment column of the runs (repeatable)")
    co.add_argument("--risk-alpha", type=float, default=default.risk_alpha,
                    help="URisk/TRisk/GeoRisk: a loss against the baseline weighs 1 + this (default %(default)s)")
    co.add_argument("--hurt", type=float, default=default.hurt,
                    help="a query is hurt when the run loses more than this (default %(default)s)")
    co.add_argument("--detect", type=float, default=default.detect,
                    help="report the queries a paired t-test needs to detect this difference (topic set size)")
    co.add_argument("--power", type=float, default=default.power, help="power for --detect (default %(default)s)")
    co.add_argument("--resamples", type=int, default=default.resamples,
                    help="bootstrap and randomization resamples (default %(default)s; fewer is faster, coarser)")
    co.add_argument("--seed", type=int, default=default.seed, help="seed of the resampling (default %(default)s)")
    co.add_argument("--wide", action="store_true", help="print every column of the table (csv and json always have them)")
    co.add_argument("--anova", action="store_true",
                    help="print the two-way ANOVA (system x query) of each metric instead of the pairs")
    co.add_argument("--engine", choices=ENGINES, default=default.engine)
    _convention_flags(co)
    _cost_col(co)
    co.add_argument("--format", choices=("table", "csv", "json"), default="table")
    co.add_argument("-o", "--output", help="write to this file instead of stdout")
    co.add_argument("--plot", help="write the figures (PNG) to this folder")
    co.add_argument("--report", help="write a self-contained HTML report (and .md/.tex tables beside it)")
    co.add_argument("--export", metavar="DIR", help="with --report: also write the paper-ready files into DIR "
                    "(table.tex, each figure as .svg and .png)")
    co.add_argument("--quiet", action="store_true", help="no warnings, no progress display and no closing 'wrote' line on stderr")
    _input_flags(co)


def _explain_arguments(ex: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise explain``."""
    ex.add_argument("qrels", help="qrels (judgments first, as trec_eval)")
    ex.add_argument("run")
    ex.add_argument("-m", "--metric", required=True, help="e.g. nDCG@10, AP, RR, P@5")
    ex.add_argument("-q", "--query", required=True, help="the query id")
    _convention_flags(ex)
    _cost_col(ex)
    ex.add_argument("--format", choices=("table", "csv", "json"), default="table")
    ex.add_argument("-o", "--output", help="write to this file instead of stdout")
    ex.add_argument("--quiet", action="store_true", help="no progress display and no closing 'wrote' line on stderr")
    _input_flags(ex)


def _why_arguments(wh: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise why``."""
    from rankwise.evaluation.evaluate import ENGINES

    wh.add_argument("qrels", help="qrels (judgments first, as trec_eval)")
    wh.add_argument("run")
    wh.add_argument("-m", "--metric", required=True, help="e.g. nDCG@10, AP@10, P@5")
    wh.add_argument("--library", action="append", choices=get_args(Library),
                    help="a library to set beside trec_eval (repeatable; default: every library offering the metric)")
    wh.add_argument("--top", type=int, default=5, help="queries shown per library (default %(default)s)")
    wh.add_argument("--query", help="also show this query rank by rank under trec_eval's conventions and each library's")
    wh.add_argument("--engine", choices=ENGINES, default="polars")
    wh.add_argument("--format", choices=("table", "json"), default="table")
    wh.add_argument("-o", "--output", help="write to this file instead of stdout")
    wh.add_argument("--quiet", action="store_true", help="no warnings, no progress display and no closing 'wrote' line on stderr")
    _input_flags(wh)


def _change_arguments(ch: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise change``."""
    ch.add_argument("run_a", help="the first run (e.g. the baseline)")
    ch.add_argument("run_b", help="the second run")
    ch.add_argument("--depth", type=int, default=10, help="compare the top N of each ranking (default %(default)s)")
    ch.add_argument("--p", type=float, default=0.9, help="RBO's persistence (default %(default)s)")
    _convention_flag(ch, "ties", help="order of equal scores (default %(default)s)")
    ch.add_argument("--by", action="append", help="segment column of the runs, constant within a query (repeatable)")
    ch.add_argument("--format", choices=("table", "csv", "json"), default="table")
    ch.add_argument("-o", "--output", help="write to this file instead of stdout")
    ch.add_argument("--quiet", action="store_true", help="no progress display and no closing 'wrote' line on stderr")


def _click_log_flags(parser: argparse.ArgumentParser) -> None:
    """A click log's column flags (``rankwise clicks``, ``rankwise propensities``)."""
    parser.add_argument("--impression-col", help="the log's impression id (default: each query shown once)")
    parser.add_argument("--rank-col", default="rank", help="the log's rank shown (1 = top; default %(default)s)")
    parser.add_argument("--click-col", default="click", help="the log's click, 0/1 (default %(default)s)")


def _clicks_arguments(cl: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise clicks``."""
    from rankwise.clicks.counterfactual import ESTIMATORS
    from rankwise.evaluation.evaluate import ENGINES

    cl.add_argument("log", help="the click log: one row per shown document (query id, doc id, rank shown, click)")
    cl.add_argument("run", help="the new run to estimate")
    cl.add_argument("-m", "--metric", nargs="+", required=True, help="DCG or CG (linear gain), P@k, CTR@k (expected clicks), e.g. DCG@10 CTR@5")
    where = cl.add_mutually_exclusive_group()
    where.add_argument("--eta", type=float, help="examination θ(r) = (1/r)^eta (the default, with eta 1)")
    where.add_argument("--propensities", help="a file of θ per rank (columns rank, propensity)")
    where.add_argument("--propensity-col", help="the log's column of each row's θ")
    cl.add_argument("--clip", type=float, help="floor on θ: every weight at most 1/clip")
    cl.add_argument("--estimator", choices=ESTIMATORS, default="ips", help="ips (default) or naive (no weights)")
    cl.add_argument("--alpha", type=float, default=0.05, help="the interval's level is 1 - alpha (default %(default)s)")
    _click_log_flags(cl)
    _convention_flag(cl, "ties", help="order of the run's equal scores (default %(default)s)")
    cl.add_argument("--query-id-col", default="query_id", help="the query id column of the log and the run")
    cl.add_argument("--doc-id-col", default="doc_id", help="the doc id column of the log and the run")
    cl.add_argument("--engine", choices=ENGINES, default="polars")
    cl.add_argument("--per-query", action="store_true", help="each logged query's values instead of the summary")
    cl.add_argument("--format", choices=("table", "csv", "json"), default="table")
    cl.add_argument("-o", "--output", help="write to this file instead of stdout")
    cl.add_argument("--quiet", action="store_true", help="no progress display and no closing 'wrote' line on stderr")


def _slate_arguments(sl: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise slate``."""
    from rankwise.clicks.slate import SLATE_ESTIMATORS

    sl.add_argument("log", help="the click log: one row per shown document (slate id, rank shown, click, probabilities)")
    sl.add_argument("run", nargs="?", help="a new ranking as the evaluation policy (instead of --evaluation-pscore-col)")
    sl.add_argument("--estimator", choices=SLATE_ESTIMATORS, default="iips", help="obp's slate estimator (default %(default)s)")
    sl.add_argument("--pscore-col", help="the logging policy's probability column (default obp's name for the estimator)")
    sl.add_argument("--evaluation-pscore-col", help="the evaluation policy's (default evaluation_policy_ + that)")
    sl.add_argument("--alpha", type=float, default=0.05, help="the intervals' level is 1 - alpha (default %(default)s)")
    sl.add_argument("--resamples", type=int, help="add obp's bootstrap interval with this many resamples")
    sl.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default %(default)s)")
    _click_log_flags(sl)
    _convention_flag(sl, "ties", help="order of the run's equal scores (default %(default)s)")
    sl.add_argument("--query-id-col", default="query_id", help="the query id column of the log and the run")
    sl.add_argument("--doc-id-col", default="doc_id", help="the doc id column of the log and the run")
    sl.add_argument("--engine", choices=("polars", "duckdb"), default="polars")
    sl.add_argument("--per-slate", action="store_true", help="each slate's value instead of the summary")
    sl.add_argument("--format", choices=("table", "csv", "json"), default="table")
    sl.add_argument("-o", "--output", help="write to this file instead of stdout")
    sl.add_argument("--quiet", action="store_true", help="no progress display and no closing 'wrote' line on stderr")


def _ppi_arguments(pp: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise ppi``: ``eval``'s where they apply."""
    from rankwise.evaluation.evaluate import ENGINES
    from rankwise.inputs.read import FORMATS

    pp.add_argument("human_qrels", help="the human judgments (a random sample of the queries): a Parquet, CSV/TSV or TREC file")
    pp.add_argument("model_qrels", help="the model's judgments (every query; relevance may be a probability)")
    pp.add_argument("run", help="run: a Parquet, CSV/TSV or TREC file (gzip too), a folder or a glob")
    pp.add_argument("-m", "--metric", action="append", required=True, help="metric string, e.g. nDCG@10 (repeatable)")
    pp.add_argument("--alpha", type=float, default=0.05, help="the intervals' level is 1 - alpha (default %(default)s)")
    pp.add_argument("--classic", action="store_true", help="classic PPI (lambda = 1) instead of power-tuned PPI++")
    pp.add_argument("--baseline", metavar="RUN", help="a second run: the inference on the per-query differences run - baseline")
    pp.add_argument("--engine", choices=ENGINES, default="polars")
    _convention_flags(pp)
    pp.add_argument("--format", choices=("table", "csv", "json"), default="table")
    pp.add_argument("--qrels-format", choices=FORMATS, help="read both qrels as this format")
    pp.add_argument("-o", "--output", help="write to this file instead of stdout")
    pp.add_argument("--quiet", action="store_true", help="no progress display and no closing 'wrote' line on stderr")
    _input_flags(pp)


def _propensities_arguments(pr: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise propensities``."""
    from rankwise.clicks.propensities import METHODS

    pr.add_argument("log", help="the click log: one row per shown document (query id, doc id, rank shown, click)")
    pr.add_argument("--method", choices=METHODS, default="pivot", help="intervention harvesting (default %(default)s)")
    pr.add_argument("--pivot", type=int, default=1, help="the pivot rank (default %(default)s)")
    _click_log_flags(pr)
    pr.add_argument("--query-id-col", default="query_id", help="the log's query id column")
    pr.add_argument("--doc-id-col", default="doc_id", help="the log's doc id column")
    pr.add_argument("--format", choices=("table", "csv", "json"), default="table")
    pr.add_argument("-o", "--output", help="write to this file instead of stdout (csv: rankwise clicks --propensities)")
    pr.add_argument("--quiet", action="store_true", help="no progress display and no closing 'wrote' line on stderr")


def _metrics_arguments(me: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise metrics``."""
    me.add_argument("name", nargs="?", help="a metric name, e.g. nDCG")


def _interleaving_columns(parser: argparse.ArgumentParser) -> None:
    """The run columns of ``interleave`` and ``interleaving`` (named as the other commands' flags)."""
    for col in ("query_id", "doc_id", "score"):
        parser.add_argument(f"--{col.replace('_', '-')}-col", dest=col, default=col, help=f"name of the {col} column")
    _convention_flag(parser, "ties", help="order of the runs' equal scores (default %(default)s)")
    parser.add_argument("--name", action="append", help="the runs' names, one per run in order (default: their file names)")
    parser.add_argument("--tau", type=float, default=3.0, help="probabilistic: the softmax exponent, P ∝ 1/rank^tau (default %(default)s)")
    parser.add_argument("-o", "--output", help="write to this file instead of stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress display and no closing 'wrote' line on stderr")


def _interleave_arguments(il: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise interleave``."""
    il.add_argument("runs", nargs="+", help="two runs (team_draft and probabilistic: two or more, multileaving)")
    il.add_argument("--method", default="team_draft", help="team_draft (default), balanced or probabilistic")
    il.add_argument("-k", type=int, default=10, help="the interleaved list's length per query (default %(default)s)")
    il.add_argument("--seed", type=int, default=0, help="the random generator's seed (default %(default)s)")
    il.add_argument("--format", choices=("table", "csv", "json", "parquet"),
                    help="default: from -o's extension (.parquet, .csv, .json), else table")
    _interleaving_columns(il)


def _interleaving_arguments(an: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise interleaving``."""
    an.add_argument("log", help="the click log: one row per shown document (impression or query id, rank, doc id, team, click)")
    an.add_argument("runs", nargs="*", help="the runs interleaved (needed by balanced and probabilistic)")
    an.add_argument("--method", default="team_draft", help="team_draft (default), balanced or probabilistic")
    an.add_argument("--impression-col", dest="impression", help="the impression id column (default: the query id identifies impressions)")
    for col, default in (("rank", "rank"), ("team", "team"), ("click", "click")):
        an.add_argument(f"--{col}-col", dest=col, default=default, help=f"name of the log's {col} column")
    an.add_argument("--no-clicks", default="drop", help="impressions without clicks: drop (default) or tie")
    an.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default %(default)s)")
    an.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default %(default)s)")
    an.add_argument("--level", type=float, default=0.95, help="the bootstrap interval's level (default %(default)s)")
    an.add_argument("--engine", default="polars", help="polars (default) or duckdb")
    an.add_argument("--per-impression", action="store_true", help="the credits per impression instead of the summary")
    an.add_argument("--format", choices=("table", "csv", "json"), default="table")
    _interleaving_columns(an)


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``rankwise`` command line: its options and its commands (``args.command``)."""
    parser = _Parser(prog="rankwise", description="Ranking-evaluation metrics, exact to trec_eval.")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    parser.add_argument("--version", action="version", version=f"rankwise {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, action=_Commands)
    # --debug is accepted after the command too (rankwise eval ... --debug); SUPPRESS keeps the
    # subcommand from resetting a --debug given before it
    debug = _Parser(add_help=False)
    debug.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show Python tracebacks on errors")
    sub.add_parser("eval", help="evaluate a run against qrels", parents=[debug], arguments=_eval_arguments)
    sub.add_parser("compare", help="compare runs against a baseline with paired significance tests", parents=[debug], arguments=_compare_arguments)
    sub.add_parser("explain", help="one query's ranking, rank by rank, for one metric", parents=[debug], arguments=_explain_arguments)
    sub.add_parser("why", help="one metric under every library's conventions, and what makes them differ", parents=[debug], arguments=_why_arguments)
    sub.add_parser("change", help="how much two runs' rankings differ, per query (RBO, Kendall's tau, Jaccard, overlap)", parents=[debug], arguments=_change_arguments)
    sub.add_parser("clicks", help="estimate a new run's DCG/CG from a click log (inverse propensity)", parents=[debug], arguments=_clicks_arguments)
    sub.add_parser("propensities", help="examination propensities per rank from a click log (intervention harvesting)", parents=[debug], arguments=_propensities_arguments)
    sub.add_parser("metrics", help="list metrics, or explain one", parents=[debug], arguments=_metrics_arguments)
    sub.add_parser("interleave", help="interleave runs for an online experiment (team draft, balanced, probabilistic)", parents=[debug], arguments=_interleave_arguments)
    sub.add_parser("interleaving", help="analyse an interleaving click log: credits, wins, Delta, sign test", parents=[debug], arguments=_interleaving_arguments)
    sub.add_parser("slate", help="estimate a new ranking policy's clicks from a randomised log (obp's SIPS, IIPS, RIPS)", parents=[debug], arguments=_slate_arguments)
    sub.add_parser("ppi", help="a run's metrics from model judgments checked on human ones (prediction-powered inference)", parents=[debug], arguments=_ppi_arguments)
    return parser


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line ``argv`` (None: the process's) parsed: the command in ``args.command``,
    its arguments beside it."""
    return build_parser().parse_args(argv)
