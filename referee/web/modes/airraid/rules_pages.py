"""The air raid's rules to show and to print: `/rules`, and one A4 card per role.

`/rules/pilot`, `/rules/base` (the team base and its defender), `/rules/referee`; each in the
page's language, drawn from the ruleset in play: `?game=<id>` reads that game's (its seas, its
corridors and their limit, its round length, what 0:00 does), else the packaged ruleset's.
Nothing in it is secret: a ruleset is the same for both teams.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template, request
from flask_babel import gettext as _  # type: ignore[import-untyped]

from referee.rules.ruleset import AirRaidRuleset, airraid_ruleset_from_dict
from referee.web.i18n import current_lang
from referee.web.modes.airraid.games import default_ruleset_data
from referee.web.modes.airraid.views import load_state

bp = Blueprint("rules_pages", __name__)

CARDS = ("pilot", "base", "referee")


@bp.get("/rules")
def rules() -> str:
    """Show the whole game's rules on one page, with the way to each role's card."""
    return render_template("rules/index.html", **_context())


@bp.get("/rules/<card>")
def rules_card(card: str) -> str:
    """Show one role's card of the rules: one A4 page to print."""
    if card not in CARDS:
        abort(404, description=_("There is no such card of the rules: pilot, base or referee."))
    return render_template(f"rules/{card}.html", **_context())


def _context() -> dict[str, Any]:
    game_id = request.args.get("game")
    if game_id is not None and not 1 <= len(game_id) <= 32:
        abort(404)
    if game_id:
        state = load_state(game_id)  # 404 for a game that does not exist
        ruleset: AirRaidRuleset = state.ruleset
        seconds = int(state.round_seconds)
    else:
        ruleset = airraid_ruleset_from_dict(default_ruleset_data())
        seconds = ruleset.round_seconds
    lang = current_lang()
    kinds = [
        {
            "id": k.id,
            "name": k.name_in(lang),
            "squares": len(k.shape.cells),
            "cells": sorted(k.shape.cells),
            "width": max(c for c, _ in k.shape.cells) + 1,
            "height": max(r for _, r in k.shape.cells) + 1,
            "fighters": k.fighters,
            "bombers": k.bombers,
        }
        for k in ruleset.sea.kinds.values()
    ]
    names = {k["id"]: k["name"] for k in kinds}
    seas = [
        {
            "players": f"{r.min_players}–{r.max_players}" if r.min_players != r.max_players else str(r.min_players),
            "size": r.size,
            "fleet": ", ".join(f"{r.fleet.count(kind)}× {names.get(kind, kind)}" for kind in dict.fromkeys(r.fleet)),
        }
        for r in ruleset.sea_sizes
    ]
    return {
        "game_id": game_id or "",
        "query": f"?game={game_id}" if game_id else "",
        "ruleset_name": ruleset.name_in(lang),
        "round_length": f"{seconds // 60}:{seconds % 60:02d}",
        "at_zero": ruleset.at_zero,
        "round_limit": ruleset.round_limit,
        "corridors": [ruleset.corridor_label(c, lang) for c in ruleset.corridors],
        "corridor_limit": ruleset.corridor_limit,
        "kinds": kinds,
        "seas": seas,
        "touching": ruleset.sea.touching,
        "min_players": ruleset.min_players,
        "max_players": ruleset.max_players,
    }
