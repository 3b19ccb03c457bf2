"""One home per metric family (src/rankwise/metrics/families/): every module of the folder is a
listed family, each family's recipes and names are for its own specs, what several families use
lives in the shared module, and the registry, the recipes, the name tables and the README's
metric table are the families, in their order."""

from __future__ import annotations

import importlib
from pathlib import Path

import rankwise as rw
from rankwise.metrics import families
from rankwise.metrics.families import FAMILIES, shared
from rankwise.metrics.recipes import RECIPES
from rankwise.metrics.registry import SPECS
from rankwise.names.parse import (
    IR_MEASURES_DEFAULTS,
    IR_MEASURES_FLAGS,
    IR_MEASURES_NAMES,
    NDEVAL_NAMES,
)
from rankwise.names.ranx import _SPECIAL, _WHOLE_LIST, RANX_NAMES
from rankwise.names.trec_eval import ALL_TREC, OFFICIAL
from rankwise.names.trec_eval import FAMILIES as TREC_NAMES

FOLDER = Path(families.__file__).parent
README = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"  # the README's reference moved
NOT_A_FAMILY = {"__init__", "shared"}


def test_every_module_of_the_folder_is_a_listed_family() -> None:
    modules = sorted(path.stem for path in FOLDER.glob("*.py") if path.stem not in NOT_A_FAMILY)
    declared = [importlib.import_module(f"rankwise.metrics.families.{name}").FAMILY for name in modules]
    assert len(FAMILIES) == len(modules)
    assert {id(f) for f in FAMILIES} == {id(f) for f in declared}
    assert len({f.name for f in FAMILIES}) == len(FAMILIES)


def test_each_family_has_one_recipe_per_spec() -> None:
    for family in FAMILIES:
        assert sorted(family.recipes()) == sorted(s.name for s in family.specs), family.name


def test_a_familys_names_in_other_schemes_name_its_own_specs() -> None:
    for family in FAMILIES:
        own = {s.name for s in family.specs}
        named = {
            *(t.spec for t in family.trec_eval.values()),
            *family.ranx,
            *(spec for spec, _ in family.ranx_special.values()),
            *family.ranx_whole_list.values(),
            *family.ir_measures,
            *family.ir_measures_defaults,
            *(spec for spec, _ in family.ir_measures_flags),
            *family.ir_measures_flags.values(),
            *family.ndeval,
        }
        assert named <= own, (family.name, named - own)


def test_what_several_families_declare_lives_in_the_shared_module() -> None:
    users: dict[int, set[str]] = {}
    for family in FAMILIES:
        for spec in family.specs:
            for p in spec.params:
                users.setdefault(id(p), set()).add(family.name)
    in_shared = {id(value) for value in vars(shared).values()}
    assert [key for key, names in users.items() if len(names) > 1 and key not in in_shared] == []


def test_the_registry_recipes_and_name_tables_are_the_families_in_order() -> None:
    assert [s.name for s in SPECS] == [s.name for f in FAMILIES for s in f.specs]
    assert list(RECIPES) == [s.name for s in SPECS]
    assert {name: t for f in FAMILIES for name, t in f.trec_eval.items()} == TREC_NAMES
    assert {k: v for f in FAMILIES for k, v in f.ranx.items()} == RANX_NAMES
    assert {k: v for f in FAMILIES for k, v in f.ranx_special.items()} == _SPECIAL
    assert {k: v for f in FAMILIES for k, v in f.ranx_whole_list.items()} == _WHOLE_LIST
    assert {k: v for f in FAMILIES for k, v in f.ir_measures.items()} == IR_MEASURES_NAMES
    assert {k: v for f in FAMILIES for k, v in f.ir_measures_defaults.items()} == IR_MEASURES_DEFAULTS
    assert {k: v for f in FAMILIES for k, v in f.ir_measures_flags.items()} == IR_MEASURES_FLAGS
    assert {k: v for f in FAMILIES for k, v in f.ndeval.items()} == NDEVAL_NAMES


def test_trec_eval_sets_follow_its_table_of_measures() -> None:
    """The places the families give their trec_eval names are trec_eval's order (measures.c, as
    ``trec_eval -m all_trec`` prints), and its default set is its first eleven."""
    assert len({t.place for t in TREC_NAMES.values()}) == len(TREC_NAMES)
    assert ALL_TREC == (
        "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
        "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
        "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map",
        "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj",
    )
    assert ALL_TREC[:11] == OFFICIAL


def test_the_readme_table_lists_the_metrics_family_by_family() -> None:
    """The README's metric table (generated: tests/cli/test_cli.py) has a row per metric, the
    families one after the other in the order of FAMILIES."""
    text = README.read_text(encoding="utf-8")
    table = text[text.index("<!-- metrics:start -->") : text.index("<!-- metrics:end -->")]
    rows = [line.split("**")[1] for line in table.splitlines() if line.startswith("| **")]
    assert rows == [s.name for f in FAMILIES for s in f.specs]


def test_each_metric_reads_the_side_inputs_its_page_says() -> None:
    """The side inputs a metric reads with some parameters (its page's "reads:" lines,
    :func:`rankwise.metrics.registry.inputs_read`, from its family's declaration) are those its
    trees read: with its defaults and with each choice of each parameter that has choices."""
    from rankwise.conventions import SIDE_INPUTS
    from rankwise.metrics.recipes import reading_side
    from rankwise.metrics.registry import inputs_read

    for spec in rw.SPECS:
        variants: list[dict[str, object]] = [{}]
        variants += [{p.name: c} for p in spec.params if p.kind is str and p.choices for c in p.choices]
        variants += [{p.name: not p.default} for p in spec.params if p.kind is bool]
        read: set[str] = set()
        for params in variants:
            try:
                metric = rw.metric.make_metric(spec, params, 10 if spec.cutoff != "none" else None)
            except rw.RankwiseError:  # a choice that needs another parameter
                continue
            read |= {keyword for keyword in SIDE_INPUTS if reading_side([metric], rw.Conventions(), keyword)}
        assert read == set(inputs_read(spec)), spec.name
