"""The ``rankwise`` command line.

``rankwise eval QRELS RUN [-m METRIC ...]`` prints the mean of each metric over queries (and
per query with ``--per-query``); ``rankwise metrics [NAME]`` lists or explains metrics.
Errors are one line on stderr and exit code 2 (``--debug`` shows the traceback); Ctrl-C exits
with 130 and SIGTERM with 143, and no output file is then left half-written: every file is
written to a temporary file beside it and renamed into place once complete
(:mod:`rankwise.outputs.files`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shlex
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import polars as pl

from rankwise import __version__, _start
from rankwise.conventions import (
    TIE_POLICIES,
    TREC_EVAL_VERSIONS,
    ColumnOptions,
    ConventionOptions,
    Conventions,
    InputOptions,
)
from rankwise.errors import (
    InvalidParameterError,
    OutputError,
    RankwiseError,
    RankwiseWarning,
    UnknownMetricError,
    hint_style,
)
from rankwise.inputs.run_names import check_run_names, unique_names
from rankwise.outputs import progress
from rankwise.outputs.files import (
    os_reason,
    output_error,
    visible,
    write_bytes_atomic,
    write_lines_atomic,
    write_text_atomic,
)

if TYPE_CHECKING:
    from rankwise.comparison.paired import Comparison
    from rankwise.metrics.metric import Metric
    from rankwise.metrics.spec import MetricSpec

# Each command imports what it needs when it runs (the engines, the statistics, the metric
# names), and its arguments are added to the parser only when it is the command given
# (:class:`_Parser`): `rankwise eval` does not import what `compare` needs, nor the reverse.

DEFAULT_METRICS: tuple[str, ...] = ("official",)
"""Default set: trec_eval's official measures (what ``trec_eval qrels run`` prints)."""


def _table(per_query: pl.DataFrame, summary: pl.DataFrame, keys: list[str], per_query_rows: bool) -> str:
    """trec_eval's layout (metric, query, value), with segment values before the query (ids
    and names shown :func:`~rankwise.outputs.files.visible`: a control character is not obeyed)."""
    from rankwise.cli.trec_writer import format_value
    from rankwise.evaluation.evaluate import metric_of_column

    metrics = [c for c in per_query.columns if c not in keys]
    segments = keys[:-1]
    width = max(len(m) for m in metrics) + 2

    def where(row: dict[str, object], query: object) -> str:
        parts = [visible(f"{row[s]!s}") for s in segments] + [visible(f"{query!s}")]
        return "".join(f"{p:<12}" for p in parts)

    lines = []
    if per_query_rows:
        for row in per_query.iter_rows(named=True):
            for m in metrics:
                lines.append(f"{m:<{width}}{where(row, row[keys[-1]])}{format_value(metric_of_column(m), row[m])}")
    for srow in summary.iter_rows(named=True):
        for m in metrics:
            if m not in srow:  # per-query-only measures (relstring)
                continue
            lines.append(f"{m:<{width}}{where(srow, 'all')}{format_value(metric_of_column(m), srow[m])}")
    return "\n".join(lines)


def _progress(args: argparse.Namespace, message: str) -> None:
    """A status line on a terminal; nothing when stderr is piped or with --quiet."""
    if _shows_progress(args):
        _say(f"rankwise: {message}")


