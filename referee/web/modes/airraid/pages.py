"""The air raid in the browser: its pages and its own routes (devices, join links, slips, seas).

The API every mode shares (view, actions, events, logs) is web/api.py.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from operator import is_
from typing import Any, cast

from flask import Blueprint, abort, current_app, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from sqlalchemy import Table, select

from referee.push import sockets
from referee.resources import resource_path
from referee.rules import airraid
from referee.rules.errors import MalformedAction, Msg, RulesError, RulesetError
from referee.rules.events import PUBLIC, REFEREE, Role
from referee.rules.ruleset import airraid_ruleset_from_dict, parse_toml, read_toml, ruleset_from_dict
from referee.store import reading
from referee.store.models import Device, EventRow, Token
from referee.web import modes, senders
from referee.web.access import (
    Access,
    TokenKind,
    current_roles,
    current_team,
    is_server_referee,
    issue_token,
    link_nonce,
    make_slip,
    read_slip,
    reissue_join_token,
    revoke_device,
)
from referee.web.api import json_body
from referee.web.extensions import db
from referee.web.i18n import say, say_all
from referee.web.links import join_token, qr_svg
from referee.web.playing import load_any_state, view_of
from referee.web.security import RULESET_BODY_LIMIT, body_limit

bp = Blueprint("games", __name__)
devices_t = cast(Table, Device.__table__)
events_t = cast(Table, EventRow.__table__)
tokens_t = cast(Table, Token.__table__)

DEFAULT_RULESET = "airraid"


# --- Roles -----------------------------------------------------------------------------------


def role_in(game_id: str, slip: str | None = None) -> Role:
    """Return the rules role of this browser in a game: referee, team:X, pilot:ORDER or public."""
    if slip:
        found = read_slip(slip)
        if found is None or found[0] != game_id:
            abort(403, description=_("This slip is not genuine, or belongs to another game."))
        return Role("pilot", found[1])
    roles = current_roles(game_id)
    if Access.REFEREE in roles:
        return REFEREE
    team = current_team(game_id)
    if team is not None:
        return Role("team", team)
    return PUBLIC


def load_state(game_id: str) -> airraid.State:
    """Return an air-raid game's current state, or 404 (also for a game of another mode)."""
    state = load_any_state(game_id)
    if not isinstance(state, airraid.State):
        abort(404, description=_("There is no such game."))
    return state


def airraid_unsaid(state: airraid.State, role: Role, game_id: str) -> dict[str, Any]:
    """Return a role's view before translation, the referee's log rows naming the device that sent each event."""
    view: dict[str, Any] = airraid.view_for(state, Role.from_str(role), now=time.time())
    if role == REFEREE:
        view["log"] = _named_log(game_id, view.get("log", []))
    return view


@dataclass
class _NamedLog:
    """The referee's log rows as a push of one game last named them."""

    generation: int  # senders.generation when they were named
    rows: list[Any]  # the core's rows
    named: list[dict[str, Any]]


# By (database, game): the log last named, for the games pushed to most recently.
_named_logs: OrderedDict[tuple[int, str], _NamedLog] = OrderedDict()
NAMED_LOGS = 256


def _named_log(game_id: str, log: list[Any]) -> list[dict[str, Any]]:
    """Return the log's rows naming the phone behind each: only rows new since the game's last push are named.

    The core keeps a log row the same object while it is unchanged, and a push adds a row or
    two at the end of the window: the rows it kept keep their names, unless a phone's name
    has been read again since (senders.generation). With a message queue, names read on
    other processes age (senders.NAMES_TTL): every row is looked up on every push, as before.
    """
    generation = senders.generation(game_id)
    key = (id(db.engine), game_id)
    known = _named_logs.get(key)
    shared = bool(current_app.config.get("REDIS_URL"))
    if known is not None and known.generation == generation and not shared:
        start = _kept_from(known.rows, log)
        if start is not None:
            fresh = log[len(known.rows) - start :]
            named = known.named[start:]
            if fresh:
                names = device_names(game_id, [row["seq"] for row in fresh])
                named = named + [_named_row(game_id, row, names.get(row["seq"])) for row in fresh]
            if senders.generation(game_id) == generation:  # no name was read again meanwhile
                _remember_log(key, _NamedLog(generation, log, named))
                return named
    names = device_names(game_id, [row["seq"] for row in log])
    named = [_named_row(game_id, row, names.get(row["seq"])) for row in log]
    _remember_log(key, _NamedLog(generation, log, named))
    return named


