"""Work that grows with a game, run where it holds no event loop: a thread, while the loop serves everyone else.

`referee serve` is one gevent event loop: a call that computes for a second (a void's
recomputation of a long game, the first load of a game after a restart, an export, the
computer's move) stops every screen of every game for that second. `run(fn, ...)` runs such a
call in one of a few real threads instead and waits for it; the waiting greenlet yields, so the
loop goes on serving.

Python's GIL still lets one thread run at a time, and a thread that wants it back waits for the
holder's switch interval: 5 ms by default, which a request pays at every system call it makes
while a thread computes (a bare request then took 32 ms instead of 2). `use` lowers the
interval to SWITCH_INTERVAL for the process (the same request: 5 ms).

What is run must be a pure computation on values nobody changes meanwhile (the rules core's
states and events, rows already read): no database, no lock of the loop's, and no app context
but its own copy (a page rendered from templates: `flask.copy_current_request_context`).
Outside `referee serve` (tests, the CLI, the threaded servers) `run` calls in place.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

THREADS = 2
"""Threads for such calls: one per core of a club laptop; more would only share the GIL."""
SWITCH_INTERVAL = 0.001
"""Seconds a thread holds the GIL while another wants it (Python's default: 0.005)."""


class Pool(Protocol):
    """What `run` needs of a thread pool: gevent's ThreadPool has it."""

    def apply(self, func: Callable[..., Any], args: tuple[Any, ...] = (), kwds: dict[str, Any] | None = None) -> Any:
        """Run `func(*args, **kwds)` in a thread of the pool; return its result (raise what it raised)."""


_pool: Pool | None = None


def use(pool: Pool | None) -> None:
    """Run `run`'s calls in `pool` from now on (None: in place again)."""
    global _pool
    _pool = pool
    if pool is not None:
        sys.setswitchinterval(SWITCH_INTERVAL)


def run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Return `fn(*args, **kwargs)`, computed in a thread when the event loop would otherwise wait for it.

    (Called from a thread of the pool itself, gevent's pool runs it in place.)
    """
    pool = _pool
    if pool is None:
        return fn(*args, **kwargs)
    result: T = pool.apply(fn, args, kwargs)
    return result
