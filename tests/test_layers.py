"""The import layers of docs/ARCHITECTURE.md hold: every module of src/rankwise imports only
modules of its own layer or below (lazy imports inside functions included), and no two modules
import each other, directly or around a circle. A new module must be given its layer here."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "rankwise"

LAYERS: dict[str, int] = {
    # 0 foundations: no rankwise imports but these
    "errors": 0, "spec": 0, "primitives": 0, "output": 0, "progress": 0, "_start": 0,
    # 1 definitions and inputs
    "conventions": 1, "registry": 1, "metric": 1, "io": 1, "validate": 1, "faults": 1, "statistics": 1,
    "trec_reader": 1, "forms": 1, "reading": 1,
    # 2 metric names and recipes
    "trec_names": 2, "ranx_names": 2, "names": 2, "recipes": 2, "naming": 2,
    # 3 engines
    "_polars": 3, "_polars.primitives": 3, "_polars.engine": 3,
    "_sql": 3, "_sql.macros": 3, "_sql.compiler": 3, "_sql.inline": 3, "_sql.generate": 3,
    "_duckdb": 3, "_duckdb.macros": 3, "_duckdb.engine": 3,
    # 4 what users call
    "evaluate": 4, "explain": 4, "_polars.expr": 4, "_polars.judged": 4, "_sql.expression": 4, "to_sql": 4, "spark": 4, "lists": 4, "events": 4,
    "namespace": 4, "comparison": 4, "trec_writer": 4, "plots": 4, "report": 4, "docs": 4, "change": 4,
    "summary": 4, "tables": 4, "provenance": 4, "report_page": 4, "report_details": 4, "report_assets": 4,
    # 5 the command line and the package
    "cli": 5, "": 5,
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(path.relative_to(SRC).with_suffix("").parts).removesuffix("__init__").rstrip(".")
        found[name] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "rankwise":
            base = node.module.removeprefix("rankwise").lstrip(".")
            subs = [f"{base}.{a.name}".lstrip(".") for a in node.names]
            out |= {s for s in subs if s in modules} or {base}
        elif isinstance(node, ast.Import):
            out |= {a.name.removeprefix("rankwise").lstrip(".") for a in node.names if a.name.split(".")[0] == "rankwise"}
    return out


def test_every_module_has_a_layer() -> None:
    assert set(_modules()) == set(LAYERS)


def test_no_module_imports_a_layer_above_it_or_a_circle() -> None:
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    upward = [
        f"{src or 'rankwise'} (layer {LAYERS[src]}) imports {dst or 'rankwise'} (layer {LAYERS[dst]})"
        for src, targets in graph.items() for dst in targets if LAYERS[dst] > LAYERS[src]
    ]
    assert not upward
    # a circle: a module that reaches itself
    for start in graph:
        seen, todo = set(), list(graph[start])
        while todo:
            name = todo.pop()
            assert name != start, f"import circle through {start}"
            if name not in seen:
                seen.add(name)
                todo += graph.get(name, set())
