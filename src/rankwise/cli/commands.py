"""The ``rankwise`` command line: what each command does.

``rankwise eval QRELS RUN [-m METRIC ...]`` prints the mean of each metric over queries (and
per query with ``--per-query``); ``rankwise compare``, ``explain`` and ``change`` compare runs,
explain a query's ranking and measure how two rankings differ; ``rankwise metrics [NAME]``
lists or explains metrics. The arguments are :mod:`rankwise.cli.arguments`'; standard output,
errors, signals and exit codes are :mod:`rankwise.cli.terminal`'s (:func:`main`).
"""

from __future__ import annotations

import argparse
import io
import shlex
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import polars as pl

from rankwise.cli.arguments import compare_options, parse, read_options
from rankwise.cli.terminal import Command, progress_line, run, to_stdout
from rankwise.cli.terminal import say as _say
from rankwise.conventions import CONVENTION_KEYWORDS, SIDE_INPUTS, Columns, ReadOptions
from rankwise.errors import InvalidParameterError, OutputError, RankwiseWarning, UnknownMetricError
from rankwise.inputs.run_names import check_run_names, unique_names
from rankwise.outputs import progress
from rankwise.outputs.files import (
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
# names): `rankwise eval` does not import what `compare` needs, nor the reverse.

DEFAULT_METRICS: tuple[str, ...] = ("official",)
"""Default set: trec_eval's official measures (what ``trec_eval qrels run`` prints)."""

COMPARE_METRICS: tuple[str, ...] = ("AP", "nDCG@10", "P@10", "RR")
"""compare's default metrics."""


def _table(per_query: pl.DataFrame, summary: pl.DataFrame, keys: list[str], per_query_rows: bool) -> str:
    """trec_eval's layout (metric, query, value), with segment values before the query (ids
    and names shown :func:`~rankwise.outputs.files.visible`: a control character is not obeyed)."""
    from rankwise.cli.trec_writer import format_value
    from rankwise.evaluation.evaluate import metric_of_column

    metrics = [c for c in per_query.columns if c not in keys]
    metrics += [c for c in summary.columns if c not in keys and c not in metrics]  # the set-level ones
    segments = keys[:-1]
    width = max(len(m) for m in metrics) + 2

    def where(row: dict[str, object], query: object) -> str:
        parts = [visible(f"{row[s]!s}") for s in segments] + [visible(f"{query!s}")]
        return "".join(f"{p:<12}" for p in parts)

    lines = []
    if per_query_rows:
        for row in per_query.iter_rows(named=True):
            for m in metrics:
                if m not in row:  # a set-level metric: no per-query value
                    continue
                lines.append(f"{m:<{width}}{where(row, row[keys[-1]])}{format_value(metric_of_column(m), row[m])}")
    for srow in summary.iter_rows(named=True):
        for m in metrics:
            if m not in srow:  # per-query-only measures (relstring)
                continue
            lines.append(f"{m:<{width}}{where(srow, 'all')}{format_value(metric_of_column(m), srow[m])}")
    return "\n".join(lines)




def _emit(args: argparse.Namespace, text: str) -> None:
    """The text, with one line end, to ``-o`` (whole or not at all) or to standard output."""
    text = text.rstrip("\n") + "\n"
    if args.output:
        with progress.task(f"writing {args.output}"):
            write_text_atomic(args.output, text)
    else:
        to_stdout([text])


def _counted(n: int, what: str) -> str:
    """``1 run``, ``2 runs``; ``199 queries``."""
    plural = what[:-1] + "ies" if what.endswith("y") else what + "s"
    return f"{n:,} {what if n == 1 else plural}"


def _wrote(args: argparse.Namespace, files: Sequence[str], holding: Sequence[str]) -> None:
    """The one line a command that wrote files ends with, on stderr (unless ``--quiet``):
    ``wrote report.html, report.md, report.tex (2 runs, 4 metrics)``; nothing when it wrote none."""
    if files and not args.quiet:
        _say(f"wrote {', '.join(files)} ({', '.join(holding)})")


def _output(args: argparse.Namespace) -> list[str]:
    """``-o``'s file, when given (what else was written goes to standard output)."""
    return [str(args.output)] if args.output else []


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
    from rankwise.names.parse import parse_metrics

    # the set-level metrics (one value per run) are in the summary only
    set_level = [m for m in parse_metrics(metrics) if m.spec.aggregate == "set"]
    if set_level and args.per_query and args.format in ("csv", "json", "parquet"):
        raise InvalidParameterError(
            f"{set_level[0].label} is one value per run (a set-level metric), not per query: "
            "drop -q to write it in the summary"
        )
    per_query_metrics: list[str | Metric] = (
        [m for m in parse_metrics(metrics) if m.spec.aggregate != "set"] if set_level else metrics
    )
    options = {
        "engine": args.engine, "run_format": args.run_format, "qrels_format": args.qrels_format,
        "by": segments or None,
        **({"sample": args.sample} if args.sample else {}),
        "duckdb_config": {"memory_limit": args.memory_limit} if args.memory_limit else None,
        **read_options(args),
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RankwiseWarning)
        sets = evaluate(args.qrels, args.run, set_level, per_query=False, **options) if set_level else None
        per_query = (
            evaluate(args.qrels, args.run, per_query_metrics, query_chunks=args.query_chunks, **options)
            if per_query_metrics or sets is None
            else evaluate(args.qrels, args.run, ["NumQ"], **options).drop("NumQ")  # the queries scored
        )
    # the set-level metrics' evaluation says what the first said: once
    for message in dict.fromkeys(str(w.message) for w in caught):
        if not args.quiet:
            _say(f"rankwise: warning: {message}")
    progress_line(args, f"{per_query.height} queries done in {time.perf_counter() - started:.2f} s")
    keys = [*segments, args.query_id]
    metric_columns = [c for c in per_query.columns if c not in keys]
    metric_columns += [c for c in (sets.columns if sets is not None else []) if c not in segments and c not in metric_columns]
    holding = [_counted(per_query[args.query_id].n_unique(), "query"), _counted(len(metric_columns), "metric")]
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
                per_query, query_id=args.query_id, runid=runid, per_query_lines=args.per_query, num_q="asked",
                run_values=sets,
            )
        )
        if args.output:
            with progress.task(f"writing {args.output}"):
                write_lines_atomic(args.output, lines)
        else:
            to_stdout(lines)
        _wrote(args, _output(args), holding)
        return 0
    summary = summarize(per_query.drop(args.query_id), by=segments or None) if per_query.width > len(keys) else None
    if sets is not None:
        summary = sets if summary is None else (
            summary.join(sets, on=segments, how="left", nulls_equal=True) if segments else pl.concat([summary, sets], how="horizontal")
        )
    assert summary is not None
    if args.format == "table":
        text = _table(per_query, summary, keys, args.per_query)
    else:
        out = per_query if args.per_query else summary
        if args.format == "parquet":
            # encoded in memory (no larger than the frame), then written by Python: an OS fault
            # is then an OSError (Polars would report it in its own error, or none at all)
            with progress.task(f"writing {args.output}"):
                buffer = io.BytesIO()
                out.write_parquet(buffer)
                write_bytes_atomic(args.output, buffer.getvalue())
            _wrote(args, _output(args), holding)
            return 0
        text = out.write_csv() if args.format == "csv" else out.write_json()
    _emit(args, text)
    _wrote(args, _output(args), holding)
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
                to_stdout(["\n"])
            _metric_page(spec)
        return 0
    width = max(len(s.name) for s in SPECS) + 2
    for spec in SPECS:
        listed = "; ".join(f"{tool}: {text}" for tool, text in _names_of(spec))
        print(f"{spec.name:<{width}}{spec.description}" + (f" [{listed}]" if listed else ""))
    return 0


