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

The board is drawn once per map on the server (`board_svg`: the real coast, the hexes, ports,
piers, forts) and put in the page; the page's script draws the pieces and highlights over it
from each view.
"""

from __future__ import annotations

import logging
import math
import time
from functools import lru_cache
from typing import Any

from apispec import APISpec
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
from markupsafe import Markup, escape
from werkzeug.exceptions import TooManyRequests

from referee.resources import resource_path
from referee.rules import vestorsjo as vs
from referee.rules.errors import IllegalAction, MalformedAction, Msg, RulesError
from referee.rules.events import PUBLIC, REFEREE, Role
from referee.rules.ruleset import read_toml
from referee.rules.vestorsjo.hexes import Edge, Hex, Vertex
from referee.store import ABANDONED
from referee.web import modes, playing
from referee.web.access import (
    Access,
    current_roles,
    current_team,
)
from referee.web.extensions import db
from referee.web.i18n import current_lang, say, say_all
from referee.web.links import qr_svg
from referee.web.modes import seats
from referee.web.openapi import json_body, refusals
from referee.web.playing import load_any_state

log = logging.getLogger(__name__)
bp = Blueprint("vestorsjo", __name__)

RULESET = "vestorsjo"
OPPONENTS = ("hotseat", "friend", "computer")
LEVELS = ("easy", "normal", "strong")
DICE = ("server", "physical")
HOST = "scania"  # the creator's side: Scania moves first
GUEST = "zealand"  # the invited friend's side, or the computer's
BOTH = "both"  # the device subject of a pass-and-play tablet: it acts as the side to move


# --- Roles and views -------------------------------------------------------------------------


def role_in(game_id: str, slip: str | None, state: vs.State) -> Role:
    """Return this browser's role in a Vestorsjø game: a side's player, the referee, or the public.

    A side's own device comes first; a pass-and-play device is the player of the side to move.
    """
    if slip:
        abort(403, description=_("This slip is not genuine, or belongs to another game."))
    side = current_team(game_id)
    if side in vs.SIDES:
        return Role("player", side)
    if side == BOTH:
        return Role("player", state.turn)
    if Access.REFEREE in current_roles(game_id):
        return REFEREE
    return PUBLIC


def view_of(state: vs.State, role: Role, game_id: str) -> dict[str, Any]:
    """Return a role's view, translated, with side, class and ruleset names in the page's language."""
    view: dict[str, Any] = say_all(vs.view_for(state, role, time.time()))
    lang = current_lang()
    rules = view["ruleset"]
    rules["title"] = rules["names"].get(lang, rules["name"])
    for cls in rules["classes"].values():
        cls["title"] = cls["names"].get(lang, cls["name"])
    for side in view["sides"].values():
        side["title"] = side["names"].get(lang, side["name"])
    for piece in view["pieces"]:
        piece["title"] = piece["names"].get(lang, piece["name"])
    view["game"] = game_id
    return view


def load_game(game_id: str) -> vs.State:
    """Return a Vestorsjø game's state, or 404 (also for a game of another mode); 410 if it expired."""
    state = load_any_state(game_id)
    if not isinstance(state, vs.State):
        abort(404, description=_("There is no such game."))
    if db.store.status_of(game_id) == ABANDONED:  # the store's mark: the log still says "playing"
        abort(410, description=expired_message())
    return state


def expired_message() -> str:
    """Say that a game expired, and why."""
    hours = current_app.config["VESTORSJO_IDLE_HOURS"]
    return str(_("This game has expired: nobody played it for %(hours)s hours. Start a new one.", hours=hours))


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


# --- The board, drawn once per map -----------------------------------------------------------

UNIT = 10.0  # SVG units per hex step (the map's unit): whole-ish numbers keep the markup short
ROOT3 = math.sqrt(3.0)
# A pointy-top hex's outline from its top corner, clockwise, relative (the same for every hex).
HEX_TAIL = "l{a} {b}v{c}l-{a} {b}-{a}-{b}v-{c}z".format(
    a=f"{UNIT / 2:g}", b=f"{UNIT / (2 * ROOT3):.2f}", c=f"{UNIT / ROOT3:.2f}"
)


