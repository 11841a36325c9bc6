"""Blocking calls in real threads while the greenlet waits and the loop goes on: referee.web.hop."""

from __future__ import annotations

import threading
import time

import gevent  # type: ignore[import-untyped]
import pytest

from referee.web.hop import Hop


def test_a_call_runs_in_another_thread_and_the_loop_goes_on_meanwhile() -> None:
    hop = Hop(4)
    ticks: list[float] = []

    def ticking() -> None:
        for _ in range(5):
            ticks.append(time.monotonic())
            gevent.sleep(0.01)

    def blocking(seconds: float) -> int:
        time.sleep(seconds)  # the real sleep: it blocks its thread
        return threading.get_ident()

    ticker = gevent.spawn(ticking)
    started = time.monotonic()
    ran_in = hop(blocking, 0.1)
    assert ran_in != threading.get_ident()
    assert time.monotonic() - started >= 0.1
    ticker.join()
    assert len(ticks) == 5 and ticks[-1] - started < 0.1  # the loop ran while the call blocked
    assert hop.under_way == 0 and hop.started == 1


def test_calls_at_once_each_get_a_thread_up_to_the_limit_and_their_own_answers() -> None:
    hop = Hop(3)
    gate = threading.Barrier(3, timeout=5)

    def meet(n: int) -> int:
        gate.wait()  # only returns once three calls run at once
        return n * 10

    calls = [gevent.spawn(hop, meet, n) for n in range(3)]
    gevent.joinall(calls, timeout=10, raise_error=True)
    assert [c.value for c in calls] == [0, 10, 20]
    assert hop.started == 3
    # More calls than threads wait for one, and none is lost.
    more = [gevent.spawn(hop, lambda n: n + 1, n) for n in range(10)]
    gevent.joinall(more, timeout=10, raise_error=True)
    assert [c.value for c in more] == list(range(1, 11))
    assert hop.started == 3 and hop.under_way == 0


def test_an_error_is_raised_in_the_caller_and_a_workers_own_call_runs_in_place() -> None:
    hop = Hop(2)

    def broken() -> None:
        raise ValueError("no such table")

    with pytest.raises(ValueError, match="no such table"):
        hop(broken)

    def nested() -> tuple[int, int]:
        return threading.get_ident(), hop(threading.get_ident)

    outer, inner = hop(nested)
    assert outer == inner != threading.get_ident()
    assert hop.under_way == 0


def test_a_caller_that_gave_up_leaves_the_answer_to_nobody() -> None:
    hop = Hop(1)
    release = threading.Event()
    caller = gevent.spawn(hop, release.wait, 5)
    gevent.sleep(0.05)
    caller.kill()  # a socket closed while its call was under way
    release.set()
    assert hop(lambda: "next") == "next"  # the thread is free again, and the answer went to its own caller
    assert hop.under_way == 0