def _metric_page(spec: MetricSpec) -> None:
    """``rankwise metrics NAME``: one metric, each of its facts once."""
    from rankwise.metrics.registry import inputs_read
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
    if spec.aggregate == "set":  # no per-query value: one over the run
        fields.append(("level", "one value per run, from every user's list (set-level): rankwise eval's summary, "
                                "evaluate(..., per_query=False)"))
    else:
        fields.append(("empty query", f"{empty}; summary over queries: {spec.aggregate}"))
    fields.append(("better", {"higher": "higher", "lower": "lower (a decrease is a win in compare)",
                              "neither": "neither (compare gives no win or loss)"}[spec.better]))
    fields.append(("citation", spec.citation))
    for name in inputs_read(spec):
        fields.append(("reads", SIDE_INPUTS[name].page))
    width = max(len(k) for k, _ in fields) + 2
    lines += [f"  {k + ':':<{width}}{v}" for k, v in fields]
    if spec.params:
        lines.append("  parameters:")
    for p in spec.params:
        choices = f" {p.expected()};" if p.choices else ""
        lines.append(f"    {p.name} (default {p.default!r}):{choices} {p.doc}")
    to_stdout([line + "\n" for line in lines])




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

    runs = _named_runs(args)
    if args.report and not Path(args.report).resolve().parent.is_dir():
        raise OutputError(f"cannot write the report {args.report!r}: the folder {str(Path(args.report).parent)!r} does not exist")
    if args.export and not args.report:
        raise InvalidParameterError("--export writes the paper-ready files of the report: give --report too")
    if args.report:
        from rankwise.reporting.report import check_report_paths, named_inputs

        check_report_paths(args.report, named_inputs(args.qrels, runs), [("-o", args.output)])
    if len(runs) < 2:
        raise InvalidParameterError(f"compare needs at least two runs, got one ({args.runs[0]!r}): rankwise compare QRELS RUN_A RUN_B ...")
    if args.anova:
        given = [flag for flag, value in (("--report", args.report), ("--export", args.export), ("--plot", args.plot), ("--test", args.tests),
                                          ("--pairs", args.pairs != "baseline"), ("--baseline", args.baseline),
                                          ("--detect", args.detect is not None)) if value]
        if given:
            raise InvalidParameterError(f"--anova prints the ANOVA table only: leave out {', '.join(given)} (or --anova)")
        table = anova(
            args.qrels, runs, args.metric or list(COMPARE_METRICS), by=args.by or None, engine=args.engine,
            **read_options(args),
        )
        _write(args, table)
        _wrote(args, _output(args), [_counted(len(runs), "run"), _counted(table["metric"].n_unique(), "metric")])
        return 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RankwiseWarning)
        drawn = bool(args.report or args.plot)
        if drawn:
            from rankwise.reporting.report import refuse_expected_ties

            refuse_expected_ties(args.metric or list(COMPARE_METRICS), compare_options(args))
        result = comparison(
            args.qrels, runs, args.metric or list(COMPARE_METRICS), also=_figure_metrics() if drawn else (),
            **compare_options(args),
        )
        written = _figures(args, result) if drawn else []
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
    else:
        _write(args, result.table)
    _wrote(args, written + _output(args), [_counted(len(result.runs), "run"), _counted(len(result.metrics), "metric")])
    return 0




