"""Socket.IO: same-origin only, and rooms joined only after a server-side token check.

Rooms of a game are made in referee.web.live: one per role and language, joined at `resync`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from json.encoder import encode_basestring_ascii
from typing import Any
from urllib.parse import urlsplit

from engineio import json as engineio_json  # type: ignore[import-untyped]
from flask import Flask, Request, abort, request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from socketio import packet as sio_packet  # type: ignore[import-untyped]

from referee.push.changes import Encoded, compact
from referee.push.clock import resend_views
from referee.push.sockets import rate_limited
from referee.realtime import hooks_on
from referee.web.extensions import MALFORMED_EVENT, socketio
from referee.web.security import bounded_loads


def same_origin_checker(extra: Iterable[str] = ()) -> Callable[[str | None, dict[str, Any]], bool]:
    """Return a cors_allowed_origins callable: the Origin must be this server's own scheme://host.

    python-engineio accepts a callable `(origin, environ) -> bool`; unlike its default (None),
    this never trusts X-Forwarded-Host. Origins in `extra` are allowed too.
    """
    allowed_extra = frozenset(o.rstrip("/") for o in extra)

    def allowed(origin: str | None, environ: dict[str, Any]) -> bool:
        if not origin:
            return True  # not a browser: nothing cross-site to protect
        if origin in allowed_extra:
            return True
        host = environ.get("HTTP_HOST")
        if not host:
            return False
        parts = urlsplit(origin)
        return bool(parts.scheme == environ.get("wsgi.url_scheme", "http") and parts.netloc == host)

    return allowed


@socketio.on("time_ping")  # type: ignore[untyped-decorator]
def on_time_ping(_data: Any = None) -> dict[str, Any]:
    """Answer the clock-sync ping of conn.js with the server time in ms (rate limited like every event)."""
    too_fast = rate_limited(request.sid)  # type: ignore[attr-defined]
    if too_fast:
        return too_fast
    return {"server_time": time.time() * 1000.0}


# Event names a Socket.IO client may not emit: the server's own (a forged "disconnect" would make
# live.py forget the socket and its rate-limit bucket) and Flask-SocketIO's catch-all, which it
# would call with its arguments shifted.
RESERVED_EVENTS = frozenset(
    {"connect", "connect_error", "disconnect", "disconnecting", "newListener", "removeListener", "*"}
)


class BoundedJSON:
    """Engine.IO's JSON for Socket.IO packets, refusing deep nesting before parsing (a ValueError)."""

    @staticmethod
    def dumps(obj: Any, **kwargs: Any) -> str:
        """Encode like python-socketio does (compact), with one encoder made once (`compact`)."""
        if kwargs.get("separators") == (",", ":") and len(kwargs) == 1:
            return compact(obj)
        return str(engineio_json.dumps(obj, **kwargs))

    @staticmethod
    def loads(s: str | bytes, **kwargs: Any) -> Any:
        """Parse like python-socketio does, nesting at most security.MAX_JSON_DEPTH."""
        if kwargs or not isinstance(s, str):
            return bounded_loads(s, engineio_json.loads, **kwargs)
        return bounded_loads(s, _decode)


def _bounded_int(digits: str) -> int:
    """An integer of at most 100 digits, as Engine.IO's own `loads` allows: int() of a huge one takes quadratic time."""
    if len(digits) > 100:
        raise ValueError("Integer is too large")
    return int(digits)


# Engine.IO's `loads`, with its decoder made once: json.loads with a `parse_int` makes a
# JSONDecoder for every packet.
_decode = json.JSONDecoder(parse_int=_bounded_int).decode