# How far the log's window may have moved on between two pushes for its rows to be kept.
MAX_SHIFT = 64


def _kept_from(old: list[Any], new: list[Any]) -> int | None:
    """Return where in `old` the rows `new` starts with begin (the very same objects), or None if they do not."""
    if not old:
        return 0
    if not new:
        return None
    first = new[0]
    for start in range(min(len(old), MAX_SHIFT)):
        if old[start] is first:
            kept = old[start:]
            return start if len(kept) <= len(new) and all(map(is_, kept, new)) else None
    return None


def _remember_log(key: tuple[int, str], named: _NamedLog) -> None:
    _named_logs[key] = named
    _named_logs.move_to_end(key)
    while len(_named_logs) > NAMED_LOGS:
        _named_logs.popitem(last=False)


# (game, seq) -> (the core's row, the device's name, the row naming it), the newest last.
_named_rows: OrderedDict[tuple[str, int], tuple[Any, str | None, dict[str, Any]]] = OrderedDict()
NAMED_ROWS = 20_000


def _named_row(game_id: str, row: dict[str, Any], name: str | None) -> dict[str, Any]:
    """Return the row with its device's name: a new row, never the core's, the same object while both are.

    The core reuses its row objects while they are unchanged; so does this, so that the push's
    change set sees an unchanged row at a glance.
    """
    key = (game_id, row["seq"])
    known = _named_rows.get(key)
    if known is not None and known[0] is row and type(known[1]) is type(name) and known[1] == name:
        return known[2]
    named = dict(row, device=name)
    _named_rows[key] = (row, name, named)
    if len(_named_rows) > NAMED_ROWS:
        _named_rows.popitem(last=False)
    return named


def airraid_view_of(state: airraid.State, role: Role, game_id: str) -> dict[str, Any]:
    """Return a role's view of an air-raid game, translated for the request."""
    view: dict[str, Any] = say_all(airraid_unsaid(state, role, game_id))
    return view


def device_names(game_id: str, seqs: list[int]) -> dict[int, str]:
    """Map each of these event seqs to the name of the device that sent it (kept in memory: `senders`).

    An unnamed device is a message (translated with the view), so the names are the same in every language.
    """
    found = senders.of_events(game_id, seqs)
    return {seq: name or Msg("device {id}", id=dev[:4]) for seq, (dev, name) in found.items()}


# --- Running an action -------------------------------------------------------------------------


# --- Creating games ----------------------------------------------------------------------------


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
    for key in ("sea_size", "round_seconds"):
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


@bp.route("/games/new", methods=["GET", "POST"])
@body_limit(RULESET_BODY_LIMIT)  # a whole ruleset may come with it
def new_game() -> Any:
    """Show the referee's new-game form, and create the game it posts."""
    if not is_server_referee():
        abort(403, description=_("Only the referee may create a game. Open the link printed in the terminal."))
    if request.method == "GET":
        return render_template("games/new.html", form={}, error=None, sea_sizes=sea_sizes())
    form = request.form
    teams = []
    for i in (1, 2):
        players = [p.strip() for p in form.get(f"team{i}_players", "").splitlines() if p.strip()]
        teams.append(
            {
                "name": form.get(f"team{i}_name", "").strip(),
                "colour": form.get(f"team{i}_colour", "") or None,
                "players": players,
            }
        )
    body: dict[str, Any] = {"teams": teams}
    for key in ("sea_size", "round_seconds"):
        value = form.get(key, "").strip()
        if value:
            try:
                body[key] = int(value) if key == "sea_size" else _seconds(value)
            except ValueError:
                return render_template(
                    "games/new.html",
                    form=form,
                    error=_("%(field)s must be a number.", field=key),
                    sea_sizes=sea_sizes(),
                ), 400
    upload = request.files.get("ruleset_file")
    if upload is not None and upload.filename:
        body["ruleset_toml"] = upload.read(100_001).decode("utf-8", errors="replace")
    try:
        created = create_game(body)
    except RulesError as exc:
        return render_template("games/new.html", form=form, error=say(exc.message), sea_sizes=sea_sizes()), 400
    return redirect(url_for("games.referee_page", game_id=created["game"]), code=303)


def _seconds(text: str) -> int:
    """Parse a round length written as seconds ("300") or minutes and seconds ("5:00")."""
    if ":" in text:
        minutes, _sep, seconds = text.partition(":")
        return int(minutes) * 60 + int(seconds or 0)
    return int(text)


