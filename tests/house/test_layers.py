"""The import layers of docs/ARCHITECTURE.md hold: every module of src/rankwise imports only
modules of its own layer or below (lazy imports inside functions included), and no two modules
import each other, directly or around a circle. A new module must be given its layer here."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "rankwise"

LAYERS: dict[str, int] = {
    # 0 foundations: the exceptions, the command's start, writing files and progress, the primitives' declarations
    "errors": 0, "_start": 0, "outputs": 0, "primitives": 0,
    # 1 the conventions: every choice of an evaluation, declared once
    "conventions": 1,
    # 2 what a metric is; reading and checking the inputs
    "metrics": 2, "inputs": 2,
    # 3 metric names in other tools' schemes
    "names": 3,
    # 4 the engines
    "_polars": 4, "_sql": 4, "_duckdb": 4,
    # 5 what users call to get numbers (evaluate, explain, lists, to_sql, Spark, the .ir namespace)
    "evaluation": 5,
    # 6 is the new ranking better?
    "comparison": 6,
    # 6 is the new ranking better, from users' clicks (interleaving, counterfactual estimates)
    "clicks": 6,
    # 6 what a metric is, inferred from a model's judgments checked on people's (prediction-powered inference)
    "inference": 6,
    # 7 the report
    "reporting": 7,
    # 8 the command line and the package
    "cli": 8, "": 8,
}
"""The layer of each folder of src/rankwise (and of the few modules at its root): a module imports
modules of its own folder, or of a folder of a lower layer."""

AT_THE_ROOT = {"", "errors", "_start", "conventions"}
"""The modules directly in src/rankwise: the package, its exceptions, the command's start and the
conventions every layer reads. Every other module lives in the folder of its concern."""


def _layer(module: str) -> int:
    return LAYERS[module.split(".")[0]]


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
    assert {name.split(".")[0] for name in _modules()} == set(LAYERS)


def test_every_module_lives_in_the_folder_of_its_concern() -> None:
    at_root = {path.stem for path in SRC.glob("*.py")}
    assert at_root == {"__init__"} | (AT_THE_ROOT - {""})
    folders = {path.name for path in SRC.iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert folders - {"sql"} == set(LAYERS) - AT_THE_ROOT
    for folder in folders - {"sql"}:
        assert (SRC / folder / "__init__.py").is_file(), f"{folder}/ is not a package"


def test_no_module_imports_a_layer_above_it_or_a_circle() -> None:
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    upward = [
        f"{src or 'rankwise'} (layer {_layer(src)}) imports {dst or 'rankwise'} (layer {_layer(dst)})"
        for src, targets in graph.items() for dst in targets if _layer(dst) > _layer(src)
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
