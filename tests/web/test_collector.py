"""The cycle collector stops every socket of the one event loop: events make no garbage for it,
what exists is out of its sight (referee.realtime.collector.collect_calmly), and it runs when nothing
waits (referee.realtime.collector.collect_when_quiet). An event's request
context is cheap: it matches a rule and opens no session."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import gevent  # type: ignore[import-untyped]
import pytest
from flask import Flask, request, session
from flask.sessions import NullSession
from gevent.threadpool import ThreadPool

from referee.realtime import collector, server, threads


@pytest.mark.parametrize("upgrade", [{}, {"HTTP_UPGRADE": "websocket", "HTTP_CONNECTION": "Upgrade"}])
def test_a_socket_events_request_context_matches_a_rule(app: Flask, upgrade: dict[str, str]) -> None:
    # Flask-SocketIO makes every event's request context from its connection's environ: a failed
    # match kept a NotFound with its traceback, about 70 objects in cycles an event.
    with app.test_request_context("/socket.io/?EIO=4&transport=websocket", environ_overrides=upgrade):
        assert request.routing_exception is None
    with app.test_request_context("/socket.io", environ_overrides=upgrade):
        assert request.routing_exception is None
    assert app.test_client().get("/socket.io/").status_code != 200  # still never a page


def test_a_socket_event_opens_no_session_and_a_page_still_does(app: Flask) -> None:
    # Flask opens the session of every request context, a Socket.IO event's too: a signed
    # cookie checked and decoded per event, for a session no event reads.
    with app.test_request_context("/"):
        session["csrf"] = "token"
        cookie = app.session_interface.get_signing_serializer(app).dumps(dict(session))  # type: ignore[attr-defined]
    sent = {"HTTP_COOKIE": f"{app.config['SESSION_COOKIE_NAME']}={cookie}"}
    with app.test_request_context("/socket.io/?EIO=4&transport=websocket", environ_overrides=sent):
        assert isinstance(session, NullSession) and "csrf" not in session
    with app.test_request_context("/new", environ_overrides=sent):
        assert session.get("csrf") == "token"


@pytest.fixture
def calm() -> Iterator[None]:
    """Restore the collector as the tests had it."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("calm")
def test_what_exists_is_frozen_and_young_objects_wait_for_larger_batches() -> None:
    collector.collect_calmly()
    assert gc.get_freeze_count() > 1000
    assert gc.get_threshold() == collector.BACKSTOP_THRESHOLDS
    assert collector.YOUNG > 700  # Python's default young threshold
    # Python's own collections are only a backstop for a loop that is never quiet.
    assert collector.BACKSTOP_THRESHOLDS[0] > collector.YOUNG


def test_a_collection_is_due_as_python_would_have_it_at_our_thresholds() -> None:
    assert collector.due_generation((collector.YOUNG - 1, collector.MIDDLE, 0)) is None
    assert collector.due_generation((collector.YOUNG, collector.MIDDLE - 1, 0)) == 0
    assert collector.due_generation((collector.YOUNG, collector.MIDDLE, 0)) == 1


def a_cycle() -> weakref.ref[object]:
    """Return a weak reference to a cycle that is garbage already, for the collector to find."""

    class Node:
        other: Node

    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture
