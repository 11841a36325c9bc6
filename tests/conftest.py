"""Shared fixtures: the app (tmp SQLite file per test), its clients, and service reachability."""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner

from referee.web import create_app
from referee.web.extensions import engine_of

from .speed import QUICK

POSTGRES_URL = os.environ.get("REFEREE_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("REFEREE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def services_required() -> bool:
    """True when REFEREE_REQUIRE_SERVICES=1: an unreachable service fails instead of skipping."""
    return os.environ.get("REFEREE_REQUIRE_SERVICES") == "1"


def skip_or_fail(reason: str) -> None:
    """Skip with a visible reason, or fail if services are required."""
    if services_required():
        pytest.fail(f"{reason} (REFEREE_REQUIRE_SERVICES=1)")
    pytest.skip(reason)


def _port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def postgres_reachable() -> str | None:
    """Return None if PostgreSQL answers, else why not."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed"
    try:
        with psycopg.connect(POSTGRES_URL.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=3):
            return None
    except Exception as exc:  # noqa: BLE001 - any failure means: not usable here
        return f"PostgreSQL not reachable at {POSTGRES_URL}: {exc}"


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The PostgreSQL URL, or skip/fail if it is not reachable."""
    why = postgres_reachable()
    if why is not None:
        skip_or_fail(why)
    return POSTGRES_URL


@pytest.fixture
def postgres_schema(postgres_url: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """A fresh schema for one test: yields (url, engine kwargs putting it first on search_path)."""
    import psycopg

    schema = f"referee_test_{secrets.token_hex(6)}"
    plain = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield postgres_url, {"connect_args": {"options": f"-csearch_path={schema}"}}
    finally:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The Redis URL, or skip/fail if it is not reachable."""
    if not _port_open("127.0.0.1", 6379):
        skip_or_fail(f"Redis not reachable at {REDIS_URL}")
    return REDIS_URL


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    """A test app with its own instance folder and SQLite file."""
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test-" + "0" * 40,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'test.sqlite3'}",
        },
        instance_path=tmp_path / "instance",
    )
    yield app
    engine_of(app).dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of the app."""
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    """A CLI runner of the app's Flask commands."""
    return app.test_cli_runner()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """The real `referee serve` on a free port in a subprocess; yields (base URL, referee token)."""
    from tests.live_server import Server

    server = Server(tmp_path / "instance")
    server.start()
    try:
        yield server.base, server.link.split("token=", 1)[1]
    finally:
        server.stop()


# Fixtures of the machine's one PostgreSQL and one Redis: tests using them share a database and a
# queue channel, so under pytest-xdist (scripts/test.sh, --dist loadgroup) they run on one worker.
SHARED_SERVICES = frozenset({"postgres_url", "postgres_schema", "redis_url"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the shared services' tests on one worker; the quick loop (REFEREE_QUICK=1) leaves out the slow tests."""
    for item in items:
        if "services" in item.keywords or SHARED_SERVICES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("shared-services"))
    if not QUICK:
        return
    skip = pytest.mark.skip(reason="the quick loop (REFEREE_QUICK=1) leaves the slow tests to CI")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