@bp.post("/api/games")
@body_limit(RULESET_BODY_LIMIT)  # a whole ruleset may come with it
def api_create_game() -> Any:
    """Create a game (referee): teams, players, optional sea size, round length and ruleset."""
    if not is_server_referee():
        abort(403, description=_("Only the referee may create a game."))
    return jsonify(create_game(json_body())), 201


# --- Pages ---------------------------------------------------------------------------------------


def page(template: str, game_id: str, role: Role, state: airraid.State, **extra: Any) -> str:
    """Render a game page with its initial view handed to the page's script."""
    view = view_of(state, role, game_id)
    slip = extra.pop("slip", None)
    page_data = {
        "game": game_id,
        "role": role,
        "seq": state.version,
        "view": view,
        "slip": slip,
        "api": f"/api/games/{game_id}",
    }
    return render_template(
        template, game_id=game_id, role=role, view=view, seq=state.version, slip=slip, page_data=page_data, **extra
    )


@bp.get("/g/<game_id>/referee")
def referee_page(game_id: str) -> Any:
    """Show the referee's dashboard."""
    state = load_state(game_id)
    if role_in(game_id) != REFEREE:
        abort(403, description=_("Only the referee may open the dashboard."))
    links = {"watch": url_for("games.watch_page", game_id=game_id, _external=True)}
    join = {t: join_url(game_id, t, reissue=False) for t in airraid.TEAMS}
    qr = {t: qr_svg(url) for t, url in join.items() if url}
    return page("games/referee.html", game_id, REFEREE, state, links={**links, "join": join}, qr=qr)


@bp.get("/g/<game_id>/team")
def team_page(game_id: str) -> Any:
    """Show a team base's page (Sea, Orders, Live) to a joined phone."""
    state = load_state(game_id)
    team = current_team(game_id)
    if team is None:
        abort(403, description=_("This phone has not joined a team of this game. Scan the team's QR code."))
    return page("games/team.html", game_id, Role("team", team), state, team=team)


@bp.get("/g/<game_id>/watch")
def watch_page(game_id: str) -> Any:
    """Show the projector's public view: timer, scores, latest events."""
    state = load_state(game_id)
    return page("games/watch.html", game_id, PUBLIC, state)


@bp.get("/s/<slip>")
def pilot_page(slip: str) -> Any:
    """Open the order a slip names: its pilot's page, on any phone."""
    found = read_slip(slip)
    if found is None:
        abort(404, description=_("This is not a genuine order slip."))
    game_id, order_id = found
    state = load_state(game_id)
    order = state.order(order_id)
    if order is None:
        return render_template(
            "error.html",
            code=410,
            title=_("Order gone"),
            message=_("This order was removed or voided; ask your base for a new slip."),
        ), 410
    return page("games/pilot.html", game_id, Role("pilot", order_id), state, slip=slip, order=order_id)


@bp.get("/scan")
def scan_page() -> Any:
    """Scan an order slip's QR code with the camera (or type its code) to open it."""
    return render_template("games/scan.html")


@bp.get("/g/<game_id>/slips")
def slips_page(game_id: str) -> Any:
    """Show the round's order slips as an A4 print page."""
    state = load_state(game_id)
    role = role_in(game_id)
    slips = slips_of(state, game_id, role, request.args.get("round"))
    return page("games/slips.html", game_id, role, state, slips=[{**s, "qr_svg": qr_svg(s["url"], 6)} for s in slips])


def slips_of(state: airraid.State, game_id: str, role: Role, round_arg: str | None) -> list[dict[str, Any]]:
    """Return the slips a role may print for a round (default: the current one)."""
    if role.kind not in ("referee", "team"):
        abort(403, description=_("Only a team base or the referee prints slips."))
    number = state.round.number if state.round else 0
    if round_arg:
        try:
            number = int(round_arg)
        except ValueError:
            abort(400, description=_("round must be a number."))
    rows = airraid.slip_rows(state, role, number)
    for row in rows:
        row["code"] = make_slip(game_id, row["order"])
        row["url"] = url_for("games.pilot_page", slip=row["code"], _external=True)
    return rows


# --- JSON API ------------------------------------------------------------------------------------


