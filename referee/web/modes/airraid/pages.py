"""The air raid's pages and its own routes: the new-game form, the dashboard, team, projector and pilot pages,
the slips, and the referee's phones and join links.

The API every mode shares (view, actions, events, logs) is web/api/routes.py; who a browser is and what
it sees is `views.py`; creating a game is `games.py`.
"""

from __future__ import annotations

from typing import Any, cast

from flask import Blueprint, abort, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from sqlalchemy import Table, select

from referee.push import senders, sockets
from referee.rules import airraid
from referee.rules.errors import MalformedAction, RulesError
from referee.rules.events import PUBLIC, REFEREE, Role
from referee.store import reading
from referee.store.models import Device, Token
from referee.web.access import current_team, is_server_referee, make_slip, read_slip, revoke_device
from referee.web.api.acting import view_of
from referee.web.api.routes import json_body
from referee.web.extensions import db
from referee.web.i18n import say
from referee.web.links import qr_svg
from referee.web.modes.airraid import practice, print_pack, rules_pages
from referee.web.modes.airraid.games import create_game, join_url, sea_sizes
from referee.web.modes.airraid.views import load_state, role_in
from referee.web.security import RULESET_BODY_LIMIT, body_limit

bp = Blueprint("games", __name__)
devices_t = cast(Table, Device.__table__)
tokens_t = cast(Table, Token.__table__)


# --- Creating games ----------------------------------------------------------------------------


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
    pace = practice.players().paces.get(game_id, 0) if state.practice else None
    return page("games/referee.html", game_id, REFEREE, state, links={**links, "join": join}, qr=qr, pace=pace)


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
    # The pilot's card of the rules, as an address to type: a second QR code on a slip would be
    # scanned instead of the order's now and then.
    rules_url = url_for("rules_pages.rules_card", card="pilot", game=game_id, _external=True)
    slips = [{**s, "qr_svg": qr_svg(s["url"], 6)} for s in slips]
    rules_text = rules_url.split("://", 1)[-1]  # printed: the scheme is what a browser adds by itself
    return page("games/slips.html", game_id, role, state, slips=slips, rules_url=rules_text)


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


def init_app(app: Any) -> None:
    """Register the games blueprint, the print pack's and the rules pages'."""
    app.register_blueprint(bp)
    app.register_blueprint(print_pack.bp)
    app.register_blueprint(rules_pages.bp)
    practice.init_app(app)
