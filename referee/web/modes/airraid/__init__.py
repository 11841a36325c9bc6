"""The air raid's web side: who a browser is and what it sees (`views.py`), creating a game
(`games.py`), its pages, teams, phones and slips (`pages.py`), its score sheet (`sheet.py`), and
its part of the OpenAPI document (`openapi.py`)."""

from __future__ import annotations

from flask import Flask, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]

from referee.rules import airraid
from referee.web import modes
from referee.web.modes.airraid import pages, sheet
from referee.web.modes.airraid.openapi import openapi_paths as openapi_paths
from referee.web.modes.airraid.openapi import openapi_views as openapi_views
from referee.web.modes.airraid.views import airraid_unsaid, airraid_view_of, listing, role_in

modes.register(
    modes.WebMode(
        name=airraid.MODE,
        role_in=lambda game_id, slip, _state: role_in(game_id, slip),
        view_of=airraid_view_of,
        seen_by=airraid_unsaid,
        listing=listing,
        may_delete=lambda state: bool(state.practice),
        home=lambda referee: (
            [
                modes.HomeLink(url_for("games.new_game"), _("New game"), "primary"),
                modes.HomeLink(url_for("practice.practice_page"), _("Practice game"), "ghost"),
            ]
            if referee
            else []
        ),
    )
)


def init_app(app: Flask) -> None:
    """Register the air raid's pages and its score sheet."""
    pages.init_app(app)
    sheet.init_app(app)
