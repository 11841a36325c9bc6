"""The baseline for bench/fanout.py: a bare python-socketio server that only broadcasts.

    .venv/bin/python bench/bare_server.py --port 5001 [--threads 1300] [--mode threading|gevent]

Served the way `referee serve` serves ours: threading mode on gunicorn's threaded worker (one
worker, `--threads` threads), or gevent mode on gevent's WSGI server with gevent-websocket (as
Flask-SocketIO's socketio.run does). Events: `join {game}` puts the socket in the game's room;
`report {game, n, size}` broadcasts `view {seq: n, view: {pad: "x" * size}}` to that room and
acks `{ok, seq}`. No database, no rules, no views: the least any Socket.IO server must do.
"""

from __future__ import annotations

import argparse
import sys

if __name__ == "__main__" and "gevent" in sys.argv:
    from gevent import monkey  # must patch before anything else imports socket or threading

    monkey.patch_all()

from typing import Any

import socketio


def make_server(mode: str) -> socketio.Server:
    """Return a Socket.IO server with the join and report handlers."""
    sio = socketio.Server(async_mode=mode, cors_allowed_origins="*")
    pads: dict[int, str] = {}

    @sio.on("join")  # type: ignore[untyped-decorator]
    def on_join(sid: str, data: dict[str, Any]) -> dict[str, Any]:
        sio.enter_room(sid, f"game:{data['game']}")
        return {"ok": True, "seq": 0, "view": {}}

    @sio.on("report")  # type: ignore[untyped-decorator]
    def on_report(sid: str, data: dict[str, Any]) -> dict[str, Any]:
        size = int(data["size"])
        pad = pads.setdefault(size, "x" * size)
        sio.emit("view", {"seq": data["n"], "view": {"pad": pad}}, to=f"game:{data['game']}")
        return {"ok": True, "seq": data["n"]}

    return sio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=100)
    parser.add_argument("--mode", choices=["threading", "gevent"], default="threading")
    args = parser.parse_args()
    sio = make_server(args.mode)
    app = socketio.WSGIApp(sio)
    print(f"bare server on 127.0.0.1:{args.port} ({args.mode})", flush=True)
    if args.mode == "gevent":
        from gevent import pywsgi
        from geventwebsocket.handler import WebSocketHandler  # type: ignore[import-untyped]

        pywsgi.WSGIServer(("127.0.0.1", args.port), app, handler_class=WebSocketHandler, log=None).serve_forever()
        return
    from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

    # The same gunicorn options as referee.cli._run_gunicorn.
    options = {
        "bind": f"127.0.0.1:{args.port}",
        "workers": 1,
        "worker_class": "gthread",
        "threads": args.threads,
        "worker_connections": max(1000, 2 * args.threads),
        "timeout": 60,
        "graceful_timeout": 5,
        "keepalive": 5,
        "accesslog": None,
        "errorlog": "-",
        "loglevel": "warning",
        "control_socket_disable": True,
    }

    class Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            for key, value in options.items():
                if key in self.cfg.settings:
                    self.cfg.set(key, value)

        def load(self) -> Any:
            return app

    Server().run()


if __name__ == "__main__":
    main()