def by_hand(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Only `collect_when_quiet` collects, and a single new object makes a collection due."""
    monkeypatch.setattr(collector, "YOUNG", 1)
    gc.disable()
    yield
    gc.enable()


@contextmanager
def collecting(
    busy: Callable[[], bool] = lambda: False,
    settle_every: float = 1e9,
    deserted: Callable[[], bool] = lambda: False,
    full_every: float = 1e9,
) -> Iterator[None]:
    """Run the quiet collector, looking every millisecond, while the block runs."""
    running = gevent.spawn(
        collector.collect_when_quiet, busy, 0.001, settle_every, deserted=deserted, full_every=full_every
    )
    try:
        yield
    finally:
        running.kill()


@pytest.mark.usefixtures("by_hand")
def test_a_collection_due_waits_until_no_entry_is_running() -> None:
    running = [True]
    gone = a_cycle()
    with collecting(lambda: running[0]):
        gevent.sleep(0.05)
        assert gone() is not None  # an entry is running: its push must not wait for a collection
        running[0] = False
        gevent.sleep(0.05)
        assert gone() is None


@pytest.mark.usefixtures("by_hand")
def test_a_collection_due_waits_while_a_commit_runs_in_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    pool = ThreadPool(1)
    monkeypatch.setattr(threads, "_pool", pool)
    committed = threading.Event()
    entry = gevent.spawn(pool.apply, committed.wait, (5,))  # a commit's fsync, as the entry that waits for it sees it
    gone = a_cycle()
    try:
        with collecting():
            gevent.sleep(0.05)
            assert gone() is not None
            committed.set()
            gevent.sleep(0.05)
            assert gone() is None
    finally:
        committed.set()
        entry.join(5)


@pytest.mark.usefixtures("by_hand")
def test_a_collection_waits_for_the_loop_to_be_idle() -> None:
    gone = a_cycle()

    def spin(until: float) -> None:
        # A callback always pending, as a loop serving sockets without a pause has.
        if gevent.get_hub().loop.now() < until:
            gevent.get_hub().loop.run_callback(spin, until)

    with collecting():
        gevent.get_hub().loop.run_callback(spin, gevent.get_hub().loop.now() + 0.1)
        gevent.sleep(0.05)
        assert gone() is not None
        gevent.sleep(0.15)
        assert gone() is None


def frozen_garbage() -> weakref.ref[object]:
    """Return a weak reference to a cycle frozen while alive, garbage since."""
    gc.freeze()
    gone = a_cycle()
    gc.freeze()  # out of sight of every ordinary collection
    return gone


@pytest.mark.usefixtures("calm")
def test_settling_frees_new_garbage_and_freezes_what_lives_only() -> None:
    gc.disable()
    try:
        gc.freeze()
        frozen = gc.get_freeze_count()
        gone = a_cycle()
        kept = [object() for _ in range(1000)], {"a": []}
        collector.settle()
        assert gone() is None
        assert gc.get_freeze_count() >= frozen + 2  # what lives is out of sight of the next one
        assert gc.get_count()[0] < 100
        del kept
    finally:
        gc.enable()


@pytest.mark.usefixtures("calm")
def test_what_died_frozen_is_freed_only_when_the_server_is_deserted() -> None:
    gone = frozen_garbage()
    nobody = [False]
    with collecting(settle_every=0.01, deserted=lambda: nobody[0]):
        gevent.sleep(0.1)
        assert gone() is not None  # settled many times: a full collection would pause every screen
        nobody[0] = True
        gevent.sleep(0.1)
        assert gone() is None


@pytest.mark.usefixtures("calm")
def test_a_server_never_deserted_still_gets_its_full_collection_at_full_every() -> None:
    gone = frozen_garbage()
    with collecting(settle_every=0.01, full_every=0.05):
        gevent.sleep(0.2)
        assert gone() is None


@pytest.mark.usefixtures("calm")
def test_the_full_collection_waits_for_a_quiet_moment() -> None:
    gone = frozen_garbage()
    running = [True]
    with collecting(lambda: running[0], settle_every=0.01, deserted=lambda: True):
        gevent.sleep(0.1)
        assert gone() is not None
        running[0] = False
        gevent.sleep(0.1)
        assert gone() is None


@pytest.mark.usefixtures("calm")
def test_a_cycle_frozen_while_alive_is_freed_by_the_next_full_collection() -> None:
    class Node:
        other: Node

    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    collector.collect_calmly()  # the cycle is alive: it is frozen with the rest
    del a, b
    gc.collect()
    assert gone() is not None  # frozen: out of the ordinary collections' sight
    collector.collect_calmly()
    assert gone() is None


def test_a_server_is_deserted_once_no_websocket_is_open_and_no_request_came_for_a_while() -> None:
    served = server.Server(("127.0.0.1", 0), lambda environ, start_response: [], server.Limits())
    assert not served.deserted()  # just started
    served.last_request -= collector.DESERTED_AFTER
    assert served.deserted()
    assert served.websockets.take("192.168.1.20")
    assert not served.deserted()  # a phone's socket is open
    served.websockets.give("192.168.1.20")
    assert served.deserted()


def test_the_gevent_server_keeps_no_spawning_stacks() -> None:
    # Every socket event spawns a greenlet, each with ten frames of where it was spawned from
    # unless gevent is told not to: garbage for the collector that nothing here reads.
    probe = "import referee.cli.serve_gevent, gevent; print(gevent.config.track_greenlet_tree)"
    env = {k: v for k, v in os.environ.items() if k != "GEVENT_TRACK_GREENLET_TREE"}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60, check=True)
    assert out.stdout.strip() == "False", out


def test_a_call_in_the_pool_raises_its_error_in_the_caller_and_prints_no_traceback(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    monkeypatch.setattr(threads, "_pool", ThreadPool(1))

    def fails() -> None:
        raise sqlite3.OperationalError("no such table: alembic_version")  # a fresh database's answer

    with pytest.raises(sqlite3.OperationalError, match="alembic_version"):
        threads._in_pool(fails)
    assert threads._in_pool(lambda n: n + 1, 1) == 2
    assert "Traceback" not in capfd.readouterr().err
