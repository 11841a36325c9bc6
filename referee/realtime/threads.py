"""Where blocking calls go under gevent: sqlite3's in a pool of real threads, long computations in referee.offload's."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar, cast

from gevent.threadpool import ThreadPool  # type: ignore[import-untyped]

from referee import offload
from referee.store import SQLITE_MAX_CONNECTIONS, run_sqlite_calls_in

try:
    import resource
except ImportError:  # Windows: no open-files limit to raise
    resource = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

T = TypeVar("T")


# The threads sqlite3's calls run in, once `prepare` has made them.
_pool: ThreadPool | None = None


def _in_pool(fn: Callable[..., T], *args: Any) -> T:
    """Run a blocking call in a real thread of `_pool`; the calling greenlet waits, the loop goes on.

    Its error comes back as a value and is raised here: gevent's pool would print the traceback
    of every error a call raises, and sqlite3 raises some that are answers (a fresh database has
    no `alembic_version` yet; a locked one is tried again).
    """
    assert _pool is not None
    ok, value = _pool.apply(_caught, (fn, args))
    if ok:
        return cast(T, value)
    raise value


def _caught(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[bool, Any]:
    try:
        return True, fn(*args)
    except BaseException as exc:  # noqa: BLE001 - raised again in the caller, as it is
        return False, exc


def prepare() -> None:
    """Before the app is made: sqlite3's calls and long computations go to real threads, file descriptors are raised.

    There is a thread per possible SQLite connection (store.SQLITE_MAX_CONNECTIONS): a
    connection holding the write lock then always finds a thread for its commit.
    """
    global _pool
    _pool = ThreadPool(SQLITE_MAX_CONNECTIONS)
    run_sqlite_calls_in(_in_pool)
    offload.use(ThreadPool(offload.THREADS))
    raise_open_files_limit()


def raise_open_files_limit(wanted: int = 65536) -> int:
    """Raise the soft limit of open files toward the hard one: each socket is a file (1024 is common)."""
    if resource is None:
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            log.warning("could not raise the open-files limit from %d", soft)
    return int(soft)


def pool_busy() -> bool:
    """Tell whether a call is running in the thread pool (a commit, a wait for SQLite's lock)."""
    return _pool is not None and len(_pool) > 0  # its unfinished tasks
