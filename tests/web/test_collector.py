"""The cycle collector stops every socket of the one event loop: events make no garbage for it,
and what exists is out of its sight (referee.web.server.collect_calmly). An event's request
context is cheap: it matches a rule and opens no session."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from flask import Flask, request, session
from flask.sessions import NullSession

from referee.web import server


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
    server.collect_calmly()
    assert gc.get_freeze_count() > 1000
    assert gc.get_threshold() == server.YOUNG_THRESHOLDS
    assert server.YOUNG_THRESHOLDS[0] > 700  # Python's default young threshold


@pytest.mark.usefixtures("calm")
def test_a_cycle_frozen_while_alive_is_freed_by_the_next_full_collection() -> None:
    class Node:
        other: Node

    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    server.collect_calmly()  # the cycle is alive: it is frozen with the rest
    del a, b
    gc.collect()
    assert gone() is not None  # frozen: out of the ordinary collections' sight
    server.collect_calmly()  # every COLLECT_EVERY seconds
    assert gone() is None
