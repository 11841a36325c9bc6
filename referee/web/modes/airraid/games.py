"""Creating an air-raid game: its ruleset (the packaged one or an upload), the game, and the teams' join links."""

from __future__ import annotations

import secrets
import time
from typing import Any

from flask import url_for

from referee.resources import resource_path
from referee.rules import airraid
from referee.rules.errors import MalformedAction, RulesetError
from referee.rules.ruleset import airraid_ruleset_from_dict, parse_toml, read_toml, ruleset_from_dict
from referee.web.access import TokenKind, issue_token, link_nonce, reissue_join_token
from referee.web.extensions import db
from referee.web.links import join_token

DEFAULT_RULESET = "airraid"


def default_ruleset_data() -> dict[str, Any]:
    """Return the packaged air-raid ruleset's data."""
    return read_toml(resource_path("config") / "rulesets" / f"{DEFAULT_RULESET}.toml")


def ruleset_data_from(text: str | None) -> dict[str, Any]:
    """Return the ruleset a referee uploaded (a modified copy), or the default one."""
    if text is not None and not isinstance(text, str):
        raise MalformedAction("ruleset_toml must be the text of a ruleset file")
    if not text or not text.strip():
        return default_ruleset_data()
    try:
        # Size, nesting and every number are bounded (config/ruleset_limits.toml) before any work scales with them.
        data = parse_toml(text, "uploaded ruleset")
        ruleset_from_dict(data, "uploaded ruleset")
    except RulesetError as exc:
        raise MalformedAction("; ".join(exc.lines())) from exc
    return data


def create_game(body: dict[str, Any]) -> dict[str, Any]:
    """Create a game from the referee's form or JSON; return its id and links."""
    teams = body.get("teams")
    action: dict[str, Any] = {
        "type": "create_game",
        "ruleset": ruleset_data_from(body.get("ruleset_toml")),
        "teams": teams,
    }
    for key in ("sea_size", "round_seconds", "practice"):
        if body.get(key) not in (None, ""):
            action[key] = body[key]
    result = db.store.create_game(airraid.MODE, action, at=time.time(), by="referee")
    game_id = result.game_id
    issue_token(db.engine, TokenKind.GAME_REFEREE, game_id=game_id, label="creator")
    links = {"join": {t: join_url(game_id, t) for t in airraid.TEAMS}}
    return {
        "game": game_id,
        "links": {
            "referee": url_for("games.referee_page", game_id=game_id, _external=True),
            "watch": url_for("games.watch_page", game_id=game_id, _external=True),
            **links,
        },
    }


def join_url(game_id: str, team: str, *, reissue: bool = True) -> str:
    """Return a team's join link; `reissue` makes a new one and revokes the old.

    The raw token is never stored. It is an HMAC of the server's secret key over a random nonce
    kept in the token's label, so the dashboard can show the same link again after a reload,
    while nobody without the secret key can derive it.
    """
    nonce = None if reissue else link_nonce(db.engine, game_id, TokenKind.TEAM_JOIN, team)
    if nonce is None:
        nonce = secrets.token_urlsafe(12)
        reissue_join_token(db.engine, game_id, team, label=f"nonce:{nonce}", raw=join_token(game_id, team, nonce))
    return url_for("games.team_page", game_id=game_id, t=join_token(game_id, team, nonce), _external=True)


def sea_sizes() -> list[dict[str, Any]]:
    """Return the default ruleset's sea-size table for the new-game form."""
    rs = airraid_ruleset_from_dict(default_ruleset_data())
    return [{"min": r.min_players, "max": r.max_players, "size": r.size, "ships": len(r.fleet)} for r in rs.sea_sizes]
