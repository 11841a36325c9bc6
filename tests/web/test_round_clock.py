"""The round clock sleeps until the next deadline: idle games cost it nothing, a due round ends at once."""

from __future__ import annotations

import threading
import time
from typing import Any

from flask import Flask

from referee.push import clock as push_clock
from referee.store import Look
from referee.web.extensions import store_of

from .test_games_web import act, create, join, play_to_airborne, referee_client


def airborne_game(app: Flask, referee: Any) -> str:
    created = create(app, referee)
    game = {"id": created["game"], "referee": referee}
    game["A"] = join(app, created["links"]["join"]["A"])
    game["B"] = join(app, created["links"]["join"]["B"])
    play_to_airborne(game)
    return str(created["game"])


def run_clock(app: Flask, seconds: float) -> None:
    """Start the clock on a background thread (as `referee serve` does), let it run a while, stop it."""
    stop = threading.Event()
    push_clock.start_round_clock(app, stop=stop)
    time.sleep(seconds)
    stop.set()
    store_of(app).deadlines_moved.set()


def test_the_clock_sleeps_while_no_deadline_is_near(app: Flask, monkeypatch: Any) -> None:
    referee = referee_client(app)
    for _ in range(3):
        airborne_game(app, referee)
    store = store_of(app)
    looks = []
    ticks = []
    real_look = store.look
    monkeypatch.setattr(store, "look", lambda: looks.append(1) or real_look())
    monkeypatch.setattr(push_clock, "end_rounds_on_time", lambda _app, now=None: ticks.append(now) or [])
    run_clock(app, 3.0)
    # Three rounds in the air, five minutes to go: a look every two seconds (a ticking clock
    # looked twelve times in these three seconds).
    assert 1 <= len(looks) <= 3, len(looks)
    # It woke for the revoked phones only: no deadline had come, so no game was looked for.
    assert ticks == []


def test_a_deadline_moved_near_wakes_the_clock_and_the_round_ends(app: Flask) -> None:
    referee = referee_client(app)
    gid = airborne_game(app, referee)
    # The one dogfight of the round decided (A's fighter shoots B's bomber down): nothing is
    # left open, so the shipped ruleset's "wait at 0:00" has nothing to wait for.
    due = next(a for a in referee.get(f"/api/games/{gid}/view").get_json()["legal"] if a["type"] == "report_dogfight")
    assert act(referee, gid, {**due, "throws": [{"hands": ["rock", "scissors"]}]}).status_code == 200
    store = store_of(app)
    ended = threading.Event()
    real_tick = push_clock.end_rounds_on_time

    def tick(the_app: Flask, now: float | None = None) -> list[str]:
        acted = real_tick(the_app, now)
        if gid in acted:
            ended.set()
        return acted

    push_clock.end_rounds_on_time = tick  # type: ignore[assignment]
    stop = threading.Event()
    try:
        push_clock.start_round_clock(app, longest=60.0, stop=stop)
        time.sleep(0.3)  # the clock is asleep now, for up to a minute
        # Half a second left: the write that moves the deadline wakes the clock, which then
        # sleeps just until 0:00 and ends the round.
        left = store.load(gid)[0].round.timer.deadline - time.time()
        assert act(referee, gid, {"type": "adjust_timer", "seconds": -(left - 0.5)}).status_code == 200
        assert ended.wait(20.0), "the round was not ended by the clock"
    finally:
        stop.set()
        store.deadlines_moved.set()
        push_clock.end_rounds_on_time = real_tick  # type: ignore[assignment]
    phase = referee.get(f"/api/games/{gid}/view").get_json()["round"]["phase"]
    assert phase != "airborne"


def test_only_a_deadline_sooner_than_the_clocks_wake_wakes_it(app: Flask) -> None:
    referee = referee_client(app)
    gid = airborne_game(app, referee)
    due = next(a for a in referee.get(f"/api/games/{gid}/view").get_json()["legal"] if a["type"] == "report_dogfight")
    assert act(referee, gid, {**due, "throws": [{"hands": ["rock", "scissors"]}]}).status_code == 200
    store = store_of(app)
    store.clock_wakes_at = time.time() + 2.0  # the clock is asleep for two more seconds
    store.deadlines_moved.clear()
    # A pause and a resume five minutes from the end: nothing for the clock to do sooner.
    assert act(referee, gid, {"type": "pause_timer"}).status_code == 200
    assert act(referee, gid, {"type": "resume_timer"}).status_code == 200
    assert not store.deadlines_moved.is_set()
    # One second left: sooner than the clock's wake, so it wakes.
    left = store.load(gid)[0].round.timer.deadline - time.time()
    assert act(referee, gid, {"type": "adjust_timer", "seconds": -(left - 1.0)}).status_code == 200
    assert store.deadlines_moved.is_set()


def test_a_deadline_stored_while_the_clock_looks_wakes_it(app: Flask, monkeypatch: Any) -> None:
    monkeypatch.setattr(push_clock, "REVOKED_EVERY", 60.0)  # nothing else wakes it within the test
    referee = referee_client(app)
    gid = airborne_game(app, referee)
    due = next(a for a in referee.get(f"/api/games/{gid}/view").get_json()["legal"] if a["type"] == "report_dogfight")
    assert act(referee, gid, {**due, "throws": [{"hands": ["rock", "scissors"]}]}).status_code == 200
    store = store_of(app)
    real_look = store.look
    looked = threading.Event()

    def look() -> Look:
        # The clock has read the soonest deadline (five minutes away); before it goes to sleep
        # on that, a write brings the round's end to half a second from now.
        value = real_look()
        if not looked.is_set():
            looked.set()
            left = store.load(gid)[0].round.timer.deadline - time.time()
            assert act(referee, gid, {"type": "adjust_timer", "seconds": -(left - 0.5)}).status_code == 200
        return value

    store.look = look  # type: ignore[method-assign]
    stop = threading.Event()
    try:
        push_clock.start_round_clock(app, longest=60.0, stop=stop)
        assert looked.wait(5.0)
        deadline = time.time() + 10.0
        while time.time() < deadline:
            if referee.get(f"/api/games/{gid}/view").get_json()["round"]["phase"] != "airborne":
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the clock slept through the deadline stored while it looked")
    finally:
        stop.set()
        store.deadlines_moved.set()


def test_deadlines_stored_while_the_clock_looks_wake_it_only_if_sooner(app: Flask, monkeypatch: Any) -> None:
    monkeypatch.setattr(push_clock, "REVOKED_EVERY", 60.0)
    referee = referee_client(app)
    gid = airborne_game(app, referee)
    due = next(a for a in referee.get(f"/api/games/{gid}/view").get_json()["legal"] if a["type"] == "report_dogfight")
    assert act(referee, gid, {**due, "throws": [{"hands": ["rock", "scissors"]}]}).status_code == 200
    store = store_of(app)
    assert store.earliest_deadline() is not None  # the round's end, minutes away
    real_look = store.look
    looks: list[float] = []

    def look() -> Look:
        # A busy evening: every look meets a write that stores a deadline minutes away.
        value = real_look()
        looks.append(time.time())
        for kind in ("pause_timer", "resume_timer"):
            assert act(referee, gid, {"type": kind}).status_code == 200
        return value

    store.look = look  # type: ignore[method-assign]
    stop = threading.Event()
    try:
        push_clock.start_round_clock(app, longest=60.0, stop=stop)
        time.sleep(1.5)
    finally:
        stop.set()
        store.deadlines_moved.set()
    # Woken by each of them, the clock would look again at once, and again: a busy loop.
    assert len(looks) == 1, len(looks)