def _shows_progress(args: argparse.Namespace) -> bool:
    """Progress is shown on a terminal's stderr only, and not with --quiet."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def _run_command(args: argparse.Namespace) -> int:
    """The subcommand, with its progress shown live on a terminal (:mod:`rankwise.outputs.progress`)."""
    if not _shows_progress(args):
        return int(args.func(args))
    import shutil

    with progress.displayed(sys.stderr, width=shutil.get_terminal_size((100, 24)).columns - 1):
        return int(args.func(args))


class _StdoutError(OSError):
    """Standard output could not be written (e.g. ``> /dev/full``)."""


def _stdout(chunks: Iterable[str]) -> None:
    """Write to standard output; an OS fault (other than the reader leaving) is a
    :class:`_StdoutError`."""
    try:
        for chunk in chunks:
            sys.stdout.write(chunk)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise _StdoutError(exc.errno, exc.strerror) from exc


def _emit(args: argparse.Namespace, text: str) -> None:
    """The text, with one line end, to ``-o`` (whole or not at all) or to standard output."""
    text = text.rstrip("\n") + "\n"
    if args.output:
        write_text_atomic(args.output, text)
    else:
        _stdout([text])


def _cmd_eval(args: argparse.Namespace) -> int:
    from rankwise.evaluation.evaluate import evaluate, summarize

    texts: list[str] = args.metric or list(DEFAULT_METRICS)
    metrics: list[str | Metric] = list(texts)
    segments = args.by or []
    if args.name is not None:
        check_run_names([args.name])
    asks_runid = True
    if args.format == "trec":
        from rankwise.names.trec_eval import trec_eval_request

        # what trec_eval prints for these -m options: its order, runid and num_q when asked for
        request = trec_eval_request(texts)
        metrics, asks_runid = request.metrics, request.runid
    if args.format == "parquet" and not args.output:
        raise InvalidParameterError("--format parquet needs -o PATH")
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RankwiseWarning)
        per_query = evaluate(
            args.qrels, args.run, metrics, engine=args.engine, **_conventions(args), query_id=args.query_id,
            doc_id=args.doc_id, score=args.score, relevance=args.relevance, subtopic=args.subtopic,
            cost=args.cost, run_format=args.run_format, qrels_format=args.qrels_format, by=segments or None,
            duckdb_config={"memory_limit": args.memory_limit} if args.memory_limit else None,
            query_chunks=args.query_chunks, **_input_options(args),
        )
    for w in caught:
        if not args.quiet:
            _say(f"rankwise: warning: {w.message}")
    _progress(args, f"{per_query.height} queries done in {time.perf_counter() - started:.2f} s")
    keys = [*segments, args.query_id]
    if args.format == "trec":
        if segments:
            raise InvalidParameterError("--format trec has no place for --by segments; use table, csv, json or parquet")
        # --name, else a TREC run's own tag, else the file's name without its extension
        # (whitespace, which a TREC line cannot hold, as '_': "my run.parquet" is run "my_run")
        runid = (args.name or unique_names([args.run])[0]) if asks_runid else None
        from rankwise.cli.trec_writer import trec_lines

        # checked whole first, then written line by line (whole or not at all with -o); the
        # summary lines are the writer's (relstring alone, text, has none)
        lines = (
            line + "\n"
            for line in trec_lines(
                per_query, query_id=args.query_id, runid=runid, per_query_lines=args.per_query, num_q="asked"
            )
        )
        if args.output:
            write_lines_atomic(args.output, lines)
        else:
            _stdout(lines)
        return 0
    summary = summarize(per_query.drop(args.query_id), by=segments or None)
    if args.format == "table":
        text = _table(per_query, summary, keys, args.per_query)
    else:
        out = per_query if args.per_query else summary
        if args.format == "parquet":
            # encoded in memory (no larger than the frame), then written by Python: an OS fault
            # is then an OSError (Polars would report it in its own error, or none at all)
            buffer = io.BytesIO()
            out.write_parquet(buffer)
            write_bytes_atomic(args.output, buffer.getvalue())
            return 0
        text = out.write_csv() if args.format == "csv" else out.write_json()
    _emit(args, text)
    return 0


def _names_of(spec: MetricSpec) -> list[tuple[str, str]]:
    """The names a metric goes by in each tool that has it: (tool, names), ir-measures first."""
    from rankwise.names.parse import IR_MEASURES_NAMES, NDEVAL_NAMES
    from rankwise.names.ranx import RANX_NAMES
    from rankwise.names.trec_eval import trec_names_of

    cut = "@k" if spec.cutoff == "required" else ""
    names: list[tuple[str, str]] = []
    if spec.name in IR_MEASURES_NAMES:
        names.append(("ir-measures", IR_MEASURES_NAMES[spec.name] + cut))
    trec = trec_names_of(spec.name)
    if trec:
        names.append(("trec_eval", ", ".join(trec)))
    if spec.name in RANX_NAMES:
        names.append(("ranx", RANX_NAMES[spec.name]))
    if spec.name in NDEVAL_NAMES:
        names.append(("ndeval", NDEVAL_NAMES[spec.name]))
    return names


def _specs_named(name: str) -> list[MetricSpec]:
    """The metrics a name means: a metric's own name or alias, else any metric string of the
    three schemes (``P_10``, ``nDCG@10``, ``official`` ...), its metrics' specs once each. A
    string naming a metric with a bad cutoff or parameter value (``nDCG@0``) gets that error,
    naming the value and the values allowed; one naming no metric, the unknown name's."""
    from rankwise.metrics.registry import get_spec
    from rankwise.names.parse import parse_metrics

    try:
        return [get_spec(name)]
    except UnknownMetricError as unknown:
        try:
            parsed = parse_metrics(name)
        except UnknownMetricError:
            raise unknown from None
        return list({m.spec.name: m.spec for m in parsed}.values())