def _figure_metrics() -> tuple[str, ...]:
    from rankwise.reporting.plots import FIGURE_METRICS

    return FIGURE_METRICS


def _figures(args: argparse.Namespace, result: Comparison) -> list[str]:
    """Draw the comparison's figures once; write them to ``--plot``'s folder and embed them in
    ``--report``'s page; what was written, as :func:`_wrote` names it (the report's three
    files, ``N figures in FOLDER/``)."""
    from rankwise.reporting import plots

    written: list[str] = []
    drawn = plots.figures(result)
    if args.plot:
        folder = Path(args.plot)
        if folder.exists() and not folder.is_dir():
            raise OutputError(f"cannot write the figures into {args.plot!r}: it is not a folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise output_error(args.plot, exc) from exc
        for f in progress.each("writing figures", drawn, total=len(drawn)):
            plots.save(f.figure, folder / f"{f.stem}.png", dpi=110)
    if args.report:
        from rankwise.reporting.report import report_paths, write_report

        write_report(result, args.report, drawn, command=shlex.join(["rankwise", *args.argv]), export=args.export)
        written += [str(args.report), *(str(p) for p in report_paths(args.report)[1:])]
        if args.export:
            written.append(f"table.tex and the figures in {str(args.export).rstrip('/')}/")
    if args.plot:
        written.append(f"{_counted(len(drawn), 'figure')} in {args.plot.rstrip('/')}/")
    plots.close(drawn)
    return written


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
    _wrote(args, _output(args), [_counted(per_query[query].n_unique(), "query")])
    return 0


def _cmd_explain(args: argparse.Namespace) -> int:
    from rankwise.evaluation.explain import explain

    table = explain(args.qrels, args.run, args.metric, args.query, **read_options(args))
    _write(args, table)
    _wrote(args, _output(args), [f"query {args.query}", _counted(table.height, "row")])
    return 0




def _cmd_why(args: argparse.Namespace) -> int:
    import json

    from rankwise.evaluation.why import why

    options = {key: value for key, value in read_options(args).items() if key not in CONVENTION_KEYWORDS}
    result = why(args.qrels, args.run, args.metric, libraries=args.library, top=args.top, engine=args.engine,
                 **cast(ReadOptions, options))
    libraries = [name for name in result.means["library"] if name != "trec_eval"]
    explained = {name: result.explain(args.query, name) for name in libraries} if args.query is not None else {}
    if args.format == "json":
        text = json.dumps({"metric": result.metric, "means": result.means.to_dicts(),
                           "queries": result.queries.to_dicts(),
                           **({"explained": {k: v.to_dicts() for k, v in explained.items()}} if explained else {})},
                          indent=1, default=str)
    else:
        parts = [str(result)]
        with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, tbl_hide_dataframe_shape=True,
                       tbl_hide_column_data_types=True):
            parts += [f"query {args.query} rank by rank, {name} beside trec_eval\n{table}" for name, table in explained.items()]
        text = "\n".join(visible(line) for line in "\n\n".join(parts).splitlines())
    _emit(args, text)
    _wrote(args, _output(args), [result.metric, _counted(len(libraries), "library")])
    return 0


