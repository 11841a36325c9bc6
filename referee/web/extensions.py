"""Flask extensions, created unbound here and bound to an app in create_app (init_app)."""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app
from flask_babel import Babel  # type: ignore[import-untyped]
from flask_compress import Compress  # type: ignore[import-untyped]
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


db = Database()
compress = Compress()
babel = Babel()
socketio: Any = SocketIO()
