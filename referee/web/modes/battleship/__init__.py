"""Battleship (Zeeslag, Zeeslag salvo, Sjøslag) in the browser: lobby, players' pages, projector, scores.

Who is who in a game:
- the creator's browser gets a device cookie for player A straight away;
- against a friend, player B joins with a single-use link (QR) `/b/<gid>?t=…`, exchanged for a
  device cookie. Player A's page shows it only while no phone holds seat B; A's "new invite"
  cuts B's phone off and makes a fresh link (for a friend whose phone died);
- pass-and-play: one device holds both sides (device subject "AB"); its role is the player whose
  move it is (placing: the first without a fleet), so the server only ever sends that player's view;
- against the computer, the server plays side B: its fleet at creation, its turns right after each
  human action (the rules' `automatic`, played by the play service);
- the referee (server cookie) sees everything and may record a forfeit; the projector is public.

Who is who and what a browser sees is `views.py`; starting games `games.py`; the pages and routes
`pages.py`; the scoreboard `scores.py`; its part of the OpenAPI document `openapi.py`.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]

from referee.rules import battleship as bs
from referee.store import ABANDONED
from referee.web import modes
from referee.web.extensions import db
from referee.web.modes import seats

# Its part of the OpenAPI document, which `referee.web.api.openapi` asks every web side for.
from referee.web.modes.battleship.openapi import openapi_paths as openapi_paths
from referee.web.modes.battleship.openapi import openapi_views as openapi_views
from referee.web.modes.battleship.pages import bp
from referee.web.modes.battleship.views import expired_message, role_in, view_of

log = logging.getLogger(__name__)


def expire_idle_games(app: Flask, now: float) -> list[str]:
    """Abandon the Battleship games nobody acted on for BATTLESHIP_IDLE_HOURS; return their ids.

    Anyone at the club may start one, so forgotten ones must not pile up as games "playing".
    """
    with app.app_context():
        hours = float(app.config["BATTLESHIP_IDLE_HOURS"])
        expired = db.store.expire_idle(bs.MODE, before=now - hours * 3600.0)
    if expired:
        log.info("abandoned %d idle Battleship game(s)", len(expired))
    return expired


modes.register(
    modes.WebMode(
        name=bs.MODE,
        role_in=role_in,
        view_of=view_of,
        gone=lambda game_id: expired_message() if db.store.status_of(game_id) == ABANDONED else None,
        sweep=expire_idle_games,
        home=lambda referee: [
            modes.HomeLink(
                url_for("battleship.lobby"), f"⚓ {_('Battleship')}: Zeeslag · Sjøslag", "big" if referee else "primary"
            ),
            modes.HomeLink(url_for("battleship.scores_page"), f"★ {_('Scores of the evening')}", "ghost"),
        ],
    )
)


def init_app(app: Any) -> None:
    """Register the Battleship blueprint and its limit of games per client address."""
    seats.limit_creations(app, bs.MODE)
    app.register_blueprint(bp)
