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
"""

from __future__ import annotations

import functools
import logging
import time
from typing import Any, cast

from babel.support import Translations
from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _  # type: ignore[import-untyped]
from sqlalchemy import Table, select
from werkzeug.exceptions import TooManyRequests

from referee.push import sockets
from referee.resources import resource_path
from referee.rules import battleship as bs
from referee.rules.errors import MalformedAction, RulesError
from referee.rules.events import PUBLIC, REFEREE, Role
from referee.rules.ruleset import read_toml
from referee.store import ABANDONED, reading
from referee.store.models import Game, Token
from referee.web import modes, playing
from referee.web.access import (
    Access,
    TokenKind,
    current_roles,
    current_team,
    issue_token,
)
from referee.web.extensions import db, socketio
from referee.web.i18n import current_lang, say, say_all
from referee.web.links import qr_svg
from referee.web.modes import seats

# Its part of the OpenAPI document, which `referee.web.openapi` asks every web side for.
from referee.web.modes.battleship.openapi import openapi_paths as openapi_paths
from referee.web.modes.battleship.openapi import openapi_views as openapi_views
from referee.web.playing import load_any_state
from referee.web.words import N_

log = logging.getLogger(__name__)
bp = Blueprint("battleship", __name__)
games_t = cast(Table, Game.__table__)
tokens_t = cast(Table, Token.__table__)

RULESETS = ("zeeslag", "zeeslag-salvo", "sjoslag")
OPPONENTS = ("friend", "computer", "hotseat")
HOTSEAT = "AB"  # the device subject of a pass-and-play phone: both sides
COMPUTER = N_("Computer")  # the computer's name as stored: translated wherever it is shown
SCORE_HOURS = 12  # the club's evening: games finished in the last this many hours


# --- Roles and views -------------------------------------------------------------------------


def role_in(game_id: str, slip: str | None, state: bs.State) -> Role:
    """Return this browser's role in a Battleship game: player:A/B, referee or public.

    A player's own device comes first: a referee who plays on the club laptop sees a player's
    screen, never both fleets.
    """
    if slip:
        abort(403, description=_("This slip is not genuine, or belongs to another game."))
    side = current_team(game_id)
    if side in bs.PLAYERS:
        return Role("player", side)
    if side == HOTSEAT:
        return Role("player", bs.screen_player(state))
    if Access.REFEREE in current_roles(game_id):
        return REFEREE
    return PUBLIC


def view_of(state: bs.State, role: Role, game_id: str) -> dict[str, Any]:
    """Return a role's view, translated, with the ruleset and ship names in the page's language.

    A ship kind's title is the game's own word beside the page's ("krysser · cruiser"), as the
    words of the game are kept (shared ux.md); in the game's own language the word stands once.
    """
    view: dict[str, Any] = say_all(bs.view_for(state, Role.from_str(role)))
    lang = current_lang()
    rules = view["ruleset"]
    rules["title"] = rules["names"].get(lang, rules["name"])
    # The mode's own name, in its own language (Zeeslag is Dutch, Sjøslag Norwegian).
    rules["own_lang"] = rules.get("language") or lang
    rules["own"] = rules["names"].get(rules["own_lang"], rules["title"])
    for kind in rules["fleet"]:
        kind["title"] = state.ruleset.ship_word(kind["kind"]).in_language(lang)
    for board in view["boards"].values():
        for ship in board.get("ships", []):
            ship["name"] = ship["names"].get(lang, ship["name"])
    for p, player in view["players"].items():
        player["name"] = shown_name(state.players[p])
    for action in view.get("actions", []):
        # The free squares are every square not yet shot: the page knows them from the shots,
        # and leaving them out keeps each push small (and every ship square out of the bytes).
        action.pop("squares", None)
    view["game"] = game_id
    return view


def computer_names() -> frozenset[str]:
    """Return the computer's default name in every page language (games made before it was stored untranslated)."""
    return _computer_names(
        str(current_app.config["BABEL_TRANSLATION_DIRECTORIES"]), tuple(current_app.config["LANGUAGES"])
    )


@functools.cache
def _computer_names(directories: str, langs: tuple[str, ...]) -> frozenset[str]:
    # The catalogues are read here, not through force_locale: this runs inside a push's own
    # forced locale, which a nested force_locale would undo.
    names = {COMPUTER}
    for folder in directories.split(";"):
        for lang in langs:
            names.add(Translations.load(folder, [lang]).gettext(COMPUTER))
    return frozenset(names)


def shown_name(side: bs.Player) -> str:
    """Return a player's name for the page: the computer's default name in the page's language."""
    if side.computer is not None and side.name in computer_names():
        return str(_(COMPUTER))
    return side.name


def load_game(game_id: str) -> bs.State:
    """Return a Battleship game's state, or 404 (also for a game of another mode); 410 if it expired."""
    state = load_any_state(game_id)
    if not isinstance(state, bs.State):
        abort(404, description=_("There is no such game."))
    if db.store.status_of(game_id) == ABANDONED:  # the store's mark: the log still says "playing"
        abort(410, description=expired_message())
    return state


def expired_message() -> str:
    """Say that a game expired, and why."""
    hours = current_app.config["BATTLESHIP_IDLE_HOURS"]
    return str(_("This game has expired: nobody played it for %(hours)s hours. Start a new one.", hours=hours))


