"""Starting Battleship games: a new game from the lobby's choices, a new invite for the friend, a rematch."""

from __future__ import annotations

from typing import Any, cast

from flask import abort, current_app, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from sqlalchemy import Table, select

from referee.push import sockets
from referee.resources import resource_path
from referee.rules import battleship as bs
from referee.rules.errors import MalformedAction
from referee.rules.events import Role
from referee.rules.ruleset import read_toml
from referee.store import reading
from referee.store.models import Token
from referee.web.access import TokenKind, current_team, issue_token
from referee.web.api import acting
from referee.web.extensions import db, socketio
from referee.web.i18n import current_lang
from referee.web.modes import seats
from referee.web.modes.battleship.views import COMPUTER, HOTSEAT

tokens_t = cast(Table, Token.__table__)

RULESETS = ("zeeslag", "zeeslag-salvo", "sjoslag")
OPPONENTS = ("friend", "computer", "hotseat")


def ruleset_data(ruleset_id: str) -> dict[str, Any]:
    """Return one of the packaged Battleship rulesets."""
    if ruleset_id not in RULESETS:
        raise MalformedAction(f"ruleset must be one of {', '.join(RULESETS)}")
    return read_toml(resource_path("config") / "rulesets" / f"{ruleset_id}.toml")


def ruleset_choices() -> list[dict[str, Any]]:
    """Return the lobby's modes: id, own-language name and name in the page's language."""
    lang = current_lang()
    rows = []
    for rid in RULESETS:
        rs = bs.battleship_from_dict(ruleset_data(rid), rid)
        own = rs.language or lang
        rows.append(
            {
                "id": rid,
                "own": rs.name_in(own),
                "here": rs.name_in(lang),
                "lang": own,
                "fleet": len(rs.fleet),
                "size": rs.size,
            }
        )
    return rows


def _text(body: dict[str, Any], key: str, default: str) -> str:
    value = body.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    if not isinstance(value, str):
        raise MalformedAction(f"{key} must be a name")
    return value.strip()


def create_game(body: dict[str, Any]) -> dict[str, Any]:
    """Create a Battleship game: {ruleset, opponent, name?, opponent_name?, level?, first?}.

    Returns the game id, the links and the raw device tokens to set as cookies (never sent to
    another browser): {"game", "links", "devices": {subject: token}}.
    """
    rid = _text(body, "ruleset", "zeeslag")
    opponent = _text(body, "opponent", "friend")
    if opponent not in OPPONENTS:
        raise MalformedAction(f"opponent must be one of {', '.join(OPPONENTS)}")
    level = _text(body, "level", "strong")
    if level not in bs.LEVELS:
        raise MalformedAction(f"level must be one of {', '.join(bs.LEVELS)}")
    me = _text(body, "name", _("Player 1"))
    # The computer's default name is stored untranslated: each page shows it in its own language.
    default_other = COMPUTER if opponent == "computer" else _("Player 2")
    them = _text(body, "opponent_name", default_other)
    first = _text(body, "first", bs.COIN)
    if first not in (*bs.PLAYERS, bs.COIN):
        raise MalformedAction("first must be A, B or coin")
    action: dict[str, Any] = {
        "type": "create_game",
        "ruleset": ruleset_data(rid),
        "players": {"A": me, "B": them},
        "first": first,
    }
    if opponent == "computer":
        action["computer"] = {"B": level}
    if opponent == "hotseat":
        action["hotseat"] = True
    if body.get("per_shot") is not None:
        action["per_shot"] = bool(body.get("per_shot"))
    # The play service creates it and lets the computer place its fleet at once.
    result = acting.play().create(bs.MODE, action, by="player:A").result
    gid = result.game_id
    seat = HOTSEAT if opponent == "hotseat" else "A"
    devices = {seat: seats.device_token(gid, seat)}
    links: dict[str, Any] = {
        "play": url_for("battleship.play_page", game_id=gid, _external=True),
        "watch": url_for("battleship.watch_page", game_id=gid, _external=True),
    }
    if opponent == "friend":
        links["join"] = {"B": seats.join_link("battleship.play_page", gid, "B")}  # a new game: seat B is free
    return {"game": gid, "links": links, "devices": devices}


def new_invite(game_id: str, state: bs.State) -> list[str]:
    """Player A's "new invite": cut player B's phones off and make a fresh link; return their device ids."""
    if current_team(game_id) != "A" or not against_friend(state):
        abort(403, description=_("Only player A of a game against a friend may invite the friend again."))
    if state.phase == "over":
        abort(409, description=_("The game is over."))
    return seats.new_invite(game_id, "B")


def against_friend(state: bs.State) -> bool:
    """Tell whether a game is between two phones (not pass-and-play, not against the computer)."""
    return not state.hotseat and all(s.computer is None for s in state.players.values())


def rematch(game_id: str, state: bs.State, role: Role) -> dict[str, Any]:
    """Start (or find) the rematch of a finished game: same players and mode, the other one starts.

    Both players' next game is the same one: it is found again by a join token labelled with the
    old game's id, so the second player to ask joins the first one's rematch.
    """
    if role.kind != "player":
        abort(403, description=_("Only a player of this game may ask for a rematch."))
    if state.phase != "over":
        abort(409, description=_("The game is not over yet."))
    side = current_team(game_id) or role.subject
    label = f"rematch:{game_id}"
    with reading(db.engine) as conn:
        found = conn.execute(
            select(tokens_t.c.game_id).where(tokens_t.c.label == label).order_by(tokens_t.c.id)
        ).scalar()
    if found is None:
        action: dict[str, Any] = {
            "type": "create_game",
            "ruleset": state.ruleset_raw,
            "players": {p: state.players[p].name for p in bs.PLAYERS},
            "first": bs.other(state.first),
            "per_shot": state.per_shot,
        }
        computer = {p: s.computer for p, s in state.players.items() if s.computer}
        if computer:
            action["computer"] = computer
        if state.hotseat:
            action["hotseat"] = True
        created = acting.play().create(bs.MODE, action, by="player:A").result
        found = created.game_id
        issue_token(db.engine, TokenKind.PROJECTOR, game_id=found, label=label)  # the marker, never handed out
        # The other player's end screen offers to join (its button posts to the same route).
        for lang in current_app.config["LANGUAGES"]:
            for p in bs.PLAYERS:
                socketio.emit("rematch", {"game": found}, to=sockets.room_of(game_id, Role("player", p), lang))
    subject = side if side in (*bs.PLAYERS, HOTSEAT) else role.subject
    return {
        "game": str(found),
        "devices": {subject: seats.device_token(str(found), subject)},
        "links": {"play": url_for("battleship.play_page", game_id=found, _external=True)},
    }
