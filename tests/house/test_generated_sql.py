"""The parts of sql/ written from Python definitions (rw_evaluate from the recipes, the tie
orders from conventions.TIE_ORDERS) and sql/rankwise.sql (every family file in load order) are
up to date: `python -m rankwise._sql.generate`."""

from __future__ import annotations

import shutil
from pathlib import Path

from rankwise._sql.generate import sql_dir, stale
from rankwise._sql.macros import BUNDLE


def test_generated_sql_is_up_to_date() -> None:
    assert stale() == [], "run: python -m rankwise._sql.generate"


def test_the_one_file_follows_the_family_files(tmp_path: Path) -> None:
    """An edit of a family file, or a missing sql/rankwise.sql, makes the bundle stale; the
    generator rewrites it with the edit in its place."""
    sql = tmp_path / "sql"
    shutil.copytree(sql_dir(), sql)
    core = sql / "00_core.sql"
    core.write_text(core.read_text(encoding="utf-8") + "\n-- an edit\n", encoding="utf-8")
    assert stale(sql) == [f"{BUNDLE}: every macro"]
    assert stale(sql, write=True) == [f"{BUNDLE}: every macro"]
    assert stale(sql) == []
    text = (sql / BUNDLE).read_text(encoding="utf-8")
    assert text.index("-- an edit") < text.index("-- ==== 05_checks.sql ====")
    (sql / BUNDLE).unlink()
    assert stale(sql) == [f"{BUNDLE}: every macro"]