# --- The computer opponent -------------------------------------------------------------------


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


# --- Creating games --------------------------------------------------------------------------


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
    result = playing.play().create(bs.MODE, action, by="player:A").result
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
        created = playing.play().create(bs.MODE, action, by="player:A").result
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


# --- Pages -----------------------------------------------------------------------------------


def page(template: str, game_id: str, role: Role, state: bs.State, **extra: Any) -> str:
    """Render a Battleship page with its initial view handed to the page's script."""
    view = view_of(state, role, game_id)
    page_data = {
        "game": game_id,
        "role": role,
        "seq": state.version,
        "view": view,
        "api": f"/api/games/{game_id}",
        **extra.pop("data", {}),
    }
    return render_template(
        template, game_id=game_id, role=role, view=view, seq=state.version, page_data=page_data, **extra
    )


@bp.route("/battleship", methods=["GET", "POST"])
def lobby() -> Any:
    """Start a Battleship game: against a friend, the computer, or pass-and-play."""
    if request.method == "GET":
        return render_template("battleship/lobby.html", rulesets=ruleset_choices(), form={}, error=None)
    form = request.form.to_dict()
    try:
        seats.check_creation_limit(bs.MODE)
    except TooManyRequests as exc:
        page = render_template("battleship/lobby.html", rulesets=ruleset_choices(), form=form, error=exc.description)
        refused = make_response(page, 429)
        refused.headers["Retry-After"] = str(exc.retry_after)
        return refused
    try:
        created = create_game(form)
    except RulesError as exc:
        return render_template(
            "battleship/lobby.html", rulesets=ruleset_choices(), form=form, error=say(exc.message)
        ), 400
    response = redirect(url_for("battleship.play_page", game_id=created["game"]), code=303)
    return seats.with_device_cookies(response, created["game"], created["devices"])


@bp.get("/b/<game_id>")
def play_page(game_id: str) -> Any:
    """Show a player's page (placement, play, end); anyone else is sent to the projector view.

    Player A of a game against a friend sees the friend's invite while no phone holds seat B,
    else the "new invite" button.
    """
    state = load_game(game_id)
    role = role_in(game_id, None, state)
    if role.kind != "player":
        return redirect(url_for("battleship.watch_page", game_id=game_id), code=303)
    data: dict[str, Any] = {"hotseat": current_team(game_id) == HOTSEAT}
    invite = None
    if against_friend(state) and current_team(game_id) == "A":
        url = seats.join_link("battleship.play_page", game_id, "B")
        invite = {"url": url, "qr": qr_svg(url, 6) if url else None, "joined": url is None}
    return page("battleship/play.html", game_id, role, state, data=data, invite=invite)


@bp.post("/b/<game_id>/invite")
def invite_page(game_id: str) -> Any:
    """Player A's "new invite": the friend's old phone is cut off, and A's page shows a new link."""
    new_invite(game_id, load_game(game_id))
    return redirect(url_for("battleship.play_page", game_id=game_id), code=303)


@bp.get("/b/<game_id>/watch")
def watch_page(game_id: str) -> Any:
    """Show the spectator view (both seas' shots, no ships until the end); the referee may forfeit."""
    state = load_game(game_id)
    referee = Access.REFEREE in current_roles(game_id)
    return page("battleship/watch.html", game_id, PUBLIC, state, data={"referee": referee}, referee=referee)


@bp.post("/b/<game_id>/rematch")
def rematch_page(game_id: str) -> Any:
    """Start or join the rematch from the end screen, and open it."""
    state = load_game(game_id)
    created = rematch(game_id, state, role_in(game_id, None, state))
    response = redirect(url_for("battleship.play_page", game_id=created["game"]), code=303)
    return seats.with_device_cookies(response, created["game"], created["devices"])


@bp.get("/battleship/scores")
def scores_page() -> Any:
    """Show the club's scoreboard of the evening: wins, games and shots per game per player name."""
    return render_template("battleship/scores.html", scores=scoreboard(), hours=SCORE_HOURS)


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


# --- JSON API --------------------------------------------------------------------------------


def _json() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise MalformedAction("send a JSON object (Content-Type: application/json)")
    return data


@bp.post("/api/battleship/games")
def api_create() -> Any:
    """Create a game; the caller's browser becomes player A (or both, pass-and-play)."""
    seats.check_creation_limit(bs.MODE)
    created = create_game(_json())
    response = jsonify({"game": created["game"], "links": created["links"]})
    response.status_code = 201
    return seats.with_device_cookies(response, created["game"], created["devices"])


@bp.post("/api/battleship/games/<game_id>/rematch")
def api_rematch(game_id: str) -> Any:
    """Start or join the rematch of a finished game (a player); the caller's browser joins it."""
    state = load_game(game_id)
    created = rematch(game_id, state, role_in(game_id, None, state))
    response = jsonify({"game": created["game"], "links": created["links"]})
    return seats.with_device_cookies(response, created["game"], created["devices"])


@bp.get("/api/battleship/scores")
def api_scores() -> Any:
    """The scoreboard of the evening: [{name, wins, games, shots_per_game, computer}]."""
    return jsonify({"hours": SCORE_HOURS, "scores": scoreboard()})


def init_app(app: Any) -> None:
    """Register the Battleship blueprint and its limit of games per client address."""
    seats.limit_creations(app, bs.MODE)
    app.register_blueprint(bp)
