"""The club's Battleship scoreboard of the evening: wins, games and shots per game per player name."""

from __future__ import annotations

import logging
import time
from typing import Any, cast

from flask_babel import gettext as _  # type: ignore[import-untyped]
from sqlalchemy import Table, select

from referee.rules import battleship as bs
from referee.store import reading
from referee.store.models import Game
from referee.web.extensions import db
from referee.web.modes.battleship.views import COMPUTER, computer_names

log = logging.getLogger(__name__)
games_t = cast(Table, Game.__table__)

SCORE_HOURS = 12  # the club's evening: games finished in the last this many hours


def _score_name(side: bs.Player) -> tuple[tuple[str, ...], str]:
    """Return a scoreboard row's key and its name on the page: the computer by its level."""
    if side.computer is None:
        return (side.name.casefold(),), side.name
    if side.name in computer_names():
        # One row per level, in whichever language the game was started.
        key, name = (COMPUTER, side.computer), str(_(COMPUTER))
    else:
        key, name = (side.name.casefold(), side.computer), side.name
    if side.computer == "easy":
        return key, str(_("%(name)s (easy)", name=name))
    return key, str(_("%(name)s (strong)", name=name))


def scoreboard(now: float | None = None) -> list[dict[str, Any]]:
    """Count the evening's finished Battleship games per player name: wins, games, shots per game.

    `shots_per_game` is the mean of the shots a player fired in each finished game (a salvo
    counts each square called), to one decimal.
    """
    since = (time.time() if now is None else now) - SCORE_HOURS * 3600
    with reading(db.engine) as conn:
        ids = [
            r.id
            for r in conn.execute(
                select(games_t.c.id).where(
                    games_t.c.mode == bs.MODE, games_t.c.status == "over", games_t.c.created_at >= since
                )
            )
        ]
    table: dict[tuple[str, ...], dict[str, Any]] = {}
    shots: dict[tuple[str, ...], int] = {}
    for gid in ids:
        try:
            state, _version = db.store.load(gid)
        except Exception:  # a broken game must not hide the evening's other results
            log.exception("scoreboard: game %s", gid)
            continue
        if not isinstance(state, bs.State) or state.outcome is None:
            continue
        for p, side in state.players.items():
            key, name = _score_name(side)
            row = table.setdefault(key, {"name": name, "wins": 0, "games": 0, "computer": side.computer is not None})
            row["games"] += 1
            row["wins"] += int(state.outcome.winner == p)
            shots[key] = shots.get(key, 0) + sum(len(v.shots) for v in side.volleys)
    for key, row in table.items():
        row["shots_per_game"] = round(shots[key] / row["games"], 1)
    return sorted(table.values(), key=lambda r: (-r["wins"], r["games"], r["name"].casefold()))
