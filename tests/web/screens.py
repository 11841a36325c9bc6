"""Test sockets read as conn.js reads them: the resync's view, then every push applied in order, each one checked.

`Pushes` records the whole view each push made for each room (role, language): exactly what a
resync of that role in that language answers at that version (the same `view_of`, the same
moment). `Screen.take()` applies a socket's pushes to the view it holds and checks each
"changes": it starts from the view held, gives that whole view, and carries no string the
role's views (before or after) do not (a change set can never tell more than a view).
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.push import changes
from referee.push import sockets as push_sockets
from referee.push import views as push_view
from referee.rules.events import Role
from referee.web.extensions import socketio


class Pushes:
    """The views each push made, by version and room, recorded around push_view._push_views_now."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made: dict[tuple[str, int], dict[tuple[Role, str], Any]] = {}
        self.kinds: list[str] = []
        real_push, real_message, real_said = push_view._push_views_now, push_view._message, push_view._said_message

        def recording_push(game_id: str, state: Any, *args: Any, **kwargs: Any) -> Any:
            made = real_push(game_id, state, *args, **kwargs)
            self.made.setdefault((game_id, state.version), {}).update(made)
            return made

        def recording_message(*args: Any, **kwargs: Any) -> Any:
            answer = real_message(*args, **kwargs)
            self.kinds.append(answer[0])
            return answer

        def recording_said(*args: Any, **kwargs: Any) -> Any:
            answer = real_said(*args, **kwargs)
            self.kinds.append(answer[0])
            return answer

        monkeypatch.setattr(push_view, "_push_views_now", recording_push)
        monkeypatch.setattr(push_view, "_message", recording_message)
        monkeypatch.setattr(push_view, "_said_message", recording_said)


def strings(value: Any) -> set[str]:
    """Every text in a JSON value, its keys too."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value) | {s for v in value.values() for s in strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in strings(v)}
    return set()


class Screen:
    """One test socket as a page: resynced once, then following the pushes."""

    def __init__(
        self, sock: Any, game_id: str, pushes: Pushes, ack: dict[str, Any] | None = None, **extra: Any
    ) -> None:
        """Resync (or take the answer of the resync just sent: `ack`) and hold its view."""
        self.sock, self.game_id, self.pushes = sock, game_id, pushes
        self.ack = ack or sock.emit("resync", {"game": game_id, "seq": 0, **extra}, callback=True)
        self.seq: int = self.ack.get("seq", -1)
        self.view: Any = self.ack.get("view")
        self.changes_seen = 0

    @property
    def room(self) -> tuple[Role, str]:
        """The (role, language) this socket listens as."""
        sid = socketio.server.manager.sid_from_eio_sid(self.sock.eio_sid, "/")
        _game, role, lang = push_sockets.listening[sid]
        return role, lang

    def take(self, messages: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """Apply the socket's pushes (these, or those waiting) in order, checking each; return them."""
        if messages is None:
            messages = self.sock.get_received() if self.sock.is_connected() else []
        room = self.room if self.sock.is_connected() else None
        for m in messages:
            msg = m["args"][0] if m["args"] else None
            if m["name"] == "view" and msg["seq"] >= self.seq:
                self.seq, self.view = msg["seq"], msg["view"]
            elif m["name"] == "changes":
                assert room is not None
                assert msg["seq"] > self.seq, f"{room}: a change set to {msg['seq']} while at {self.seq}"
                assert msg["from"] == self.seq, f"{room}: changes from {msg['from']}, the page holds {self.seq}"
                new = changes.apply(self.view, msg["changes"])
                whole = self.pushes.made[(self.game_id, msg["seq"])][room]
                assert changes.same(new, whole), f"{room} at {msg['seq']}: the changes give not its view but {new}"
                told = strings(msg["changes"]) - changes.OPS - strings(self.view) - strings(whole)
                assert not told, f"{room} at {msg['seq']}: the change set tells {sorted(told)}"
                self.seq, self.view = msg["seq"], new
                self.changes_seen += 1
        return messages