def _cmd_clicks(args: argparse.Namespace) -> int:
    from rankwise.clicks.counterfactual import click_estimate
    from rankwise.inputs.read import to_frame

    propensities = None
    if args.propensities is not None:
        read = to_frame(args.propensities, "run", Columns())
        propensities = read.collect() if isinstance(read, pl.LazyFrame) else read
    result = click_estimate(
        args.log, args.run, args.metric, eta=args.eta, propensities=propensities, propensity=args.propensity_col,
        clip=args.clip, estimator=args.estimator, alpha=args.alpha, engine=args.engine,
        impression=args.impression_col, rank=args.rank_col, click=args.click_col, ties=args.ties,
        query_id=args.query_id_col, doc_id=args.doc_id_col,
    )
    if args.per_query:
        _write(args, result.per_query)
    elif args.format != "table":
        _write(args, result.summary)
    else:
        d = result.diagnostics.row(0, named=True)
        with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
            table = str(_clicks_table(result.summary, args.alpha))
        _emit(args, f"{table}\n{d['clicks']:,} clicks; effective sample size of their weights {d['ess']:.1f}; "
                    f"the largest weight {d['max_weight_share']:.1%} of the total; {d['clipped']:,} clipped")
    _wrote(args, _output(args), [_counted(result.per_query.height, "query"), _counted(len(args.metric), "metric")])
    return 0


def _cmd_slate(args: argparse.Namespace) -> int:
    from rankwise.clicks.slate import slate_estimate

    result = slate_estimate(
        args.log, args.run, estimator=args.estimator, pscore=args.pscore_col,
        evaluation_pscore=args.evaluation_pscore_col, alpha=args.alpha, resamples=args.resamples, seed=args.seed,
        engine=args.engine, impression=args.impression_col, rank=args.rank_col, click=args.click_col,
        ties=args.ties, query_id=args.query_id_col, doc_id=args.doc_id_col,
    )
    if args.per_slate:
        _write(args, result.per_slate)
    else:
        _write(args, _slate_table(result.summary, args.alpha) if args.format == "table" else result.summary)
    _wrote(args, _output(args), [_counted(result.per_slate.height, "slate")])
    return 0


