"""The database: an engine with SQLite's durability settings, migrations, read-only transactions, retries."""

from __future__ import annotations

import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    Connection,
    Engine,
    create_engine,
    event,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.pool import ConnectionPoolEntry

from referee.store.sqlite_threads import OffloadedConnection, Runner
from referee.store.types import StoreBusy

log = logging.getLogger(__name__)

T = TypeVar("T")

MIGRATIONS_DIR = Path(__file__).parent / "migrations"

# At most this many SQLite connections per engine (pool_size 10 plus overflow): the thread pool
# that runs their calls under gevent has as many threads, so a connection holding the write lock
# always finds a thread for its commit while the others wait for the lock in theirs.
SQLITE_MAX_CONNECTIONS = 40
# Where sqlite3's blocking calls run (None: in the caller's thread). `referee serve` under gevent
# sets a thread pool here before the app makes its engine (see referee.store.sqlite_threads).
_sqlite_runner: Runner | None = None


def run_sqlite_calls_in(runner: Runner | None) -> None:
    """Make engines created from now on run sqlite3's statements and commits through `runner`."""
    global _sqlite_runner
    _sqlite_runner = runner


def make_private_sqlite_file(path: Path) -> None:
    """Create the SQLite file only its owner may read (0600), and tighten an older install's files.

    The database holds both seas and every order in clear. SQLite gives its -wal and -shm files
    the database file's own mode, so a database made 0600 before the first connect keeps them
    0600 too, whatever the umask; ones an older install left 0644 are changed here.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    if os.name != "posix":
        return
    for each in (path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal"))):
        try:
            if each.stat().st_mode & 0o077:
                os.chmod(each, 0o600)
        except FileNotFoundError:
            continue
        except OSError as exc:  # not ours to change: say so rather than refuse to start
            log.warning("could not make %s private (0600): %s", each, exc)


def make_engine(url: str, **kwargs: Any) -> Engine:
    """Create an engine; on SQLite set the durability pragmas and IMMEDIATE write transactions."""
    sa_url = make_url(url)
    if sa_url.get_backend_name() != "sqlite":
        kwargs.setdefault("pool_pre_ping", True)
        return create_engine(sa_url, **kwargs)
    if sa_url.database and sa_url.database != ":memory:" and not sa_url.query.get("uri"):
        make_private_sqlite_file(Path(sa_url.database))
    connect_args = dict(kwargs.pop("connect_args", {}))
    connect_args.setdefault("timeout", 10.0)
    connect_args.setdefault("check_same_thread", False)
    kwargs.setdefault("pool_size", 10)
    kwargs.setdefault("max_overflow", max(0, SQLITE_MAX_CONNECTIONS - kwargs["pool_size"]))
    # The connection used last is used next: SQLite keeps a page cache per connection and
    # keeps it only while no other connection has written, so the one that wrote the last
    # report has its pages, where the pool's oldest would read them again.
    kwargs.setdefault("pool_use_lifo", True)
    engine = create_engine(sa_url, connect_args=connect_args, **kwargs)
    runner = _sqlite_runner
    if runner is not None:
        # Made now, after `referee serve` has patched threading: a lock greenlets wait at.
        gate = threading.RLock()

        @event.listens_for(engine, "do_connect")
        def _offloaded(dialect: Any, _record: ConnectionPoolEntry, cargs: Any, cparams: Any) -> Any:
            # Opening is quick (SQLite reads nothing until the first statement); the rest is offloaded.
            return OffloadedConnection(dialect.loaded_dbapi.connect(*cargs, **cparams), runner, gate)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        # pysqlite would BEGIN only at the first write, after our reads: a read-then-write
        # would then race other writers and silently lose updates. Turn its transaction
        # handling off; the "begin" listener below emits BEGIN itself.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # synchronous=FULL: in WAL mode NORMAL may lose the last commits on power loss
        # or an OS crash (the WAL is not fsynced at each commit). A result the referee
        # has seen acknowledged must survive SIGKILL and a pulled plug, so fsync each commit.
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # Writes take the write lock up front; read-only transactions (see
        # Store._read) stay DEFERRED so WAL readers never wait on a writer.
        if conn.get_execution_options().get("referee_readonly"):
            conn.exec_driver_sql("BEGIN")
        else:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def is_busy_error(exc: BaseException) -> bool:
    """Tell whether an error is SQLite's 'database is locked'/'busy' (worth a retry)."""
    if not isinstance(exc, OperationalError):
        return False
    message = str(exc.orig if exc.orig is not None else exc).lower()
    return "database is locked" in message or "database is busy" in message or "sqlite_busy" in message


def retry_busy(fn: Callable[[], T], *, attempts: int = 8, base_delay: float = 0.05) -> T:
    """Call `fn`, retrying on SQLite busy errors with jittered backoff; raise StoreBusy at the end.

    Every pooled connection in use for the pool's whole wait (an overloaded server) is StoreBusy
    at once: that wait was the retry.
    """
    for attempt in range(attempts):
        try:
            return fn()
        except PoolTimeout as exc:
            raise StoreBusy("every database connection stayed in use; try again") from exc
        except OperationalError as exc:
            if not is_busy_error(exc):
                raise
            log.warning("database busy (attempt %d/%d)", attempt + 1, attempts)
            time.sleep(base_delay * (2**attempt) * (0.5 + random.random()))
    raise StoreBusy("the database stayed busy; try again")


def migrate(engine: Engine) -> None:
    """Upgrade the database to the newest Alembic revision (works from an installed wheel)."""
    if at_head(engine):
        return  # the usual restart: importing Alembic would cost a third of a second for nothing
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))

    def run() -> None:
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # Several processes starting at once: one migrates, the others wait.
                conn.execute(text("SELECT pg_advisory_xact_lock(727001)"))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    retry_busy(run)


def head_revisions() -> set[str]:
    """Return the head revision ids of the migration scripts, read as text (no Alembic import).

    An empty set means "could not tell": the caller then lets Alembic decide.
    """
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in sorted((MIGRATIONS_DIR / "versions").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        revision = re.search(r"^revision\s*(?::[^=]*)?=\s*[\"']([^\"']+)[\"']", source, re.M)
        down = re.search(r"^down_revision\s*(?::[^=]*)?=(.*)$", source, re.M)
        if revision is None or down is None:
            return set()
        revisions.add(revision.group(1))
        parents.update(re.findall(r"[\"']([^\"']+)[\"']", down.group(1)))
    return revisions - parents


def at_head(engine: Engine) -> bool:
    """Tell whether the database is already at every head revision (False when unsure)."""
    heads = head_revisions()
    if not heads:
        return False
    try:
        with reading(engine) as conn:
            stamped = {str(row[0]) for row in conn.execute(text("SELECT version_num FROM alembic_version"))}
    except Exception:  # noqa: BLE001 - no table yet (a new database), or anything odd: Alembic decides
        return False
    return stamped == heads


@contextmanager
def reading(engine: Engine) -> Iterator[Connection]:
    """A read-only transaction: DEFERRED on SQLite, so it never takes the write lock.

    StoreBusy when no pooled connection came free within the pool's wait (an overloaded server).
    """
    try:
        connection = engine.connect()
    except PoolTimeout as exc:
        raise StoreBusy("every database connection stayed in use; try again") from exc
    with connection as conn:
        conn = conn.execution_options(referee_readonly=True)
        with conn.begin():
            yield conn