def centre(h: Hex) -> tuple[float, float]:
    """Return a hex's centre in board units (the map contract's geometry, scaled by UNIT)."""
    return ((h.col + 0.5 * (h.row & 1)) * UNIT, h.row * ROOT3 / 2 * UNIT)


def corner(v: Vertex) -> tuple[float, float]:
    """Return a corner's place: the middle of its three hexes' centres."""
    points = [centre(h) for h in v.hexes]
    return (sum(p[0] for p in points) / 3, sum(p[1] for p in points) / 3)


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") or "0"


def _hex_path(hexes: list[Hex]) -> str:
    parts = []
    for h in hexes:
        x, y = centre(h)
        parts.append(f"M{_f(x)} {_f(y - UNIT / ROOT3)}{HEX_TAIL}")
    return "".join(parts)


def _label_side(board: vs.Board, port: Any) -> str:
    """Say where a port's name goes: onto its own side's land ("e" east for Scania, "w" for Zealand).

    A name is put the other way when a port stands right behind the land it would cover (Ven's two
    ports face each other across the island); a sea fort's name goes under it.
    """
    if port.fort:
        return "s"
    first, second = ("e", "w") if port.side == "scania" else ("w", "e")
    for way in (first, second):
        step = 1 if way == "e" else -1
        near, far = Hex(port.hex.col + step, port.hex.row), Hex(port.hex.col + 2 * step, port.hex.row)
        if board.at(near) != "." and far not in board.port_at:
            return way
    return first


