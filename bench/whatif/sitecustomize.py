"""What a report would cost without parts of its work: a server patched as it starts.

    PYTHONPATH=bench/whatif WHATIF=emit .venv/bin/python bench/fanout.py --scenario A --seconds 30
    PYTHONPATH=bench/whatif WHATIF=noviews .venv/bin/python bench/fanout.py --scenario A --seconds 30

bench/fanout.py hands PYTHONPATH on to the servers it starts, so Python imports this file in
each of them (and in nothing else: the screens' processes get a PYTHONPATH of their own). It
only acts in our server, once referee.web.live is imported; the bare server never imports it.

- WHATIF=emit: the `action` event only sends a fixed change of 250 bytes to each room of the
  game (one per role and language), in the app's context as an entry runs: no rules, no store,
  no views. What the transport and our rooms cost beside the bare server.
- WHATIF=noviews: the action runs as it does (rules, store, the commit's fsync), and the push
  sends that fixed change to every room instead of making, comparing and translating views.

Measurements only: never on a path a server is started with (nothing in referee imports it).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from typing import Any

WHAT = os.environ.get("WHATIF", "")
PAD = {"pad": "x" * 250}


def _patch(live: Any) -> None:
    from referee.web.extensions import socketio

    def fixed_change(game_id: str, version: int) -> None:
        with live._lock:
            rooms = list(live._rooms.get(game_id, ()))
        for room in rooms:
            message = {"from": version - 1, "seq": version, "changes": PAD}
            socketio.emit("changes", message, to=live.room_of(game_id, *room))

    if WHAT == "emit":
        versions: dict[str, int] = {}

        def only_emit(sid: str, data: Any = None) -> dict[str, Any]:
            # As live.on_action runs an entry: on the Socket.IO server, in the app's context.
            app = socketio.server.get_environ(sid)["flask.app"]
            with app.app_context():
                game_id = data["game"]
                versions[game_id] = versions.get(game_id, 0) + 1
                fixed_change(game_id, versions[game_id])
                return {"ok": True, "seq": versions[game_id], "events": []}

        live.on_action = only_emit  # live.init_app registers the module's on_action
    elif WHAT == "noviews":

        def push_views(game_id: str, state: Any, **_kwargs: Any) -> Any:
            fixed_change(game_id, state.version)
            return live.Made()

        live.push_views = push_views


class _AfterLive(importlib.abc.MetaPathFinder):
    """Patch referee.web.live right after it is imported."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "referee.web.live":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        real_exec = loader.exec_module  # type: ignore[attr-defined]

        def exec_module(module: Any) -> None:
            real_exec(module)
            _patch(module)

        loader.exec_module = exec_module  # type: ignore[attr-defined]
        return spec


if WHAT in ("emit", "noviews"):
    sys.meta_path.insert(0, _AfterLive())
