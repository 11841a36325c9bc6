"""The servers `referee serve` can run: gevent (the default), gunicorn's threaded worker, Werkzeug's; and its socket."""

from __future__ import annotations

import errno
import os
import socket
import uuid
from typing import TYPE_CHECKING, Any

import click
from flask import Flask

if TYPE_CHECKING:
    from referee.realtime.server import Limits


LISTEN_BACKLOG = 256  # gevent's own default for a server it binds itself


def listen(host: str, port: int) -> socket.socket:
    """Return a socket bound to host:port and listening; a port taken or refused is one clear line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise click.ClickException(
            f"cannot listen on {host!r}: no such address here (--host 0.0.0.0 listens on every interface)"
        ) from None
    try:
        return socket.create_server((host, port), family=family, backlog=LISTEN_BACKLOG)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            why = f"port {port} is taken: is referee serving there already? Stop it, or use another --port"
        elif exc.errno == errno.EACCES:
            why = f"port {port} needs administrator rights here: use one above 1023, such as --port 5000"
        elif exc.errno == errno.EADDRNOTAVAIL:
            why = f"{host} is not an address of this machine (--host 0.0.0.0 listens on every interface)"
        else:
            why = exc.strerror or str(exc)
        raise click.ClickException(f"cannot listen on {host}:{port}: {why}") from None


def gunicorn_available() -> bool:
    if os.name != "posix":
        return False
    try:
        import gunicorn  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        return False
    return True


def run_gevent(app: Flask, listener: socket.socket, limits: Limits, *, access_log: bool = False) -> None:
    """Serve with gevent's WSGI server and gevent-websocket (referee.realtime.server)."""
    from referee.push.clock import start_round_clock
    from referee.realtime import server as gevent_server
    from referee.web.live import entries_running

    start_round_clock(app)
    gevent_server.serve(app, listener, limits, busy=entries_running, access_log=access_log)


def run_werkzeug(app: Flask, host: str, port: int) -> None:
    """Serve with Werkzeug's threaded server (one thread per connection; fine for a club)."""
    from referee.push.clock import start_round_clock
    from referee.web.extensions import socketio

    start_round_clock(app)
    socketio.run(app, host=host, port=port, allow_unsafe_werkzeug=True, debug=False, use_reloader=False)


def run_gunicorn(app: Flask, listener: socket.socket, threads: int, *, access_log: bool = False) -> None:
    """Serve with gunicorn's threaded worker, as Flask-SocketIO recommends with simple-websocket.

    One worker only: Socket.IO needs sticky sessions; scale out with more servers, a load
    balancer and REDIS_URL instead. Each open websocket holds one thread.
    """
    from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

    from referee.push.clock import start_round_clock
    from referee.web.extensions import engine_of, socketio

    bind = f"fd://{listener.fileno()}"  # the socket `serve` bound already

    def post_fork(_server: Any, _worker: Any) -> None:
        # Connections opened before the fork (migrations) must not be shared with the child.
        engine_of(app).dispose(close=False)
        manager = socketio.server.manager
        if hasattr(manager, "host_id"):
            # A message queue ignores messages from its own host id: the worker gets its own.
            manager.host_id = uuid.uuid4().hex
        # Here, in the worker: a thread started before the fork would tick in the master,
        # whose pushes reach no socket.
        start_round_clock(app)

    options: dict[str, Any] = {
        "bind": bind,
        "workers": 1,
        "worker_class": "gthread",
        "threads": threads,
        # gthread accepts no more than worker_connections (default 1000) at once; each open
        # websocket holds a thread, so --threads is the real limit and must not be capped.
        "worker_connections": max(1000, 2 * threads),
        "timeout": 60,
        "graceful_timeout": 5,
        "keepalive": 5,
        # gunicorn trusts X-Forwarded-Proto (and friends) from 127.0.0.1 by default: a local
        # client could claim https. Forwarded headers are the app's ProxyFix's, when PROXY_FIX says.
        "forwarded_allow_ips": "",
        "secure_scheme_headers": {},
        "accesslog": "-" if access_log else None,
        "errorlog": "-",
        "loglevel": "info",
        "post_fork": post_fork,
        # gunicorn >= 24 opens a control socket in ~/.gunicorn; a laptop app needs none.
        "control_socket_disable": True,
    }

    class Server(BaseApplication):  # type: ignore[misc]
        """gunicorn running the already-created app."""

        def load_config(self) -> None:
            """Hand our options to gunicorn."""
            for key, value in options.items():
                if key in self.cfg.settings:  # skip settings an older gunicorn lacks
                    self.cfg.set(key, value)

        def load(self) -> Flask:
            """Return the WSGI app."""
            return app

    Server().run()