def _cmd_propensities(args: argparse.Namespace) -> int:
    from rankwise.clicks.propensities import click_propensities

    theta = click_propensities(
        args.log, method=args.method, pivot=args.pivot, impression=args.impression_col, rank=args.rank_col,
        click=args.click_col, query_id=args.query_id_col, doc_id=args.doc_id_col,
    )
    _write(args, theta)
    _wrote(args, _output(args), [_counted(theta.height, "rank")])
    return 0


def _named_runs(args: argparse.Namespace) -> dict[str, str]:
    """The runs of ``compare``, ``interleave``, ``interleaving`` by name (``--name``, in order, or
    the file names)."""
    if args.name and len(args.name) != len(args.runs):
        raise InvalidParameterError(
            f"--name was given {len(args.name)} time(s) for {len(args.runs)} runs: name every run, in order, or none"
        )
    names = args.name or unique_names(args.runs)
    check_run_names(names)
    if len(set(names)) < len(names):
        raise InvalidParameterError(f"--name gives two runs the same name: {names}")
    return dict(zip(names, args.runs, strict=True))


def _cmd_interleave(args: argparse.Namespace) -> int:
    from rankwise.clicks.interleaving import interleave

    fmt = args.format or next((f for f in ("parquet", "csv", "json") if str(args.output or "").endswith(f".{f}")), "table")
    if fmt == "parquet" and not args.output:
        raise InvalidParameterError("--format parquet needs -o PATH")
    shown = interleave(_named_runs(args), method=args.method, k=args.k, seed=args.seed, tau=args.tau, ties=args.ties,
                       query_id=args.query_id, doc_id=args.doc_id, score=args.score)
    holding = [_counted(shown[args.query_id].n_unique(), "query"), _counted(shown.height, "row")]
    if fmt == "parquet":
        with progress.task(f"writing {args.output}"):
            buffer = io.BytesIO()
            shown.write_parquet(buffer)
            write_bytes_atomic(args.output, buffer.getvalue())
        _wrote(args, _output(args), holding)
        return 0
    args.format = fmt
    _write(args, shown)
    _wrote(args, _output(args), holding)
    return 0


def _cmd_interleaving(args: argparse.Namespace) -> int:
    from rankwise.clicks.credit import interleaving_credit

    runs = _named_runs(args) if args.runs else None
    result = interleaving_credit(
        args.log, method=args.method, runs=runs, impression=args.impression, rank=args.rank, team=args.team,
        click=args.click, no_clicks=args.no_clicks, tau=args.tau, resamples=args.resamples, seed=args.seed,
        level=args.level, engine=args.engine, ties=args.ties, query_id=args.query_id, doc_id=args.doc_id,
        score=args.score,
    )
    if args.per_impression:
        _write(args, result.impressions)
    elif args.format == "table":
        parts = [str(result)]
        if result.preferences.height > 2:
            with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=120, tbl_hide_dataframe_shape=True,
                           tbl_hide_column_data_types=True, float_precision=4):
                parts.append(f"pairwise preferences (Delta of the row's ranker over the column's)\n{result.preferences}")
        _emit(args, "\n\n".join(parts))
    else:
        _write(args, result.summary)
    _wrote(args, _output(args), [_counted(result.impressions.height, "impression"),
                                 _counted(result.preferences.height, "ranker")])
    return 0


def _plus_minus(estimate: float | None, low: float | None, high: float | None) -> str:
    """``0.2316 ± 0.0274``: an estimate and its normal (symmetric) interval's half width; the
    estimate alone without an interval (one query); ``undefined`` without an estimate."""
    if estimate is None:
        return "undefined"
    if low is None or high is None:
        return f"{estimate:.4f}"
    return f"{estimate:.4f} ± {(high - low) / 2:.4f}"


def _level(alpha: float) -> str:
    """The intervals' level, ``95%`` for ``alpha`` 0.05."""
    return f"{100 * (1 - alpha):.10g}%"


