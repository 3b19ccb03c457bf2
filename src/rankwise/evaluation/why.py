"""Why do my numbers differ? One metric under every library's conventions, side by side.

:func:`why` evaluates a metric as trec_eval computes it and as each library of
:data:`~rankwise.names.presets.PRESETS` that offers it computes it (``like=``), and says what
separates each from trec_eval: the parameters and conventions the library sets, and for the
queries whose values differ most, which of those changes alone moves the query's value. This is
what the articles comparing LightGBM's, scikit-learn's and trec_eval's nDCG did by hand.

>>> import polars as pl, rankwise as rw
>>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [2, 1, 0]})
>>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 1.0]})
>>> result = rw.why(qrels, run, "nDCG@10", libraries=["lightgbm", "sklearn"])
>>> result.means.select("library", "mean").rows()
[('trec_eval', 0.4298...), ('lightgbm', 0.8983...), ('sklearn', 0.4298...)]
>>> result.queries.filter(pl.col("library") == "lightgbm").select("query_id", "delta", "made_by").rows()
[('q2', 1.0, 'empty=1'), ('q1', -0.0630..., 'gain=exponential')]
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import polars as pl

from rankwise.conventions import (
    COLUMN_KEYWORDS,
    INPUT_KEYWORDS,
    Columns,
    Library,
    ReadOptions,
    Unpack,
    check_options,
    checked,
)
from rankwise.errors import InvalidParameterError, LabelError, RankwiseWarning, warn
from rankwise.evaluation.evaluate import ENGINES, Engine, coverage_seen, evaluate
from rankwise.inputs.columns import Reading
from rankwise.metrics.metric import Metric, make_metric
from rankwise.metrics.registry import get_spec
from rankwise.metrics.spec import ParamValue
from rankwise.names.parse import parse_metrics
from rankwise.names.presets import PRESETS, Preset, library_metric

BASELINE = "trec_eval"
"""The preset every other is compared with (rankwise's defaults)."""


@dataclass(frozen=True)
class Why:
    """The result of :func:`why`.

    - ``means``: one row per library (trec_eval first): ``library``, its ``name`` for the metric,
      the explicit rankwise ``metric`` string, its ``conventions``, ``queries`` (how many it
      scores), ``mean`` (its mean over those: the library's number), ``delta`` (minus trec_eval's),
      ``differ`` (queries whose value differs from trec_eval's) and ``changes`` (what the library
      sets that trec_eval does not).
    - ``queries``: per library the ``top`` queries whose values differ most from trec_eval's:
      ``library``, the query id, ``trec_eval``, ``value``, ``delta`` and ``made_by``: the changes
      that alone move the query's value (``'together'`` when no single one does).
    """

    metric: str
    means: pl.DataFrame
    queries: pl.DataFrame
    inputs: tuple[Any, Any, Mapping[str, Any]] = field(default=(None, None, {}), repr=False, compare=False)
    """The judgments, the run (as read) and the column options, for :meth:`explain`."""

    def explain(self, query: object, library: Library) -> pl.DataFrame:
        """The rank-by-rank tables (:func:`rankwise.explain`) of ``query`` under rankwise's
        defaults (trec_eval's conventions) and ``library``'s, one above the other (a first column ``library``): where a
        difference comes from, document by document."""
        from rankwise.evaluation.explain import explain

        qrels, run, options = self.inputs
        tables = []
        for name in (BASELINE, library):
            like = None if name == BASELINE else name  # the metric as written: rankwise's defaults
            table = explain(qrels, run, self.metric, query, **cast(ReadOptions, {**options, "like": like}))
            tables.append(table.select(pl.lit(name).alias("library"), pl.all()))
        return pl.concat(tables, how="diagonal_relaxed")

    def __str__(self) -> str:
        with pl.Config(tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True, fmt_str_lengths=60,
                       tbl_rows=-1, tbl_width_chars=160):
            means = self.means.select("library", "name", "queries", "mean", "delta", "differ", "changes")
            return (
                f"{self.metric} under each library's conventions (delta: minus trec_eval's mean)\n{means}\n\n"
                f"the queries that differ most, and the change that makes each difference\n{self.queries}"
            )


def _changes(preset: Preset, metric: Metric) -> list[tuple[str, str, ParamValue]]:
    """What ``preset`` sets for ``metric`` that the metric as written does not: ('param' or
    'convention', name, value) each; a check on the labels (``labels``) changes no value and is
    none."""
    explicit = dict(metric.params)
    library = library_metric(preset, metric)
    swapped = library.spec is not metric.spec
    out: list[tuple[str, str, ParamValue]] = [("metric", "metric", library.spec.name)] if swapped else []
    checks = {p.name for p in library.spec.params if p.check}  # change no value (labels)
    written = metric.resolve()
    out += [
        # a parameter named as one of the preset's conventions (torchmetrics' nDCG ties='average'
        # beside its ties='input') is shown as the metric's
        ("metric's" if key in preset.conventions else "param", key, value) for key, value in library.params
        if key not in explicit and key not in checks and metric.spec.param(key) is not None
        and value != written.get(key)
    ]
    out += [("convention", key, value) for key, value in preset.conventions.items()]
    return out


def _show(change: tuple[str, str, ParamValue]) -> str:
    """A change as the tables show it; a metric's parameter named as a convention is, e.g.
    torchmetrics' nDCG(ties='average') beside its convention ties='input', says whose it is."""
    kind, name, value = change
    return f"metric's {name}={value}" if kind == "metric's" else f"{name}={value}"


def _single(base: Metric, change: tuple[str, str, ParamValue], label: str) -> Metric:
    """``base`` with one change of a library's metric: another metric (its parameters that
    ``base`` sets kept) or one parameter."""
    kind, name, value = change
    if kind == "metric":
        spec = get_spec(str(value))
        kept = {k: v for k, v in base.params if spec.param(k) is not None}
        return make_metric(spec, kept, base.cutoff, label)
    return _labelled(base, {name: value}, label)


@checked
def why(
    qrels: Any,
    run: Any,
    metric: str | Metric,
    *,
    libraries: Iterable[Library] | None = None,
    top: int = 5,
    engine: Engine = "polars",
    **options: Unpack[ReadOptions],
) -> Why:
    """``metric`` under trec_eval's conventions and each library's (those of ``libraries``, by
    default every preset that offers it), side by side, with what separates each from trec_eval
    (see the module docstring). A library whose preset refuses the judgments' labels (its
    metric's ``labels``: LightGBM's ndcg on a grade above 30, XGBoost's map on a graded one, ...)
    is left out with a warning saying why, as the library would refuse to give its number.
    ``options``: the column names and inputs' own names of :func:`rankwise.evaluate` (its
    conventions are the presets' here, so none is taken)."""
    check_options("why", options, (*COLUMN_KEYWORDS, *INPUT_KEYWORDS))
    if engine not in ENGINES:
        raise InvalidParameterError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise InvalidParameterError(f"top must be a positive integer, got {top!r}")
    found = parse_metrics([metric])
    if len(found) != 1:
        raise InvalidParameterError(f"why takes one metric; {metric!r} names {len(found)}")
    (base,) = found
    names = [name for name in PRESETS if name != BASELINE] if libraries is None else list(libraries)
    for name in names:
        if name not in PRESETS:
            raise InvalidParameterError(f"libraries: {name!r} is not one of {sorted(PRESETS)}")
    chosen = [PRESETS[name] for name in names if base.spec.name in PRESETS[name].metrics and name != BASELINE]
    if libraries is not None and len(chosen) < len([n for n in names if n != BASELINE]):
        for name in names:
            PRESETS[name].entry(base)  # raises: the library does not offer it
    columns = Columns.from_options(options)
    reading = Reading.from_options(options)
    qrels = reading.prepared(qrels, "qrels", columns)
    run = reading.prepared(run, "run", columns)
    key = columns.query_id

    # one evaluation per set of conventions: trec_eval's with every single parameter change,
    # each library's full, and each library's conventions one at a time
    plans: dict[tuple[tuple[str, Any], ...], list[Metric]] = {(): [_labelled(base, {}, BASELINE)]}
    for preset in chosen:
        changes = _changes(preset, base)
        full = dict(preset.conventions)
        plans.setdefault(tuple(sorted(full.items())), []).append(library_metric(preset, base, source=preset.name))
        for change in changes:
            kind, name, value = change
            if kind != "convention":
                plans[()].append(_single(base, change, f"{preset.name}|{_show(change)}"))
            else:
                plans.setdefault(((name, value),), []).append(_labelled(base, {}, f"{preset.name}|{_show(change)}"))
    values: dict[str, pl.DataFrame] = {}
    refused: dict[str, LabelError] = {}
    for conventions, metrics in plans.items():
        unique = {m.label: m for m in metrics}

        def run_plan(chosen_metrics: list[Metric], conventions: tuple[tuple[str, Any], ...] = conventions) -> pl.DataFrame:
            with warnings.catch_warnings(), coverage_seen():
                warnings.simplefilter("ignore", RankwiseWarning)
                return evaluate(
                    qrels, run, chosen_metrics, engine=engine,
                    **cast(ReadOptions, {**options, **dict(conventions)}),
                )

        try:
            frame = run_plan(list(unique.values()))
        except LabelError:
            # a library that refuses these labels (its metric's labels=) is left out, as it
            # would refuse to compute its number; the others are evaluated without it
            kept = []
            for label, m in unique.items():
                try:
                    run_plan([m])
                except LabelError as exc:
                    refused[label] = exc
                else:
                    kept.append(m)
            unique = {m.label: m for m in kept}
            if not kept:
                continue
            frame = run_plan(kept)
        for label in unique:
            values[label] = frame.select(key, pl.col(label).alias("value"))
    for name, refusal in refused.items():
        library = PRESETS[name].library
        words = str(refusal).split(": ", 1)[-1]
        warn(f"{library} (like={name!r}) is left out: it refuses these labels ({words})")
    chosen = [preset for preset in chosen if preset.name not in refused]
    result = _tables(base, chosen, values, key, top)
    return Why(result.metric, result.means, result.queries, (qrels, run, dict(options)))


def _labelled(base: Metric, params: Mapping[str, ParamValue], label: str) -> Metric:
    return make_metric(base.spec, {**params, **dict(base.params)}, base.cutoff, label)


def _tables(base: Metric, chosen: list[Preset], values: dict[str, pl.DataFrame], key: str, top: int) -> Why:
    reference = values[BASELINE].rename({"value": "trec_eval"})
    rows: list[dict[str, Any]] = []
    queries: list[pl.DataFrame] = []
    trec_mean = reference["trec_eval"].mean()
    for preset in [None, *chosen]:
        name = BASELINE if preset is None else preset.name
        mine = values[name]
        explicit = base if preset is None else _explicit(preset, base)
        changes = [] if preset is None else _changes(preset, base)
        paired = reference.join(mine, on=key, how="full", coalesce=True)
        differ = paired.filter(_differs("trec_eval", "value"))
        mean = mine["value"].mean()
        rows.append({
            "library": name,
            "name": PRESETS[BASELINE].entry(base).name if preset is None and base.spec.trec_eval else
            (base.spec.name if preset is None else preset.entry(base).name),
            "metric": repr(make_metric(explicit.spec, dict(explicit.params), explicit.cutoff, None)),
            "conventions": ", ".join(f"{k}={v!r}" for k, v in ({} if preset is None else preset.conventions).items()),
            "queries": mine["value"].count(),
            "mean": mean,
            "delta": None if mean is None or trec_mean is None else cast(float, mean) - cast(float, trec_mean),
            "differ": differ.height,
            "changes": ", ".join(_show(c) for c in changes),
        })
        if preset is None or differ.height == 0:
            continue
        made_by = [
            values[f"{preset.name}|{_show(c)}"].select(key, pl.col("value").alias(_show(c))) for c in changes
        ]
        worst = differ.with_columns(delta=pl.col("value") - pl.col("trec_eval")).sort(
            pl.col("delta").abs().fill_null(float("inf")), key, descending=[True, False], nulls_last=True
        ).head(top)
        for single in made_by:
            worst = worst.join(single, on=key, how="left")
        shown = [_show(c) for c in changes]
        worst = worst.with_columns(
            made_by=pl.concat_list(
                [pl.when(_differs("trec_eval", s)).then(pl.lit(s)).otherwise(pl.lit(None)) for s in shown]
                if shown else [pl.lit(None, pl.String)]
            ).list.drop_nulls().list.join(", ")
        ).with_columns(made_by=pl.when(pl.col("made_by") == "").then(pl.lit("together")).otherwise("made_by"))
        queries.append(
            worst.select(pl.lit(name).alias("library"), pl.col(key).cast(pl.String), "trec_eval", "value", "delta", "made_by")
        )
    empty = pl.DataFrame(schema={"library": pl.String, key: pl.String, "trec_eval": pl.Float64, "value": pl.Float64,
                                 "delta": pl.Float64, "made_by": pl.String})
    return Why(
        base.label, pl.DataFrame(rows), pl.concat(queries) if queries else empty,
    )


def _explicit(preset: Preset, base: Metric) -> Metric:
    return library_metric(preset, base)


def _differs(a: str, b: str) -> pl.Expr:
    """Two per-query values differ: by more than rounding, or one is NULL (a query one leaves out)."""
    return (
        ((pl.col(a) - pl.col(b)).abs() > 1e-12)
        | (pl.col(a).is_null() != pl.col(b).is_null())
    ).fill_null(False)

