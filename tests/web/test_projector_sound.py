"""A projector says whether its sound at 0:00 is on; the game's referee hears it (`screens`)."""

from __future__ import annotations

from typing import Any

from flask import Flask

from referee.web.extensions import socketio

from .test_games_web import create, referee_client


def screens_heard(sock: Any) -> list[dict[str, int]]:
    return [m["args"][0] for m in sock.get_received() if m["name"] == "screens"]


def test_the_referee_hears_whether_the_projector_will_sound_0_00(app: Flask) -> None:
    browser = referee_client(app)
    gid = create(app, browser)["game"]
    referee = socketio.test_client(app, flask_test_client=browser)
    answer = referee.emit("resync", {"game": gid, "seq": 0}, callback=True)
    assert answer["screens"] == {"projectors": 0, "sound_on": 0}

    projector = socketio.test_client(app, flask_test_client=app.test_client())
    assert projector.emit("resync", {"game": gid, "seq": 0}, callback=True)["ok"]
    referee.get_received()
    assert projector.emit("sound", {"game": gid, "on": True}, callback=True) == {"ok": True}
    assert screens_heard(referee) == [{"projectors": 1, "sound_on": 1}]
    # A resync of the referee's page (a reload) reads the same.
    assert referee.emit("resync", {"game": gid, "seq": 0}, callback=True)["screens"] == {"projectors": 1, "sound_on": 1}

    assert projector.emit("sound", {"game": gid, "on": False}, callback=True) == {"ok": True}
    assert screens_heard(referee) == [{"projectors": 1, "sound_on": 0}]
    projector.emit("sound", {"game": gid, "on": True}, callback=True)
    referee.get_received()
    projector.disconnect()
    assert screens_heard(referee) == [{"projectors": 0, "sound_on": 0}]


def test_only_a_projector_says_so_and_a_bad_word_is_refused(app: Flask) -> None:
    browser = referee_client(app)
    gid = create(app, browser)["game"]
    referee = socketio.test_client(app, flask_test_client=browser)
    assert referee.emit("resync", {"game": gid, "seq": 0}, callback=True)["ok"]
    # The referee's own socket is no projector: refused, and nobody hears of it.
    answer = referee.emit("sound", {"game": gid, "on": True}, callback=True)
    assert answer["ok"] is False and answer["error"] == "malformed"
    stranger = socketio.test_client(app, flask_test_client=app.test_client())
    for payload in (None, [], {"on": "yes"}, {"on": 1}, {"game": gid}):
        answer = stranger.emit("sound", payload, callback=True)
        assert answer["ok"] is False and answer["error"] == "malformed", payload
    # Before it watches a game, a well-formed word is refused too.
    answer = stranger.emit("sound", {"game": gid, "on": True}, callback=True)
    assert answer["ok"] is False and answer["error"] == "malformed"
    assert screens_heard(referee) == []
