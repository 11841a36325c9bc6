"""A restart on a database already at the newest revision skips Alembic; anything else still migrates."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from referee.store import engine as store
from referee.store.engine import at_head, head_revisions, make_engine, migrate

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys
from referee.store import make_engine, migrate
migrate(make_engine(sys.argv[1]))
print("alembic" in sys.modules)
"""


def alembic_was_imported(url: str) -> bool:
    """Run migrate in a fresh interpreter; tell whether it imported Alembic."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, url], capture_output=True, text=True, cwd=ROOT, check=True, timeout=120
    )
    return out.stdout.strip().splitlines()[-1] == "True"


def test_a_new_database_is_migrated_by_alembic_and_a_restart_skips_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    assert alembic_was_imported(url)
    engine = make_engine(url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM games")).scalar_one() == 0
    assert at_head(engine)
    engine.dispose()
    assert not alembic_was_imported(url)


def test_an_older_stamp_is_not_taken_for_the_head(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'older'"))
    assert not at_head(engine)


def test_an_empty_database_is_not_at_head(tmp_path: Path) -> None:
    assert not at_head(make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}"))


def write_versions(folder: Path, scripts: dict[str, str]) -> None:
    (folder / "versions").mkdir(parents=True)
    for name, body in scripts.items():
        (folder / "versions" / f"{name}.py").write_text(body, encoding="utf-8")


def test_heads_follow_branches_and_merges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_versions(
        tmp_path,
        {
            "a": 'revision: str = "a"\ndown_revision: str | None = None\n',
            "b": 'revision = "b"\ndown_revision = "a"\n',
            "c": "revision = 'c'\ndown_revision = 'a'\n",
        },
    )
    monkeypatch.setattr(store, "MIGRATIONS_DIR", tmp_path)
    assert head_revisions() == {"b", "c"}
    (tmp_path / "versions" / "d.py").write_text(
        '"""Revision ID: d"""\nrevision = "d"\ndown_revision = ("b", "c")\n', encoding="utf-8"
    )
    assert head_revisions() == {"d"}


def test_a_script_it_cannot_read_means_let_alembic_decide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_versions(tmp_path, {"a": 'revision = "a"\ndown_revision = None\n', "odd": "REVISION = make_id()\n"})
    monkeypatch.setattr(store, "MIGRATIONS_DIR", tmp_path)
    assert head_revisions() == set()
