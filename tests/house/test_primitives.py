"""Every primitive, input and scalar operation declared in rankwise/primitives.py has exactly
one Polars function and one SQL macro under its binding name, and the two take the same
parameters: the row columns it reads, its inputs, and the fields they do not consume. A
declaration without an implementation fails here, naming it."""

from __future__ import annotations

import inspect
from dataclasses import fields

import pytest

from rankwise._polars import primitives as prim
from rankwise._sql.macros import macros
from rankwise.primitives import (
    Bound,
    IdealPrefix,
    Op,
    Primitive,
    RowValue,
    SetPrimitive,
    Step,
    declared,
)

DECLARED = [cls for base in (Primitive, Step, RowValue, IdealPrefix, Op) for cls in declared(base)]


def test_declarations_are_found() -> None:
    names = {cls.__name__ for cls in DECLARED}
    assert {"Relret", "ApSum", "NRel", "RelStep", "RelChar", "IdealDcgAt", "Div0", "Add"} <= names
    assert not {"Primitive", "QrelsPrimitive", "Step", "Op", "Binary"} & names
    assert len({cls.binding() for cls in DECLARED}) == len(DECLARED), "two classes share a binding name"


@pytest.mark.parametrize("cls", DECLARED, ids=lambda c: c.__name__)
def test_polars_function_and_sql_macro_agree_with_the_declaration(cls: type[Bound]) -> None:
    name = cls.binding()
    fn = getattr(prim, name, None)
    assert callable(fn), f"{cls.__name__} has no Polars function {name} in rankwise._polars.primitives"
    macro = macros().get(f"rw_{name}")
    assert macro is not None, f"{cls.__name__} has no SQL macro rw_{name} in sql/"
    polars_params = tuple(inspect.signature(fn).parameters)
    assert set(polars_params) == set(macro.params), (
        f"{cls.__name__}: Polars {name}{polars_params} and SQL rw_{name}{macro.params} differ"
    )
    field_names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    sample = _sample(cls)
    inputs = set(sample.inputs()) if sample is not None else set()
    declared_names = set(cls.reads) | inputs | field_names
    assert set(polars_params) <= declared_names, (
        f"{cls.__name__}: parameters {set(polars_params) - declared_names} are not declared"
    )
    missing = (set(cls.reads) | inputs) - set(polars_params)
    assert not missing, f"{cls.__name__} declares {missing} but its functions do not take them"
    # a field the functions do not take must reach them through an input of the same name,
    # or (a set-level primitive) choose the exposure table they aggregate, or choose the variant
    # of the row columns it reads (the category family's patience and alpha)
    chosen = {*getattr(cls, "table_fields", ()), *getattr(cls, "variant_fields", ())}
    for name in field_names - set(polars_params) - chosen:
        assert sample is not None and any(
            name in getattr(given, "__dataclass_fields__", {}) for given in sample.inputs().values()
        ), f"{cls.__name__}: field {name!r} reaches neither function"


def _sample(cls: type[Bound]) -> Bound | None:
    """An instance with placeholder field values (to list its inputs)."""
    from rankwise.primitives import Gain

    values: dict[str, object] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        values[f.name] = Gain() if f.name == "g" else (None if f.name == "k" else 1.0)
    return cls(**values)


@pytest.mark.parametrize("cls", [c for c in DECLARED if issubclass(c, SetPrimitive)], ids=lambda c: c.__name__)
def test_each_table_field_of_a_set_level_primitive_changes_its_table(cls: type[SetPrimitive]) -> None:
    """The fields a set-level primitive does not pass to its functions choose its exposure table:
    changing one changes the table's key (its cutoff and weight, or its catalog)."""
    values = {
        "k": 5, "weight": "geometric", "patience": 0.5, "within": "train", "base": 2.0, "head": 0.8, "tail": False,
        "pairs_of": "listed", "relevant": False, "combo": "LTwo",
    }
    other = {
        "k": 3, "weight": "count", "patience": 0.7, "within": "catalog", "base": 2.0, "head": 0.5, "tail": True,
        "pairs_of": "history", "relevant": True, "combo": "LTwo",
    }
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    sample = cls(**{n: values[n] for n in names})
    for name in cls.table_fields:
        changed = cls(**{n: (other if n == name else values)[n] for n in names})
        assert (sample.exposure(), sample.catalog(), sample.pairs(), sample.popularity_group()) != (
            changed.exposure(), changed.catalog(), changed.pairs(), changed.popularity_group()
        ), (cls.__name__, name)


@pytest.mark.parametrize("cls", [c for c in DECLARED if getattr(c, "variant_fields", ())], ids=lambda c: c.__name__)
def test_each_variant_field_changes_the_columns_it_reads(cls: type[Bound]) -> None:
    """The fields that choose the variant of the row columns a primitive reads: changing one
    changes the columns it reads (and its defaults read the row columns themselves)."""
    values: dict[str, object] = {"k": 3, "geometric": True, "patience": 0.85, "alpha": 0.01, "definition": "steck"}
    other: dict[str, object] = {"patience": 0.5, "alpha": 0.1, "definition": "librec"}
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    sample = cls(**{n: values[n] for n in names})
    assert all(name == column for name, column in sample.variant_columns().items()), cls.__name__
    for name in cls.variant_fields:  # type: ignore[attr-defined]
        changed = cls(**{n: (other if n == name else values)[n] for n in names})
        assert changed.variant_columns() != sample.variant_columns(), (cls.__name__, name)