@lru_cache(maxsize=4)
def board_svg(map_name: str) -> dict[str, Any]:
    """Return the static board of a map: its viewBox, size and the SVG markup inside <svg> (no words to translate)."""
    raw = map_data(map_name)
    board = vs.read_board({k: v for k, v in raw.items() if k != "coast"}, vs.read_ruleset(ruleset_data()))
    cols, rows = board.columns, board.rows
    left, top = -UNIT * 1.2, -UNIT * 1.2
    width = (cols + 0.5) * UNIT + UNIT * 1.4
    height = (rows - 1) * ROOT3 / 2 * UNIT + UNIT * 2.4
    out: list[str] = [
        f'<rect class="vs-water" x="{_f(left)}" y="{_f(top)}" width="{_f(width)}" height="{_f(height)}"/>'
    ]
    # The real coastline: land polygons, filled, with the coast drawn as a line.
    coast = []
    for shape in raw.get("coast", []):
        if shape.get("kind", "land") != "land":
            continue
        pts = shape.get("points", [])
        if len(pts) < 3:
            continue
        coast.append("M" + "L".join(f"{_f(x * UNIT)} {_f(y * UNIT)}" for x, y in pts) + "Z")
    out.append(f'<path class="vs-land" d="{"".join(coast)}"/>')
    sea = [h for h in board.hexes() if board.at(h) == "."]
    land = [h for h in board.hexes() if board.at(h) == "#"]
    out.append(f'<path class="vs-land-hex" d="{_hex_path(land)}"/>')
    out.append(f'<path class="vs-grid" d="{_hex_path(sea)}"/>')
    for side in vs.SIDES:
        hexes = [p.hex for p in board.ports if p.side == side]
        out.append(f'<path class="vs-port-hex side-{side}" d="{_hex_path(hexes)}"/>')
    # Piers: a thick line along the hex side; a pier corner a small square (hollow at a fort).
    piers = []
    for edge in sorted(board.pier_edges, key=Edge.format):
        (x1, y1), (x2, y2) = (corner(v) for v in edge.ends())
        piers.append(f"M{_f(x1)} {_f(y1)}L{_f(x2)} {_f(y2)}")
    out.append(f'<path class="vs-pier" d="{"".join(piers)}"/>')
    for v in sorted(board.pier_vertices, key=Vertex.format):
        x, y = corner(v)
        cls = "vs-pier-v is-fort" if board.at_fort(v.hexes) else "vs-pier-v"
        out.append(f'<rect class="{cls}" x="{_f(x - 1)}" y="{_f(y - 1)}" width="2" height="2"/>')
    # Ports: a mark at the top of the hex (★ strategic, ⚓ other, a bastion for a sea fort).
    marks = []
    for p in board.ports:
        x, y = centre(p.hex)
        y -= UNIT * 0.3
        if p.fort:
            d = f"M{_f(x)} {_f(y - 2.2)}l2.2 2.2-2.2 2.2-2.2-2.2z"
            marks.append(f'<path class="vs-fort side-{p.side}" d="{d}"/>')
        elif p.strategic:
            marks.append(
                f'<text class="vs-port-mark is-strategic side-{p.side}" x="{_f(x)}" y="{_f(y + 1.6)}">★</text>'
            )
        else:
            marks.append(f'<text class="vs-port-mark side-{p.side}" x="{_f(x)}" y="{_f(y + 1.3)}">⚓</text>')
    out.append('<g class="vs-port-marks" aria-hidden="true">' + "".join(marks) + "</g>")
    labels = []
    for p in board.ports:
        x, y = centre(p.hex)
        way = _label_side(board, p)
        lx = x + (UNIT * 0.62 if way == "e" else -UNIT * 0.62 if way == "w" else 0)
        ly = y + (UNIT * 0.95 if way == "s" else 0)
        anchor = {"e": "start", "w": "end", "s": "middle"}[way]
        cls = "vs-port-name" + (" is-strategic" if p.strategic else "") + (" is-fort" if p.fort else "")
        labels.append(
            f'<text class="{cls} side-{p.side}" x="{_f(lx)}" y="{_f(ly)}" text-anchor="{anchor}"'
            f' data-port="{escape(p.name)}">{escape(p.name)}</text>'
        )
    out.append('<g class="vs-labels" id="vs-labels">' + "".join(labels) + "</g>")
    # Column letters above row 1 and row numbers west of column A, to read a hex's name.
    coords = []
    for c in range(cols):
        coords.append(f'<text x="{_f(c * UNIT + UNIT * 0.25)}" y="{_f(-UNIT * 0.75)}">{Hex(c, 0).format()[0]}</text>')
    for r in range(0, rows, 2):
        coords.append(f'<text x="{_f(-UNIT * 0.75)}" y="{_f(r * ROOT3 / 2 * UNIT + 1.5)}">{r + 1}</text>')
    out.append('<g class="vs-coords" id="vs-coords" aria-hidden="true">' + "".join(coords) + "</g>")
    return {
        "viewbox": f"{_f(left)} {_f(top)} {_f(width)} {_f(height)}",
        "box": [left, top, width, height],
        "inner": Markup("".join(out)),
        "unit": UNIT,
    }


# --- Creating games --------------------------------------------------------------------------


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
    result = playing.play().create(vs.MODE, action, by=Role("player", HOST)).result
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


# --- Pages -----------------------------------------------------------------------------------


def page(template: str, game_id: str, role: Role, state: vs.State, **extra: Any) -> str:
    """Render a Vestorsjø page with the board and its initial view for the page's script."""
    view = view_of(state, role, game_id)
    board = board_svg(view["ruleset"]["map"])
    page_data = {
        "game": game_id,
        "role": role,
        "seq": state.version,
        "view": view,
        "api": f"/api/games/{game_id}",
        "unit": board["unit"],
        "box": board["box"],
        **extra.pop("data", {}),
    }
    return render_template(template, game_id=game_id, view=view, board=board, page_data=page_data, **extra)


def _new_game_page(form: dict[str, Any], error: str | None, status: int = 200) -> Any:
    return render_template("vestorsjo/new.html", form=form, error=error), status


