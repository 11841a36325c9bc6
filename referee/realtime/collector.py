"""Python's cycle collector, run when the event loop is quiet: what exists frozen, young objects in batches."""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable

import gevent  # type: ignore[import-untyped]

try:
    import resource
except ImportError:  # Windows: no open-files limit to raise
    resource = None  # type: ignore[assignment]

from referee.realtime import threads

log = logging.getLogger(__name__)


# Python's cycle collector stops every socket of the one event loop while it runs, for as long
# as it takes to walk the objects it looks at. Left to itself it walked everything the process
# holds (modules, the app, every game, every socket) every few seconds of reports: 40-110 ms
# pauses, the p99 of bench/fanout.py's scenario B. So what exists is put out of its sight
# (`gc.freeze`) and young objects are collected in larger, rarer batches.
#
# Every collection waits for a quiet moment (`collect_when_quiet`). Left to Python, a young
# collection (10,000 objects: 4 to 25 ms under scenario B) ran at the allocation that filled
# the batch, which is always in the middle of a report: every screen waiting for that push
# waited for the collection too. Now a collection due is run when the event loop has nothing
# else to do and no entry is being run, so no push is under way (B's p99 in three alternating
# runs: 14.9, 20.5, 28.5 ms before; 13.4, 11.4, 15.0 after, with SQLite's connection used last).
# Python's own thresholds stay, BACKSTOP times as high, for a loop that is never quiet.
#
# Every SETTLE_EVERY seconds what appeared since the last freeze is collected and what survives
# is frozen too (`settle`): its cost is what the server made meanwhile, not all it holds. A
# cycle that dies once frozen is freed only by a full collection (everything unfrozen, collected
# and frozen again: `collect_calmly`), which walks all of it: 90-100 ms with the stalls bench's
# 5,000-event game loaded, a pause every screen would feel. So it waits until the server is
# deserted (no websocket, no request for DESERTED_AFTER seconds: the club has gone home), or at
# most FULL_EVERY seconds, at a quiet moment, for a server that is never left alone.
SETTLE_EVERY = 300.0
FULL_EVERY = 6 * 3600.0
DESERTED_AFTER = 60.0
YOUNG = 10_000  # net new objects that make a young collection due
MIDDLE = 100  # young collections that make the middle generation's due (Python: 10)
OLD = 100
BACKSTOP = 5
LOOK_EVERY = 0.1  # seconds between looks at the collector's counts, once half a batch is due
QUIET_AGAIN = 0.002  # seconds before looking for a quiet moment again, when an entry was running
BACKSTOP_THRESHOLDS = (YOUNG * BACKSTOP, MIDDLE, OLD)


def collect_calmly() -> None:
    """Collect everything now, then freeze what survives and make the automatic collections rarer."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*BACKSTOP_THRESHOLDS)


def settle() -> None:
    """Collect what appeared since the last freeze (frozen objects are not looked at), then freeze what survives."""
    gc.collect()
    gc.freeze()


def due_generation(counts: tuple[int, int, int] | None = None) -> int | None:
    """Return the generation to collect now, as Python would at YOUNG and MIDDLE (None: none is due)."""
    young, middle, _old = gc.get_count() if counts is None else counts
    if young < YOUNG:
        return None
    return 1 if middle >= MIDDLE else 0


def collect_when_quiet(
    busy: Callable[[], bool] = lambda: False,
    look_every: float = LOOK_EVERY,
    settle_every: float = SETTLE_EVERY,
    *,
    deserted: Callable[[], bool] = lambda: False,
    full_every: float = FULL_EVERY,
) -> None:
    """Run the collections due, each at a moment when the loop is idle and nothing is `busy`; never return."""
    hub = gevent.get_hub()
    idle = hub.loop.idle()
    settle_at = time.monotonic() + settle_every
    full_at = time.monotonic() + full_every
    while True:
        # Far from a batch, look ten times less often: an idle server wakes once a second.
        gevent.sleep(look_every if gc.get_count()[0] >= YOUNG // 2 else 10 * look_every)
        now = time.monotonic()
        settling = now >= settle_at
        if not settling and due_generation() is None:
            continue
        while True:
            hub.wait(idle)  # back here when no watcher is pending: every socket has been served
            if not (busy() or threads.pool_busy()):
                break
            gevent.sleep(QUIET_AGAIN)  # an entry waits for its commit, or for the database
        if settling:
            took = time.perf_counter()
            full = now >= full_at or deserted()
            if full:
                collect_calmly()
                full_at = time.monotonic() + full_every
            else:
                settle()
            settle_at = time.monotonic() + settle_every
            log.debug("%s in %.0f ms", "full collection" if full else "settled", (time.perf_counter() - took) * 1000)
            continue
        generation = due_generation()  # again: Python's backstop may have collected meanwhile
        if generation is not None:
            gc.collect(generation)
