"""Socket.IO: same-origin only, and rooms joined only after a server-side token check.

Rooms of a game are made in referee.web.live: one per role and language, joined at `resync`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from flask import Flask
from socketio import packet as sio_packet  # type: ignore[import-untyped]

from referee.web.extensions import socketio


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
def on_time_ping(_data: Any = None) -> dict[str, float]:
    """Answer the clock-sync ping of conn.js with the server time in ms."""
    return {"server_time": time.time() * 1000.0}


class TextPacket(sio_packet.Packet):  # type: ignore[misc]
    """A Socket.IO packet that does not search outgoing data for bytes: nothing here sends any.

    python-socketio walks every value of every outgoing message looking for binary attachments;
    with views of thousands of values per screen that walk was about a fifth of a report's CPU.
    Incoming packets are decoded as usual (their header says whether attachments follow).
    """

    @classmethod
    def data_is_binary(cls, data: Any) -> bool:
        """Say no: views and acks are JSON (json.dumps would refuse bytes loudly)."""
        return False


def init_app(app: Flask) -> None:
    """Bind Socket.IO: threading mode, optional Redis queue, same-origin CORS, small buffers."""
    # Flask-SocketIO keeps the options of an earlier init_app, a message queue's client
    # manager among them; a second app (tests, the CLI) must not inherit another's queue.
    socketio.server_options.pop("client_manager", None)
    socketio.server_options.pop("message_queue", None)
    queue_url = app.config.get("REDIS_URL") or None
    queue: dict[str, Any] = {"message_queue": queue_url}
    if queue_url and queue_url.startswith(("redis://", "rediss://")):
        from referee.web.queue import RedisQueue

        def resend() -> None:
            from referee.web.live import resend_views

            resend_views(app)

        # Our manager: it resubscribes within seconds after a Redis restart, then resends views.
        queue = {"client_manager": RedisQueue(queue_url, on_resubscribed=resend)}
    socketio.init_app(
        app,
        async_mode="threading",
        **queue,
        cors_allowed_origins=same_origin_checker(app.config.get("SOCKETIO_EXTRA_ORIGINS", ())),
        max_http_buffer_size=int(app.config["SOCKETIO_MAX_HTTP_BUFFER_SIZE"]),
        manage_session=False,
        serializer=TextPacket,
    )
    # Behind a reverse proxy (deploy/nginx.conf): trust its X-Forwarded-For/-Proto/-Host only
    # when told how many proxies there are (PROXY_FIX = 1). Off by default: a phone could
    # otherwise forge its address (the token-failure limit counts per address) or the origin
    # check's host. Not X-Forwarded-Port: it would turn Host "club.example" into
    # "club.example:443", which no browser's Origin matches. Wrapped outside Socket.IO's
    # middleware so the websocket handshake sees it too.
    proxies = int(app.config.get("PROXY_FIX") or 0)
    if proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)  # type: ignore[method-assign]