class TextPacket(sio_packet.Packet):  # type: ignore[misc]
    """A Socket.IO packet that does not search outgoing data for bytes: nothing here sends any.

    python-socketio walks every value of every outgoing message looking for binary attachments;
    with views of thousands of values per screen that walk was about a fifth of a report's CPU.
    Incoming packets are decoded as usual (their header says whether attachments follow).
    """

    json = BoundedJSON
    packet_type: Any
    data: Any

    @classmethod
    def data_is_binary(cls, data: Any) -> bool:
        """Say no: views and acks are JSON (json.dumps would refuse bytes loudly)."""
        return False

    def encode(self) -> Any:
        """Encode the packet; a push's message whose JSON text is known (`Encoded`) is written as that text."""
        data = self.data
        if (
            self.packet_type == sio_packet.EVENT
            and self.id is None
            and self.namespace in (None, "/")
            and type(data) is list
            and len(data) == 2
            and type(data[0]) is str
            and type(data[1]) is Encoded
        ):
            # The event's name escaped as json.dumps escapes a text, by the C function it calls.
            return f"{sio_packet.EVENT}[{encode_basestring_ascii(data[0])},{data[1].text}]"
        return super().encode()

    def decode(self, encoded_packet: Any) -> int:
        """Decode an incoming packet; one that is not a well-formed event becomes a `malformed` event.

        python-socketio raises on packets it cannot decode and indexes event data blindly, so
        junk would end in a logged traceback and no answer. Here it turns into the event
        MALFORMED_EVENT (answered by referee.web.live) with the packet's ack id, when it has one.
        Binary attachments are refused: nothing here sends or expects bytes.
        """
        try:
            attachments = super().decode(encoded_packet)
            problem = self._problem(attachments)
        except Exception as exc:  # noqa: BLE001 - ValueError, RecursionError, TypeError: whatever junk raises
            problem = f"undecodable packet ({type(exc).__name__})"
        if problem is None:
            return int(attachments)
        kind = self.packet_type if isinstance(self.packet_type, int) else None
        if kind in (sio_packet.CONNECT, sio_packet.DISCONNECT):
            self.data = None  # no auth payload is used; the connect itself is still answered
        elif kind in (sio_packet.ACK, sio_packet.BINARY_ACK):
            self.packet_type, self.data = sio_packet.ACK, []  # no callback waits for a client's ack
        else:
            self.packet_type = sio_packet.EVENT
            self.data = [MALFORMED_EVENT, problem[:200]]
        return 0

    def _problem(self, attachments: int) -> str | None:
        if self.packet_type in (sio_packet.BINARY_EVENT, sio_packet.BINARY_ACK) or attachments:
            return "binary payloads are not accepted"
        if self.packet_type == sio_packet.CONNECT_ERROR:
            return "a client does not send connect errors"
        if self.packet_type == sio_packet.CONNECT:
            return None if self.data is None or isinstance(self.data, dict) else "connect data must be an object"
        if self.packet_type != sio_packet.EVENT:
            return None
        data = self.data
        if not isinstance(data, list) or not data:
            return "an event must be a list starting with its name"
        if not isinstance(data[0], str) or not 1 <= len(data[0]) <= 64:
            return "an event's name must be text"
        if data[0] in RESERVED_EVENTS:
            return f"a client may not send the event {data[0]!r}"
        if len(data) > 2:
            return "an event carries at most one payload"
        return None


SOCKETIO_PATH = "socket.io"


class SessionsOffTheSocket(SecureCookieSessionInterface):
    """Flask's cookie sessions, left closed for Socket.IO events.

    Flask-SocketIO runs each event in a request context made from its connection's environ,
    and Flask opens the session of every request context: a signed cookie checked and decoded
    per event. No event reads or writes the session (it holds the forms' CSRF token), and an
    event has no response to set a cookie on: an event's session is the null one.
    """

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        """Open the session of a page or a form; none for a Socket.IO event."""
        if request.path.startswith(f"/{SOCKETIO_PATH}/"):
            return None
        return super().open_session(app, request)


def _not_a_page() -> Any:
    """Answer 404: Socket.IO's path is the engine.io middleware's, never a page."""
    abort(404)


def init_app(app: Flask) -> None:
    """Bind Socket.IO: its async mode, optional Redis queue, same-origin CORS, small buffers.

    The mode is threading unless SOCKETIO_ASYNC_MODE says otherwise: `referee serve` sets "gevent"
    in a process referee/cli/serve_gevent.py has patched (the tests' in-process app stays threading).
    """
    # Flask-SocketIO keeps the options of an earlier init_app, a message queue's client
    # manager among them; a second app (tests, the CLI) must not inherit another's queue.
    socketio.server_options.pop("client_manager", None)
    socketio.server_options.pop("message_queue", None)
    queue_url = app.config.get("REDIS_URL") or None
    # No queue: every socket is this process's, in Socket.IO's own in-memory manager. A Redis
    # queue: python-socketio's own, or ours where it fits (referee.realtime.queue).
    queue: dict[str, Any] = {"message_queue": queue_url}
    if queue_url and queue_url.startswith(("redis://", "rediss://")) and hooks_on():
        from referee.realtime import queue as redis_queue

        def resend() -> None:
            resend_views(app)

        if redis_queue.fits():
            # Ours resubscribes within seconds after a Redis restart, then resends views.
            queue = {"client_manager": redis_queue.RedisQueue(queue_url, on_resubscribed=resend)}
    socketio.init_app(
        app,
        async_mode=app.config.get("SOCKETIO_ASYNC_MODE") or "threading",
        **queue,
        cors_allowed_origins=same_origin_checker(app.config.get("SOCKETIO_EXTRA_ORIGINS", ())),
        max_http_buffer_size=int(app.config["SOCKETIO_MAX_HTTP_BUFFER_SIZE"]),
        manage_session=False,
        serializer=TextPacket,
        # A socket's events run in the greenlet (or thread) that reads it, one after the other,
        # not each in one spawned for it: a report then costs no new greenlet with its own
        # stack (mapped, faulted in and unmapped again), and a flood from one socket waits for
        # its own handler instead of piling up handlers side by side. No handler waits for
        # anything its own socket would have to read (Socket.IO's `call`).
        async_handlers=False,
    )
    app.session_interface = SessionsOffTheSocket()
    # Each Socket.IO event runs in a request context made from its connection's environ. With no
    # rule for that path, making it raised a NotFound and kept it, traceback and frames: about 70
    # objects in reference cycles an event, which only the cycle collector frees, in pauses that
    # stopped every socket of the one event loop (bench/fanout.py's p99). The engine.io
    # middleware answers this path before Flask does, so the view is never reached.
    for websocket in (False, True):  # long polling, and the websocket a connection upgrades to
        app.add_url_rule(f"/{SOCKETIO_PATH}/", "socket_io", _not_a_page, strict_slashes=False, websocket=websocket)
