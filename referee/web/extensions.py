"""Flask extensions, created unbound here and bound to an app in create_app (init_app)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flask import Flask, current_app
from flask_babel import Babel  # type: ignore[import-untyped]
from flask_compress import Compress
from flask_socketio import SocketIO  # type: ignore[import-untyped]
from sqlalchemy import Engine

from referee.store import Store, make_engine, migrate


class Database:
    """The SQLAlchemy engine and the event Store of an app."""

    def init_app(self, app: Flask) -> None:
        """Create the engine from DATABASE_URL, migrate if AUTO_MIGRATE, and attach a Store."""
        engine = make_engine(app.config["DATABASE_URL"])
        if app.config.get("AUTO_MIGRATE", True):
            migrate(engine)
        app.extensions["referee.engine"] = engine
        app.extensions["referee.store"] = Store(engine, snapshot_every=int(app.config["SNAPSHOT_EVERY"]))

    @property
    def engine(self) -> Engine:
        """The current app's engine."""
        engine: Engine = current_app.extensions["referee.engine"]
        return engine

    @property
    def store(self) -> Store:
        """The current app's event store."""
        store: Store = current_app.extensions["referee.store"]
        return store


def engine_of(app: Flask) -> Engine:
    """Return an app's engine outside a request (CLI, tests)."""
    engine: Engine = app.extensions["referee.engine"]
    return engine


def store_of(app: Flask) -> Store:
    """Return an app's event store outside a request (CLI, tests)."""
    store: Store = app.extensions["referee.store"]
    return store


# The event a Socket.IO packet that is not a well-formed event becomes (realtime.TextPacket);
# referee.web.live answers it with a `malformed` refusal.
MALFORMED_EVENT = "malformed_packet"

log = logging.getLogger("referee.web.socketio")


class GuardedSocketIO(SocketIO):  # type: ignore[misc]
    """Flask-SocketIO whose Engine.IO server never logs client junk as ERROR (unknown hosts: security.HostGate).

    Flask-SocketIO makes a plain socketio.Server itself, so the guards wrap the handlers that
    server registered on its Engine.IO server, whatever the async mode.
    """

    def init_app(self, app: Flask | None, **kwargs: Any) -> None:
        """Bind as usual, then guard the Engine.IO message dispatch."""
        super().init_app(app, **kwargs)
        if app is None:
            return
        eio = self.server.eio
        eio.on("message", _message_guard(eio.handlers["message"]))


def _message_guard(dispatch: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(eio_sid: str, data: Any) -> Any:
        try:
            return dispatch(eio_sid, data)
        except Exception as exc:  # noqa: BLE001 - client junk that python-socketio refuses by raising
            log.warning("refused a Socket.IO packet: %s: %s", type(exc).__name__, str(exc)[:200])
            return None

    return guarded


db = Database()
compress = Compress()
babel = Babel()
socketio: Any = GuardedSocketIO()
