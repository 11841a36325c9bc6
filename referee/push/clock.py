"""The round clock: what is due when a deadline comes, revoked phones cut off, idle games swept, views resent."""

from __future__ import annotations

import logging
import math
import threading
import time

from flask import Flask

from referee.push.sockets import disconnect_revoked, listening, mark_seen, registry_lock
from referee.push.views import push_views
from referee.store import StoreError
from referee.web import modes
from referee.web.api import acting
from referee.web.extensions import db, socketio, store_of

log = logging.getLogger(__name__)


def end_rounds_on_time(app: Flask, now: float | None = None) -> list[str]:
    """Take every action a clock must take now (a round at 0:00, in every mode); return those games.

    The play service's `tick`: only games whose stored deadline has come are loaded.
    """
    with app.app_context():
        return acting.play().tick(now)


def resend_views(app: Flask) -> list[str]:
    """Send this process's sockets a fresh view of their games; return those games.

    Runs when the message queue is subscribed again after an outage: views other processes
    published meanwhile never reached these sockets. Each process resends to its own sockets
    only, from the database, so every screen catches up without waiting for the next entry.
    """
    with registry_lock:
        games = sorted({g for g, _role, _lang in listening.values()})
    sent: list[str] = []
    with app.app_context():
        for game_id in games:
            try:
                state, _version = db.store.load(game_id)
            except StoreError:
                continue
            push_views(game_id, state, local=True)
            sent.append(game_id)
    if sent:
        log.warning("message queue back: resent the views of %d game(s)", len(sent))
    return sent


def expire_idle_games(app: Flask, now: float | None = None) -> list[str]:
    """Run every mode's sweep of forgotten games (Battleship's: abandon idle ones); return their ids."""
    now = time.time() if now is None else now
    expired: list[str] = []
    for mode in modes.registered():
        if mode.sweep is not None:
            expired += mode.sweep(app, now)
    return expired


# Seconds between two looks for sockets whose phone or token was revoked on another process.
REVOKED_EVERY = 2.0
# Seconds between two sweeps for idle Battleship games.
EXPIRE_EVERY = 60.0
# Seconds early the clock does what is due (a timer may fire that much before its time).
EARLY = 0.01


def start_round_clock(app: Flask, longest: float = REVOKED_EVERY, stop: threading.Event | None = None) -> None:
    """Run the round clock in the background for as long as the server runs.

    It sleeps until the soonest deadline of any game, or until a write of this process moves
    one, and at most `longest` seconds (deadlines another process stored, revoked phones):
    fifty games in the air cost it a query every two seconds, not four loads a second. It
    stops once `stop` is set (tests; a server's clock runs until the process ends).
    """

    def loop() -> None:
        store = store_of(app)
        now = time.time()
        next_revoked, next_expire = now + REVOKED_EVERY, now + EXPIRE_EVERY
        while stop is None or not stop.is_set():
            try:
                # While it looks, a deadline stored only wakes it if sooner than the wake it then
                # plans (the look may have read before that write): once asleep, only a sooner one.
                # Not any deadline: at fifty reports a second some write always lands in a look.
                store.clock_wakes_at = -math.inf
                store.soonest_stored = math.inf
                store.deadlines_moved.clear()
                look = store.look()
                now = time.time()
                # A timer may fire a moment early: what is due within EARLY is done now, not
                # after another sleep of a few milliseconds and another look.
                if now >= next_revoked - EARLY:
                    # With the count just read: a revocation made after it moves the next one.
                    disconnect_revoked(app, counted=look.revocations)
                    mark_seen(app, now)
                    next_revoked = now + REVOKED_EVERY
                if now >= next_expire - EARLY:
                    expire_idle_games(app, now)
                    next_expire = now + EXPIRE_EVERY
                due = look.deadline
                now = time.time()
                wake = min(next_revoked, next_expire, now + longest, due if due is not None else now + longest)
                store.clock_wakes_at = wake
                if store.soonest_stored < wake:
                    store.deadlines_moved.set()
                # A deadline already past was not cleared by the last tick (busy, refused):
                # look again a quarter of a second later, not in a busy loop.
                moved = store.deadlines_moved.wait(wake - now if wake > now else 0.25)
                if moved:
                    socketio.sleep(0)  # let the write that moved a deadline finish its pushes first
                now = time.time()
                # Woken for the revoked phones with no deadline come: nothing to tick. A deadline
                # another process stored meanwhile is found by the next look, a moment later.
                if moved or (due is not None and due <= now):
                    end_rounds_on_time(app, now)
            except Exception:  # the clock must keep ticking whatever one game does
                log.exception("round clock")
                socketio.sleep(1.0)

    socketio.start_background_task(loop)
