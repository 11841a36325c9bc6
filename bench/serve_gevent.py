"""`referee serve` in Flask-SocketIO's gevent mode, for bench/fanout.py's server-mode comparison.

    .venv/bin/python bench/serve_gevent.py serve --host 127.0.0.1 --port 5000 --server werkzeug

Monkey-patches the standard library first (gevent needs that before socket, threading,
sqlite3 or redis are imported), then forces async_mode="gevent" on the app's SocketIO and
runs the ordinary CLI. `--server werkzeug` goes through socketio.run, which in gevent mode
serves with gevent's WSGI server and gevent-websocket. Needs `pip install gevent gevent-websocket`.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee import cli  # noqa: E402
from referee.web.extensions import socketio  # noqa: E402

_init_app = socketio.init_app


def _init_app_gevent(app: Any, **kwargs: Any) -> None:
    kwargs["async_mode"] = "gevent"
    _init_app(app, **kwargs)


socketio.init_app = _init_app_gevent

if __name__ == "__main__":
    cli.main()