def _cmd_metrics(args: argparse.Namespace) -> int:
    from rankwise.metrics.registry import SPECS

    if args.name:
        specs = _specs_named(args.name)
        for i, spec in enumerate(specs):
            if i:
                _stdout(["\n"])
            _metric_page(spec)
        return 0
    width = max(len(s.name) for s in SPECS) + 2
    for spec in SPECS:
        listed = "; ".join(f"{tool}: {text}" for tool, text in _names_of(spec))
        print(f"{spec.name:<{width}}{spec.description}" + (f" [{listed}]" if listed else ""))
    return 0


def _metric_page(spec: MetricSpec) -> None:
    """``rankwise metrics NAME``: one metric, each of its facts once."""
    from rankwise.names.trec_eval import trec_names_of

    lines = [f"{spec.name}: {spec.description}"]
    names = _names_of(spec)
    known = {n.strip() for _, text in names for n in text.replace("@k", "").split(",")}
    also = [n for n in spec.all_names if n not in known]
    fields = [("rankwise", spec.name + ("@k" if spec.cutoff == "required" else "")), *names]
    if also[1:]:
        fields.append(("also", ", ".join(also[1:])))
    if spec.trec_eval and not trec_names_of(spec.name):
        fields.append(("trec_eval", spec.trec_eval))
    fields.append(("formula", spec.formula))
    fields.append(("cutoff", {"optional": "optional (@k)", "required": "required (@k)", "none": "none"}[spec.cutoff]))
    empty = "NULL (undefined)" if spec.empty_value is None else spec.empty_value
    fields.append(("empty query", f"{empty}; summary over queries: {spec.aggregate}"))
    fields.append(("better", {"higher": "higher", "lower": "lower (a decrease is a win in compare)",
                              "neither": "neither (compare gives no win or loss)"}[spec.better]))
    fields.append(("citation", spec.citation))
    width = max(len(k) for k, _ in fields) + 2
    lines += [f"  {k + ':':<{width}}{v}" for k, v in fields]
    if spec.params:
        lines.append("  parameters:")
    for p in spec.params:
        choices = f" one of {list(p.choices)};" if p.choices else ""
        lines.append(f"    {p.name} (default {p.default!r}):{choices} {p.doc}")
    _stdout([line + "\n" for line in lines])


def _convention(name: str) -> Callable[[str], str]:
    """An argparse ``type=`` for the convention ``name``: the value is checked as
    :class:`~rankwise.conventions.Conventions` checks it, and refused with its message (as a
    usage error, exit code 2)."""

    def check(value: str) -> str:
        try:
            Conventions.from_options({name: value})
        except InvalidParameterError as exc:
            # no argument name before the message: it names the convention itself
            raise argparse.ArgumentError(None, str(exc)) from None
        return value

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

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"rankwise: error: {message} (see {self.prog} --help)\n")