def _ppi_table(result: pl.DataFrame, alpha: float, tuned: bool, paired: bool) -> pl.DataFrame:
    """:func:`rankwise.ppi`'s frame as a terminal table: each estimate ± its interval's half
    width, the counts, λ and the effective n."""
    level = _level(alpha)
    rows = [{
        "metric" + (" (run − baseline)" if paired else ""): row["metric"],
        f"{'PPI++' if tuned else 'PPI'} ({level})": _plus_minus(row["estimate"], row["ci_low"], row["ci_high"]),
        f"humans only ({level})": _plus_minus(row["classical_estimate"], row["classical_low"], row["classical_high"]),
        "humans": row["n_human"], "model only": row["n_model"],
        "λ": "" if row["lam"] is None else f"{row['lam']:.3f}", "effective n": row["effective_n"],
    } for row in result.iter_rows(named=True)]
    return pl.DataFrame(rows)


def _clicks_table(summary: pl.DataFrame, alpha: float) -> pl.DataFrame:
    """:func:`rankwise.click_estimate`'s summary as a terminal table: the estimate and the
    self-normalised one, each ± its interval's half width, and the counts."""
    level = _level(alpha)
    return pl.DataFrame([{
        "metric": row["metric"],
        f"estimate ({level})": _plus_minus(row["estimate"], row["ci_low"], row["ci_high"]),
        f"snips ({level})": _plus_minus(row["snips"], row["snips_ci_low"], row["snips_ci_high"]),
        "queries": row["queries"], "impressions": row["impressions"],
    } for row in summary.iter_rows(named=True)])


def _slate_table(summary: pl.DataFrame, alpha: float) -> pl.DataFrame:
    """:func:`rankwise.slate_estimate`'s summary as a terminal table: the estimate ± its normal
    interval's half width, obp's bootstrap interval (percentiles: not symmetric) when asked for,
    and the counts."""
    level = _level(alpha)
    return pl.DataFrame([{
        "estimator": row["estimator"],
        f"estimate ({level})": _plus_minus(row["estimate"], row["ci_low"], row["ci_high"]),
        **({f"bootstrap ({level})": f"[{row['boot_ci_low']:.4f}, {row['boot_ci_high']:.4f}]"} if "boot_ci_low" in row else {}),
        "slates": row["slates"], "clicks": row["clicks"], "matched": row["matched"],
    } for row in summary.iter_rows(named=True)])


def _cmd_ppi(args: argparse.Namespace) -> int:
    from rankwise.inference.ppi import ppi

    result = ppi(
        args.human_qrels, args.model_qrels, args.run, args.metric, alpha=args.alpha, tuned=not args.classic,
        baseline=args.baseline, engine=args.engine, qrels_format=args.qrels_format, **read_options(args),
    )
    _write(args, _ppi_table(result, args.alpha, not args.classic, args.baseline is not None) if args.format == "table" else result)
    first = result.row(0, named=True)
    _wrote(args, _output(args), [_counted(result.height, "metric"),
                                 _counted(first["n_human"], "human-judged query"), f"{first['n_model']:,} model-only"])
    return 0


COMMANDS: dict[str, Command] = {
    "eval": _cmd_eval, "compare": _cmd_compare, "explain": _cmd_explain, "change": _cmd_change, "why": _cmd_why,
    "metrics": _cmd_metrics, "interleave": _cmd_interleave, "interleaving": _cmd_interleaving, "clicks": _cmd_clicks,
    "propensities": _cmd_propensities,
    "slate": _cmd_slate,
    "ppi": _cmd_ppi,
}
"""What each command does, by the name ``args.command`` gives."""


def _command(args: argparse.Namespace) -> Command:
    return COMMANDS[args.command]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rankwise`` console script: the command line ``argv`` (None: the
    process's) parsed (:func:`rankwise.cli.arguments.parse`) and its command run
    (:func:`rankwise.cli.terminal.run`).

    Exit codes: 0 done; 2 an error (one line on stderr, ``rankwise: error: ...``; usage errors
    too); 130 interrupted (Ctrl-C, SIGINT); 143 terminated (SIGTERM). No fault prints a
    traceback unless ``--debug`` is given. Output files are written whole or not at all.
    """
    return run(argv, parse, _command)