@bp.get("/api/games/<game_id>/devices")
def api_devices(game_id: str) -> Any:
    """List the phones that joined a game's teams (referee)."""
    load_state(game_id)
    if role_in(game_id) != REFEREE:
        abort(403, description=_("Only the referee may see the devices."))
    with reading(db.engine) as conn:
        rows = conn.execute(
            select(devices_t, tokens_t.c.subject, tokens_t.c.revoked_at.label("token_revoked"))
            .join(tokens_t, tokens_t.c.id == devices_t.c.token_id)
            .where(devices_t.c.game_id == game_id)
            .order_by(devices_t.c.created_at)
        ).all()
    # A phone with a live socket is here now, whatever the time of its last request says.
    live_now = sockets.connected_devices()
    return jsonify(
        {
            "devices": [
                {
                    "id": r.id,
                    "team": r.subject,
                    "name": r.name,
                    "created_at": r.created_at,
                    "last_seen_at": r.last_seen_at,
                    "connected": r.id in live_now,
                    "revoked": r.token_revoked is not None or r.revoked_at is not None,
                }
                for r in rows
            ]
        }
    )


@bp.route("/api/games/<game_id>/devices/<device_id>", methods=["POST", "DELETE"])
def api_device(game_id: str, device_id: str) -> Any:
    """Rename (POST {name}) or revoke (DELETE) a joined phone (referee)."""
    load_state(game_id)
    if role_in(game_id) != REFEREE:
        abort(403, description=_("Only the referee may manage devices."))
    with reading(db.engine) as conn:
        exists = conn.execute(
            select(devices_t.c.id).where(devices_t.c.id == device_id, devices_t.c.game_id == game_id)
        ).scalar()
    if exists is None:
        abort(404, description=_("There is no such device in this game."))
    if request.method == "DELETE":
        revoke_device(db.engine, device_id)
        # A lost phone must stop receiving its team's sea at once, not at its next reconnect.
        sockets.disconnect_device(device_id)
        return jsonify({"ok": True, "revoked": device_id})
    name = json_body().get("name")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 40:
        raise MalformedAction("name must be text of 1 to 40 characters")
    with db.engine.begin() as conn:
        conn.execute(devices_t.update().where(devices_t.c.id == device_id).values(name=name.strip()))
    senders.renamed(game_id)
    return jsonify({"ok": True, "id": device_id, "name": name.strip()})


@bp.post("/api/games/<game_id>/teams/<team>/join-link")
def api_join_link(game_id: str, team: str) -> Any:
    """Re-issue a team's join link; the old one stops working (referee)."""
    load_state(game_id)
    if role_in(game_id) != REFEREE:
        abort(403, description=_("Only the referee may issue join links."))
    if team not in airraid.TEAMS:
        abort(404, description=_("There is no such team."))
    url = join_url(game_id, team)
    return jsonify({"url": url, "qr_svg": qr_svg(url)})


@bp.get("/api/games/<game_id>/slips")
def api_slips(game_id: str) -> Any:
    """List the slips of a round with their links (team: its own; referee: all)."""
    state = load_state(game_id)
    return jsonify({"slips": slips_of(state, game_id, role_in(game_id), request.args.get("round"))})


def listing(game_id: str, state: airraid.State) -> dict[str, str]:
    """Return a game's line in the referee's list: the teams, where the game stands, its dashboard."""
    teams = state.teams
    title = " – ".join(teams[t].name for t in airraid.TEAMS)
    rnd = state.round
    if state.phase == "setup":
        where = _("Setting up: teams place their ships")
    elif state.phase == "over":
        winner = state.outcome.winner if state.outcome else None
        ended = _("{team} won").replace("{team}", teams[winner].name) if winner in teams else _("A draw")
        where = f"{_('Game over')} · {ended}"
    elif rnd is not None and rnd.phase == "airborne":
        where = f"{_('Round %(n)s', n=rnd.number)} · {_('In the air')}"
    else:
        where = f"{_('Round %(n)s', n=rnd.number if rnd else 1)} · {_('Planning: defenders and orders')}"
    return {"title": title, "state": where, "url": url_for("games.referee_page", game_id=game_id)}


modes.register(
    modes.WebMode(
        name=airraid.MODE,
        role_in=lambda game_id, slip, _state: role_in(game_id, slip),
        view_of=airraid_view_of,
        seen_by=airraid_unsaid,
        listing=listing,
        home=lambda referee: [modes.HomeLink(url_for("games.new_game"), _("New game"), "primary")] if referee else [],
    )
)


def init_app(app: Any) -> None:
    """Register the games blueprint."""
    app.register_blueprint(bp)