@bp.route("/vestorsjo", methods=["GET", "POST"])
def new_game() -> Any:
    """Start a Vestorsjø game: pass-and-play, against a friend's device, or against the computer."""
    if request.method == "GET":
        return _new_game_page({}, None)
    form = request.form.to_dict()
    try:
        seats.check_creation_limit(vs.MODE)
    except TooManyRequests as exc:
        refused = make_response(*_new_game_page(form, exc.description, 429))
        refused.headers["Retry-After"] = str(exc.retry_after)
        return refused
    try:
        created = create_game(form)
    except RulesError as exc:
        return _new_game_page(form, say(exc.message), 400)
    response = redirect(url_for("vestorsjo.play_page", game_id=created["game"]), code=303)
    return seats.with_device_cookies(response, created["game"], created["devices"])


@bp.get("/v/<game_id>")
def play_page(game_id: str) -> Any:
    """Show a player's page; anyone else is sent to the projector view.

    Scania's device in a game against a friend shows the invite while no device holds Zealand.
    """
    state = load_game(game_id)
    role = role_in(game_id, None, state)
    if role.kind != "player":
        return redirect(url_for("vestorsjo.watch_page", game_id=game_id), code=303)
    device = current_team(game_id)
    invite = None
    if against_friend(game_id, state):
        url = seats.join_link("vestorsjo.play_page", game_id, GUEST)
        invite = {"url": url, "qr": Markup(qr_svg(url, 6)) if url else None, "joined": url is None}
    computer = state.log[0].data.get("computer") if state.log else None
    data = {"hotseat": device == BOTH, "device": device, "computer": computer}
    return page("vestorsjo/play.html", game_id, role, state, data=data, invite=invite, hotseat=device == BOTH)


@bp.post("/v/<game_id>/invite")
def invite_page(game_id: str) -> Any:
    """Scania's "new invite": the friend's old device is cut off, and Scania's page shows a new link."""
    state = load_game(game_id)
    if not against_friend(game_id, state):
        abort(403, description=_("Only Scania's device of a game against a friend may invite the friend again."))
    if state.outcome is not None:
        abort(409, description=_("The game is over."))
    seats.new_invite(game_id, GUEST)
    return redirect(url_for("vestorsjo.play_page", game_id=game_id), code=303)


@bp.get("/v/<game_id>/watch")
def watch_page(game_id: str) -> Any:
    """Show the projector: the board large, the port counters and the log, live."""
    state = load_game(game_id)
    return page("vestorsjo/watch.html", game_id, PUBLIC, state)


# --- JSON API --------------------------------------------------------------------------------


@bp.post("/api/vestorsjo/games")
def api_create() -> Any:
    """Create a game: {opponent, dice, level?, start?}; the caller's browser gets Scania (or both sides)."""
    seats.check_creation_limit(vs.MODE)
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise MalformedAction("send a JSON object (Content-Type: application/json)")
    created = create_game(body)
    response = jsonify({"game": created["game"], "links": created["links"]})
    response.status_code = 201
    return seats.with_device_cookies(response, created["game"], created["devices"])


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


def openapi_paths(spec: APISpec) -> None:
    """The Vestorsjø route (referee/web/modes/vestorsjo.py); play goes through /api/games/{game_id}/actions."""
    created = {"type": "object", "properties": {"game": {"type": "string"}, "links": {"type": "object"}}}
    new_game = {
        "type": "object",
        "properties": {
            "opponent": {"type": "string", "enum": ["hotseat", "friend", "computer"]},
            "dice": {"type": "string", "enum": ["server", "physical"]},
            "level": {"type": "string", "enum": ["easy", "normal", "strong"]},
            "start": {
                "type": "object",
                "description": "piece id -> place, off the map's start places",
                "additionalProperties": {"type": "string", "maxLength": 20},
                "maxProperties": 18,
            },
        },
    }
    spec.path(
        path="/api/vestorsjo/games",
        operations={
            "post": {
                "summary": "Vestorsjø: start a game; the caller's browser plays Scania (both sides for pass-and-play)",
                "requestBody": {"required": True, **json_body(new_game)},
                "responses": {
                    "201": {"description": "Created", **json_body(created)},
                    **refusals(400, 409),
                    "429": {"description": "Too many new games from this address"},
                },
            }
        },
    )
