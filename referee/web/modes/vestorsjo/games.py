"""Starting Vestorsjø games: the packaged ruleset and maps, the new-game choices, the game and its links."""

from __future__ import annotations

from typing import Any

from flask import url_for

from referee.resources import resource_path
from referee.rules import vestorsjo as vs
from referee.rules.errors import IllegalAction, MalformedAction, Msg, RulesError
from referee.rules.events import Role
from referee.rules.ruleset import read_toml
from referee.web.access import current_team
from referee.web.api import acting
from referee.web.modes import seats
from referee.web.modes.vestorsjo.views import BOTH, GUEST, HOST

RULESET = "vestorsjo"
OPPONENTS = ("hotseat", "friend", "computer")
LEVELS = ("easy", "normal", "strong")
DICE = ("server", "physical")


def ruleset_data() -> dict[str, Any]:
    """Return the packaged Vestorsjø ruleset."""
    return read_toml(resource_path("config") / "rulesets" / f"{RULESET}.toml")


def map_data(name: str) -> dict[str, Any]:
    """Return a packaged map file (with its coast, which only the drawing uses)."""
    if not name.isidentifier():
        raise MalformedAction(f"there is no map {name!r}")
    path = resource_path("config") / "maps" / f"{name}.toml"
    if not path.is_file():
        raise MalformedAction(f"there is no map {name!r}")
    return read_toml(path)


def _choice(body: dict[str, Any], key: str, allowed: tuple[str, ...], default: str) -> str:
    value = body.get(key)
    if value is None or value == "":
        return default
    if value not in allowed:
        raise MalformedAction(f"{key} must be one of {', '.join(allowed)}")
    return str(value)


def start_problem(opponent: str, start: Any) -> RulesError | None:
    """Refuse start places of the creator's choosing in a game against a friend, else None.

    The friend joins by a link and is never shown them: a creator could set up the friend's fleet
    to lose. Where one person plays both sides, or against the computer, they only set up a
    position to try out (scripts and tests), so there they stay.
    """
    if start not in (None, {}) and opponent == "friend":
        return IllegalAction(
            Msg(
                "a game against a friend starts from the map's start places, which both players know:"
                " set start places only in a game on one device or against the computer"
            )
        )
    return None


def create_game(body: dict[str, Any]) -> dict[str, Any]:
    """Create a Vestorsjø game: {opponent, dice, level?, start?}; return the game, links and device tokens.

    `start` (piece id -> place) moves pieces off the map's start places (scripts and tests), in a
    game on one device or against the computer, never against a friend (`start_problem`).
    """
    opponent = _choice(body, "opponent", OPPONENTS, "hotseat")
    dice = _choice(body, "dice", DICE, "server")
    level = _choice(body, "level", LEVELS, "normal")
    refusal = start_problem(opponent, body.get("start"))
    if refusal is not None:
        raise refusal
    rules = ruleset_data()
    raw_map = map_data(str(rules.get("ruleset", {}).get("map", "oresund")))
    action: dict[str, Any] = {
        "type": "create_game",
        "ruleset": rules,
        "map": {k: v for k, v in raw_map.items() if k != "coast"},
        "dice": dice,
    }
    start = body.get("start")
    if start is not None:
        if not isinstance(start, dict):
            raise MalformedAction('start must map piece ids to places, like {"scania.frigate-1": "F12"}')
        action["start"] = start
    if opponent == "computer":
        action["computer"] = {GUEST: level}
    if opponent == "friend" and dice == "physical":
        action["confirm_rolls"] = True  # each device sees the die the other entered, and says yes
    result = acting.play().create(vs.MODE, action, by=Role("player", HOST)).result
    gid = result.game_id
    subject = BOTH if opponent == "hotseat" else HOST
    links: dict[str, Any] = {
        "play": url_for("vestorsjo.play_page", game_id=gid, _external=True),
        "watch": url_for("vestorsjo.watch_page", game_id=gid, _external=True),
    }
    if opponent == "friend":
        links["join"] = {GUEST: seats.join_link("vestorsjo.play_page", gid, GUEST)}
    return {"game": gid, "links": links, "devices": {subject: seats.device_token(gid, subject)}}


def against_friend(game_id: str, state: vs.State) -> bool:
    """Tell whether a game is between two devices: the host holds Scania alone and no computer plays."""
    if current_team(game_id) != HOST or not state.log:
        return False
    return "computer" not in state.log[0].data
