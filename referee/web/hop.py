"""Blocking calls (sqlite3's) run in real threads while the calling greenlet waits: one hop there and back.

gevent's ThreadPool does the same through a result object with a watcher of its own, a queue
guarded by Python-level locks and a greenlet-aware wait: some twenty Python functions on the
event loop's side for every call, and every report makes one (its flush). Here a call is a job
on a C queue; a real thread runs it and hands the answer back through the one async watcher the
loop owns, which switches to the greenlet that waits: two Python functions on the loop's side.

There is a thread for every call under way, up to `threads`: a call that holds SQLite's write
lock always finds a thread for its commit while others wait for that lock (referee.store's
SQLITE_MAX_CONNECTIONS). Threads are started as calls need them and kept.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

from gevent import get_hub, getcurrent  # type: ignore[import-untyped]
from gevent.hub import Waiter  # type: ignore[import-untyped]
from gevent.monkey import get_original  # type: ignore[import-untyped]

T = TypeVar("T")

# The standard library's own, whether or not gevent has patched it: a worker must block its
# thread, not a greenlet's, and the loop's thread must know itself from a worker.
_SimpleQueue = get_original("queue", "SimpleQueue")
_start_thread = get_original("_thread", "start_new_thread")
_thread_id = get_original("_thread", "get_ident")


class Hop:
    """Run blocking calls in real threads, the calling greenlet waiting; made on the event loop's thread."""

    def __init__(self, threads: int) -> None:
        """Start no thread yet; run at most `threads` calls at once."""
        self.threads = threads
        self.started = 0
        self.under_way = 0
        """Calls handed to a thread whose answer the loop has not delivered yet (loop's thread only)."""
        self._hub = get_hub()
        self._loop_thread = _thread_id()
        self._jobs = _SimpleQueue()
        self._answers: deque[tuple[Any, bool, Any]] = deque()
        self._watcher = self._hub.loop.async_()
        self._watcher.start(self._deliver)
        self._watcher.ref = False  # an idle pool keeps no loop running

    def __call__(self, fn: Callable[..., T], *args: Any) -> T:
        """Return fn(*args), run in a thread while the calling greenlet waits; raise what it raised."""
        if _thread_id() != self._loop_thread or getcurrent() is self._hub:
            # A worker's own call, or the loop's greenlet, which may not wait: run here.
            return fn(*args)
        waiter = Waiter(self._hub)
        self.under_way += 1
        if self.under_way > self.started and self.started < self.threads:
            self.started += 1
            _start_thread(self._work, ())
        self._watcher.ref = True  # while an answer is due, the loop must not think itself done
        self._jobs.put((waiter, fn, args))
        ok, value = waiter.get()
        if ok:
            return value  # type: ignore[no-any-return]
        raise value

    def _work(self) -> None:
        jobs, answers, watcher = self._jobs, self._answers, self._watcher
        while True:
            waiter, fn, args = jobs.get()
            try:
                answer = (waiter, True, fn(*args))
            except BaseException as exc:  # noqa: BLE001 - raised in the caller, as it is
                answer = (waiter, False, exc)
            del waiter, fn, args  # nothing of this call is kept by an idle thread
            answers.append(answer)
            del answer
            watcher.send()

    def _deliver(self) -> None:
        """On the loop: hand every answer in to the greenlet that waits for it."""
        answers = self._answers
        while answers:
            waiter, ok, value = answers.popleft()
            self.under_way -= 1
            waiter.switch((ok, value))
        if not self.under_way:
            self._watcher.ref = False
