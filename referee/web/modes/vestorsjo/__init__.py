"""Vestorsjø in the browser: the new-game page, the players' page, the projector, and the board as SVG.

Who is who in a game (the game hides nothing, so no screen has secrets to keep):
- the creator's browser gets a device cookie for Scania (who moves first) straight away;
- against a friend, Zealand joins with a single-use link (QR) `/v/<gid>?t=…`, exchanged for a
  device cookie; Scania's page shows it only while no phone holds the Zealand seat, and Scania's
  "new invite" cuts the old phone off and makes a fresh link;
- pass-and-play: one device holds both sides (device subject "both"); its role is the side to move;
- against the computer, the play service plays Zealand (`computer: {"zealand": level}` in the
  create_game action);
- the referee (server cookie) is sent to the projector, which is public.

Who is who and what a browser sees is `views.py`; starting games `games.py`; the pages and the
route `pages.py`; the board, drawn once per map on the server, `board.py`; its part of the OpenAPI
document `openapi.py`.
"""

from __future__ import annotations

import logging

from flask import Flask, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]

from referee.rules import vestorsjo as vs
from referee.store import ABANDONED
from referee.web import modes
from referee.web.extensions import db
from referee.web.modes import seats

# Its part of the OpenAPI document, which `referee.web.api.openapi` asks every web side for.
from referee.web.modes.vestorsjo.openapi import openapi_paths as openapi_paths
from referee.web.modes.vestorsjo.pages import bp
from referee.web.modes.vestorsjo.views import expired_message, role_in, view_of

log = logging.getLogger(__name__)


def expire_idle_games(app: Flask, now: float) -> list[str]:
    """Abandon the Vestorsjø games nobody acted on for VESTORSJO_IDLE_HOURS; return their ids.

    Anyone at the club may start one, so forgotten ones must not pile up as games in play. A game
    stored before the rules gave a phase has the status "active" (over or not): it is swept too,
    or a forgotten one of those would never expire.
    """
    with app.app_context():
        hours = float(app.config["VESTORSJO_IDLE_HOURS"])
        expired = db.store.expire_idle(vs.MODE, before=now - hours * 3600.0, statuses=("playing", "active"))
    if expired:
        log.info("abandoned %d idle Vestorsjø game(s)", len(expired))
    return expired


def gone(game_id: str) -> str | None:
    """Say why a stored game may no longer be played (it expired), or None."""
    return expired_message() if db.store.status_of(game_id) == ABANDONED else None


def init_app(app: Flask) -> None:
    """Register the Vestorsjø blueprint, its web side, and its limit of games per client address."""
    seats.limit_creations(app, vs.MODE)
    modes.register(
        modes.WebMode(
            name=vs.MODE,
            role_in=role_in,
            view_of=view_of,
            gone=gone,
            sweep=expire_idle_games,
            home=lambda _referee: [
                modes.HomeLink(url_for("vestorsjo.new_game"), f"⬢ {_('Vestorsjø')}: {_('naval battle in the Öresund')}")
            ],
        )
    )
    app.register_blueprint(bp)