class _Commands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """The subcommands: the command given gets its arguments before it parses them."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        if isinstance(values, (list, tuple)) and values:
            chosen = self._name_parser_map.get(values[0])
            if isinstance(chosen, _Parser):
                chosen.complete()
        super().__call__(parser, namespace, values, option_string)


def _write(args: argparse.Namespace, frame: pl.DataFrame) -> None:
    """A result table in ``--format``: csv and json keep the bytes, the table shows text
    :func:`~rankwise.outputs.files.visible`."""
    if args.format == "csv":
        text = frame.write_csv()
    elif args.format == "json":
        text = frame.write_json()
    else:
        with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=40,
                       tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
            from rankwise.reporting.tables import shown

            text = str(shown(frame))
    _emit(args, text)


def _cmd_compare(args: argparse.Namespace) -> int:
    from rankwise.comparison.paired import anova, comparison

    if args.name and len(args.name) != len(args.runs):
        raise InvalidParameterError(
            f"--name was given {len(args.name)} time(s) for {len(args.runs)} runs: name every run, in order, or none"
        )
    names = args.name or unique_names(args.runs)
    check_run_names(names)
    if len(set(names)) < len(names):
        raise InvalidParameterError(f"--name gives two runs the same name: {names}")
    runs = dict(zip(names, args.runs, strict=True))
    if args.report and not Path(args.report).resolve().parent.is_dir():
        raise OutputError(f"cannot write the report {args.report!r}: the folder {str(Path(args.report).parent)!r} does not exist")
    if args.report:
        from rankwise.reporting.report import check_report_paths, named_inputs

        check_report_paths(args.report, named_inputs(args.qrels, runs), [("-o", args.output)])
    if len(runs) < 2:
        raise InvalidParameterError(f"compare needs at least two runs, got one ({args.runs[0]!r}): rankwise compare QRELS RUN_A RUN_B ...")
    if args.anova:
        given = [flag for flag, value in (("--report", args.report), ("--plot", args.plot), ("--test", args.test),
                                          ("--pairs", args.pairs != "baseline"), ("--baseline", args.baseline),
                                          ("--detect", args.detect is not None)) if value]
        if given:
            raise InvalidParameterError(f"--anova prints the ANOVA table only: leave out {', '.join(given)} (or --anova)")
        _write(args, anova(
            args.qrels, runs, args.metric or ["AP", "nDCG@10", "P@10", "RR"], by=args.by or None, engine=args.engine,
            **_conventions(args), **_column_options(args), **_input_options(args),
        ))
        return 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RankwiseWarning)
        drawn = bool(args.report or args.plot)
        result = comparison(
            args.qrels, runs, args.metric or ["AP", "nDCG@10", "P@10", "RR"], baseline=args.baseline,
            pairs=args.pairs, tests=args.test or ["t"], alpha=args.alpha, correction=args.correction,
            by=args.by or None, engine=args.engine, risk_alpha=args.risk_alpha, hurt=args.hurt, detect=args.detect,
            power=args.power, resamples=args.resamples, seed=args.seed, also=_figure_metrics() if drawn else (),
            **_conventions(args), **_column_options(args), **_input_options(args),
        )
        if drawn:
            _figures(args, result)
    for w in caught:
        if not args.quiet and issubclass(w.category, RankwiseWarning):
            _say(f"rankwise: warning: {w.message}")
    if args.format == "table":
        import shutil

        from rankwise.reporting.tables import frame_text, to_text

        width = shutil.get_terminal_size((120, 24)).columns
        if args.wide:
            _emit(args, frame_text(result.table, result.table.columns.index("metric") + 1, width))
        else:
            _emit(args, to_text(result, width=width))
        return 0
    _write(args, result.table)
    return 0


def _cost_col(parser: argparse.ArgumentParser) -> None:
    """The ``--cost-col`` option (``cost=``) of eval, compare and explain."""
    parser.add_argument(
        "--cost-col", dest="cost", nargs="?", const="cost", default=None,
        help="the run's cost column (default name 'cost'): each document's cost as cwl_eval's costs, read by "
        "the C/W/L measures' EC and ETC and by U, TBG, BPM, IFTRate and IFTGoalRate (absent: 1 a document)",
    )


def _figure_metrics() -> tuple[str, ...]:
    from rankwise.reporting.plots import FIGURE_METRICS

    return FIGURE_METRICS


def _figures(args: argparse.Namespace, result: Comparison) -> None:
    """Draw the comparison's figures once; write them to ``--plot``'s folder and embed them in
    ``--report``'s page."""
    from rankwise.reporting import plots

    drawn = plots.figures(result)
    if args.plot:
        folder = Path(args.plot)
        if folder.exists() and not folder.is_dir():
            raise OutputError(f"cannot write the figures into {args.plot!r}: it is not a folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise output_error(args.plot, exc) from exc
        for f in drawn:
            plots.save(f.figure, folder / f"{f.stem}.png", dpi=110)
    if args.report:
        from rankwise.reporting.report import write_report

        write_report(result, args.report, drawn, command=shlex.join(["rankwise", *args.argv]))
    plots.close(drawn)


def _cmd_change(args: argparse.Namespace) -> int:
    from rankwise.comparison.change import ranking_change

    segments = args.by or []
    per_query = ranking_change(args.run_a, args.run_b, depth=args.depth, p=args.p, ties=args.ties, by=segments or None)
    query = per_query.columns[len(segments)]
    values = pl.exclude(*segments, query).cast(pl.Float64)
    # the mean of each column: over all queries, or per segment
    means = (
        per_query.group_by(segments, maintain_order=True).agg(pl.lit("all").alias(query), values.mean())
        if segments else per_query.select(pl.lit("all").alias(query), values.mean())
    )
    rows = per_query.with_columns(pl.col(query).cast(pl.String), values)
    _write(args, pl.concat([rows, means.select(rows.columns)]))
    return 0


def _cmd_explain(args: argparse.Namespace) -> int:
    from rankwise.evaluation.explain import explain

    table = explain(
        args.qrels, args.run, args.metric, args.query, **_conventions(args), **_column_options(args), **_input_options(args)
    )
    _write(args, table)
    return 0


_FILE_COLUMNS = ("query_id", "doc_id")
"""The columns named per input on the command line (``--run-query-id-col``, ...)."""


def _input_flags(parser: argparse.ArgumentParser, shared: bool) -> None:
    """Each input's own column names (``run_columns``, ``qrels_columns``, ``run_names``,
    ``qrels_names`` in Python); with ``shared``, also the names common to both inputs."""
    if shared:
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
    return options


def _column_options(args: argparse.Namespace) -> ColumnOptions:
    return ColumnOptions(
        query_id=args.query_id, doc_id=args.doc_id, score=args.score, relevance=args.relevance, cost=args.cost
    )


def _convention_flags(parser: argparse.ArgumentParser) -> None:
    """The conventions, trec_eval's flags where it has them: the same on eval, compare and
    explain (:func:`_conventions` reads them)."""
    parser.add_argument("-c", "--complete", action="store_true", help="score queries missing from the run as 0 (trec_eval -c)")
    parser.add_argument("-M", "--max-rank", type=int, default=Conventions.max_rank, help="evaluate only the top N per query (trec_eval -M)")
    parser.add_argument("-J", "--judged-only", action="store_true", help="drop unjudged documents first (trec_eval -J)")
    parser.add_argument("-l", "--rel", type=float, default=Conventions.rel, help="relevance threshold of binary metrics (trec_eval -l)")
    parser.add_argument("--ties", choices=TIE_POLICIES, type=_convention("ties"), default=Conventions.ties,
                        help="order of equal scores (default %(default)s: doc id descending, compared as text)")
    parser.add_argument("--trec-eval", choices=TREC_EVAL_VERSIONS, type=_convention("trec_eval"), default=Conventions.trec_eval,
                        help="the trec_eval to reproduce (default %(default)s; 9: trec_eval 9.0.8, pytrec_eval's: "
                        "scores as 32-bit floats, interpolated precision's +0.9 rounding)")


def _conventions(args: argparse.Namespace) -> ConventionOptions:
    """The conventions given by :func:`_convention_flags`."""
    return {
        "ties": args.ties, "trec_eval": args.trec_eval, "missing": "zero" if args.complete else "ignore",
        "max_rank": args.max_rank, "rel": args.rel, "judged_only": args.judged_only,
    }


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
    ev.add_argument("--run-format", choices=FORMATS, help="read the run as this format (default: from extension/content)")
    ev.add_argument("--qrels-format", choices=FORMATS, help="read the qrels as this format")
    ev.add_argument("-o", "--output", help="write to this file instead of stdout")
    ev.add_argument("--quiet", action="store_true", help="no warnings and no progress display on stderr")
    for col in ("query_id", "doc_id", "score", "relevance"):
        ev.add_argument(f"--{col.replace('_', '-')}-col", dest=col, default=col, help=f"name of the {col} column")
    _input_flags(ev, shared=False)
    ev.add_argument(
        "--subtopic-col", dest="subtopic", nargs="?", const="subtopic", default=None,
        help="subtopic qrels (diversity measures, as ndeval): the qrels' subtopic column (default name "
        "'subtopic'; a TREC qrels file's second field)",
    )
    _cost_col(ev)
    ev.set_defaults(func=_cmd_eval)


def _compare_arguments(co: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise compare``."""
    from rankwise.comparison.paired import PAIRS, TESTS
    from rankwise.comparison.statistics import CORRECTIONS
    from rankwise.evaluation.evaluate import ENGINES

    co.add_argument("qrels", help="qrels file, folder or glob")
    co.add_argument("runs", nargs="+", help="runs, the first the baseline; each named by its TREC tag, else its "
                    "file name without the extension (told apart when two collide), or by --name")
    co.add_argument("--name", action="append", help="the runs' names, one per run in order (repeat: --name bm25 --name dense)")
    co.add_argument("-m", "--metric", action="append", help="metric string (repeatable; default AP, nDCG@10, P@10, RR)")
    co.add_argument("--baseline", help="name of the baseline run (default: the first)")
    co.add_argument("--test", action="append", choices=TESTS, help="test (repeatable; default t)")
    co.add_argument("--alpha", type=float, default=0.05)
    co.add_argument("--correction", choices=CORRECTIONS, default="holm",
                    help="multiple-comparison correction (statsmodels' names; default %(default)s)")
    co.add_argument("--pairs", choices=PAIRS, default="baseline",
                    help="compare each run with the baseline, or every pair of runs (default %(default)s)")
    co.add_argument("--by", action="append", help="segment column of the runs (repeatable)")
    co.add_argument("--risk-alpha", type=float, default=1.0,
                    help="URisk/TRisk/GeoRisk: a loss against the baseline weighs 1 + this (default %(default)s)")
    co.add_argument("--hurt", type=float, default=0.0,
                    help="a query is hurt when the run loses more than this (default %(default)s)")
    co.add_argument("--detect", type=float,
                    help="report the queries a paired t-test needs to detect this difference (topic set size)")
    co.add_argument("--power", type=float, default=0.8, help="power for --detect (default %(default)s)")
    co.add_argument("--resamples", type=int, default=10_000,
                    help="bootstrap and randomization resamples (default %(default)s; fewer is faster, coarser)")
    co.add_argument("--seed", type=int, default=0, help="seed of the resampling (default %(default)s)")
    co.add_argument("--wide", action="store_true", help="print every column of the table (csv and json always have them)")
    co.add_argument("--anova", action="store_true",
                    help="print the two-way ANOVA (system x query) of each metric instead of the pairs")
    co.add_argument("--engine", choices=ENGINES, default="polars")
    _convention_flags(co)
    _cost_col(co)
    co.add_argument("--format", choices=("table", "csv", "json"), default="table")
    co.add_argument("-o", "--output", help="write to this file instead of stdout")
    co.add_argument("--plot", help="write the figures (PNG) to this folder")
    co.add_argument("--report", help="write a self-contained HTML report (and .md/.tex tables beside it)")
    co.add_argument("--quiet", action="store_true", help="no warnings and no progress display on stderr")
    _input_flags(co, shared=True)
    co.set_defaults(func=_cmd_compare)


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
    ex.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    _input_flags(ex, shared=True)
    ex.set_defaults(func=_cmd_explain)


def _change_arguments(ch: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise change``."""
    ch.add_argument("run_a", help="the first run (e.g. the baseline)")
    ch.add_argument("run_b", help="the second run")
    ch.add_argument("--depth", type=int, default=10, help="compare the top N of each ranking (default %(default)s)")
    ch.add_argument("--p", type=float, default=0.9, help="RBO's persistence (default %(default)s)")
    ch.add_argument("--ties", choices=TIE_POLICIES, type=_convention("ties"), default=Conventions.ties,
                    help="order of equal scores (default %(default)s)")
    ch.add_argument("--by", action="append", help="segment column of the runs, constant within a query (repeatable)")
    ch.add_argument("--format", choices=("table", "csv", "json"), default="table")
    ch.add_argument("-o", "--output", help="write to this file instead of stdout")
    ch.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    ch.set_defaults(func=_cmd_change)


def _metrics_arguments(me: argparse.ArgumentParser) -> None:
    """The arguments of ``rankwise metrics``."""
    me.add_argument("name", nargs="?", help="a metric name, e.g. nDCG")
    me.set_defaults(func=_cmd_metrics)


def build_parser() -> argparse.ArgumentParser:
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
    sub.add_parser("change", help="how much two runs' rankings differ, per query (RBO, Kendall's tau, Jaccard, overlap)", parents=[debug], arguments=_change_arguments)
    sub.add_parser("metrics", help="list metrics, or explain one", parents=[debug], arguments=_metrics_arguments)
    return parser


class _Terminated(SystemExit):
    """Raised by the SIGTERM handler of :func:`main`: unwinds the stack, so that a file being
    written is removed (its temporary file) rather than left half-written."""


_Handler = Callable[[int, FrameType | None], object] | int | None

_SIGNALS_SEEN: list[int] = []
"""The signals (SIGINT, SIGTERM) received while :func:`main` runs. An engine may turn the
exception a handler raises into its own error (DuckDB: "Query interrupted"); the command still
exits as interrupted (130) or terminated (143)."""


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _SIGNALS_SEEN.append(signum)
    raise KeyboardInterrupt


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    _SIGNALS_SEEN.append(signum)
    raise _Terminated(128 + signum)


@contextlib.contextmanager
def _signals_unwind() -> Iterator[None]:
    """For the duration, SIGINT raises KeyboardInterrupt and SIGTERM :class:`_Terminated`,
    each noted in :data:`_SIGNALS_SEEN`; a signal the caller ignores stays ignored (the
    start-up's handler, :func:`rankwise._start.guard`, is replaced, and restored after). Main
    thread only (elsewhere Python lets no handler be set)."""
    wanted: list[tuple[signal.Signals, _Handler, tuple[_Handler, ...]]] = [
        (signal.SIGINT, _on_sigint, (signal.default_int_handler, _start.interrupted)),
        (signal.SIGTERM, _on_sigterm, (signal.SIG_DFL,)),
    ]
    previous: list[tuple[signal.Signals, _Handler]] = []
    _SIGNALS_SEEN.clear()
    try:
        for signum, ours, usual in wanted:
            if signal.getsignal(signum) in usual:
                previous.append((signum, signal.signal(signum, ours)))
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for signum, theirs in previous:
            signal.signal(signum, theirs)


def _interrupted(exc: BaseException) -> int | None:
    """The exit code when a signal stopped the command (130 SIGINT, 143 SIGTERM), else None."""
    if isinstance(exc, _Terminated) or signal.SIGTERM in _SIGNALS_SEEN:
        return 128 + signal.SIGTERM
    if isinstance(exc, KeyboardInterrupt) or signal.SIGINT in _SIGNALS_SEEN:
        return 128 + signal.SIGINT
    return None


def _one_line(text: str) -> str:
    """A message on one line: its lines joined."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def _first_line(text: str) -> str:
    """The first non-empty line of a foreign message (engines append hints and plans)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _os_message(exc: OSError) -> str:
    reason = os_reason(exc)
    names = [os.fspath(n) for n in (exc.filename, exc.filename2) if n is not None]
    return f"{' -> '.join(repr(n) for n in names)}: {reason}" if names else reason


def _warning_line(
    message: Warning | str, category: type[Warning], filename: str, lineno: int,
    file: TextIO | None = None, line: str | None = None,
) -> None:
    """Warnings (the engines' included) as one line each, not Python's two-line form."""
    text = _one_line(str(message))
    kind = "" if issubclass(category, RankwiseWarning) else f"{category.__name__}: "
    _say(f"rankwise: warning: {kind}{text}")


def _say(line: str) -> None:
    """One line on stderr (an id or a name in it shown :func:`~rankwise.outputs.files.visible`)."""
    progress.clear()  # the live status line, if one is shown, gives way
    with contextlib.suppress(Exception):
        print(visible(line), file=sys.stderr, flush=True)


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that Python's flush at exit, too, is quiet."""
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _error_line(exc: Exception) -> str:
    """The one line of an error: rankwise's own message, an OS fault with its file, or (the
    last resort) the exception's type and the first line of its message."""
    if isinstance(exc, RankwiseError):
        return f"rankwise: error: {_one_line(str(exc))}"
    if isinstance(exc, _StdoutError):
        return f"rankwise: error: cannot write to standard output: {_os_message(exc)}"
    if isinstance(exc, OSError):
        return f"rankwise: error: {_os_message(exc)}"
    detail = _first_line(str(exc))
    return f"rankwise: error: {type(exc).__name__}{': ' + detail if detail else ''} (run with --debug for the traceback)"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rankwise`` console script.

    Exit codes: 0 done; 2 an error (one line on stderr, ``rankwise: error: ...``; usage errors
    too); 130 interrupted (Ctrl-C, SIGINT); 143 terminated (SIGTERM). No fault prints a
    traceback unless ``--debug`` is given. Output files are written whole or not at all.
    """
    debug = False
    with _signals_unwind(), warnings.catch_warnings():
        warnings.showwarning = _warning_line
        try:
            args = build_parser().parse_args(argv)
            args.argv = list(sys.argv[1:] if argv is None else argv)  # the report's provenance names the command
            debug = bool(getattr(args, "debug", False))
            with hint_style("flags"):  # hints name the command line's flags
                code = _run_command(args)
            _stdout([])  # flushed here, so that a fault is reported here
            return code
        except BrokenPipeError:  # e.g. `rankwise metrics | head`: the reader left, stop quietly
            _silence_stdout()
            return 0
        except BaseException as exc:
            stopped = _interrupted(exc)
            if stopped is not None:
                if debug and not isinstance(exc, _Terminated):
                    raise
                _say("rankwise: terminated" if stopped == 128 + signal.SIGTERM else "rankwise: interrupted")
                return stopped
            if debug or not isinstance(exc, Exception):  # SystemExit and the like pass
                raise
            if isinstance(exc, _StdoutError):
                _silence_stdout()
            _say(_error_line(exc))
            return 2


