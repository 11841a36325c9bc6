"""Role matrix: every HTTP route and every Socket.IO event, driven as every role, in the airborne phase.

The routes and events are read from the app itself (`app.url_map`, `socketio.server.handlers`),
and each must have a row in ROUTES / EVENTS below: a new route or event fails
`test_every_route_and_event_has_an_expectation` until its author decides who may use it.

For each (route or event, role) the suite checks: the status (or ack) is the expected allow
or refusal (never a 5xx); a refusal changes nothing (events, games, devices, tokens); and no
secret of another side reaches the role, neither in the response nor in any socket message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from referee.store.models import Device, EventRow, Game, Token
from referee.web.extensions import db, engine_of, socketio

from ..airraid_helpers import SEA_7, ships_json
from ..battleship_helpers import ruleset_raw
from .screens import Pushes, Screen
from .test_games_web import act, join, referee_client

# --- The game every row is driven against ----------------------------------------------------

# Team B's sea is team A's turned half a turn, so each side has squares the other lacks.
SEA_B = "\n".join(row[::-1] for row in SEA_7.strip().splitlines()[::-1])
PLAYERS = {"A": ["Ann", "Ada", "Abe", "Amy"], "B": ["Bob", "Bea", "Ben", "Bo"]}
TARGET_OF_A = "E2"  # Ada's bomber, on B's sea (water there, and no square of A's)
TARGET_OF_B = "C4"  # Bob's bomber, on A's sea (A's cruiser)


def squares(sea: str) -> set[str]:
    rows = sea.strip().splitlines()
    return {f"{chr(65 + c)}{r + 1}" for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."}


SQUARES = {"A": squares(SEA_7), "B": squares(SEA_B)}
TARGETS = {"A": {TARGET_OF_A}, "B": {TARGET_OF_B}}
PILOTS = {"A": {"Ann", "Ada", "Amy"}, "B": {"Bob", "Bea", "Bo"}}  # order pilots and the defender

ROLES = ["public", "stranger", "revoked", "tampered", "team_b", "team_a", "pilot_a", "referee"]
"""Run in this order: the roles that may change the game come last."""

VIEW_ROLE = {
    "referee": "referee",
    "team_a": "team:A",
    "team_b": "team:B",
    "pilot_a": "pilot:1A1",
    "public": "public",
    "stranger": "public",
    "revoked": "public",
}


def hidden_from(role: str) -> set[str]:
    """Return the strings a role must never receive (another side's fleet, targets, pilots)."""
    every = SQUARES["A"] | SQUARES["B"] | TARGETS["A"] | TARGETS["B"] | PILOTS["A"] | PILOTS["B"]
    if role == "referee":
        return set()
    if role == "team_a":
        return (SQUARES["B"] | TARGETS["B"] | PILOTS["B"]) - (SQUARES["A"] | TARGETS["A"] | PILOTS["A"])
    if role == "team_b":
        return (SQUARES["A"] | TARGETS["A"] | PILOTS["A"]) - (SQUARES["B"] | TARGETS["B"] | PILOTS["B"])
    if role == "pilot_a":  # Ann flies fighter 1A1: she knows her own name, no sea, no target
        return every - {"Ann"}
    return every


@dataclass
class Ctx:
    app: Flask
    gid: str
    clients: dict[str, FlaskClient]
    slips: dict[str, str]  # order id -> slip code
    spare_device: str
    other_gid: str
    bs_gid: str  # a Battleship game, placing: team_a's client is its player A, team_b's its player B
    vs_gid: str  # a Vestorsjø game against a friend: team_a's client plays Scania, team_b's Zealand
    sockets: dict[str, Any] = field(default_factory=dict)

    def slip_of(self, role: str) -> str | None:
        """The slip a role sends along (as ?slip= or in a body)."""
        if role == "pilot_a":
            return self.slips["1A1"]
        if role == "tampered":
            code = self.slips["1A1"]
            head, sig = code.rsplit(".", 1)
            return f"{head}.{sig[::-1] if sig[::-1] != sig else sig[1:] + sig[0]}"
        return None

    def path_slip(self, role: str) -> str:
        """The slip a role opens as /s/<slip>: its own (referee: any), else a forged one."""
        own = {"referee": "1A1", "team_a": "1A2", "team_b": "1B1", "pilot_a": "1A1"}
        if role in own:
            return self.slips[own[role]]
        return self.slip_of("tampered")  # type: ignore[return-value]


def create(referee: FlaskClient, players: dict[str, list[str]]) -> dict[str, Any]:
    response = referee.post(
        "/api/games",
        json={"teams": [{"name": "Eagles", "players": players["A"]}, {"name": "Sharks", "players": players["B"]}]},
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def ok(response: Any) -> Any:
    assert response.status_code == 200, response.get_json()
    return response.get_json()


@pytest.fixture
def ctx(app: Flask) -> Ctx:
    referee = referee_client(app)
    created = create(referee, PLAYERS)
    gid = created["game"]
    team_a = join(app, created["links"]["join"]["A"])
    team_b = join(app, created["links"]["join"]["B"])
    join(app, created["links"]["join"]["A"])  # a third phone of A: the spare device
    revoked = join(app, created["links"]["join"]["A"])
    other = create(referee, {"A": ["Xia", "Xu", "Xo", "Xe"], "B": ["Yan", "Yo", "Ya", "Ye"]})
    stranger = join(app, other["links"]["join"]["A"])

    devices = ok(referee.get(f"/api/games/{gid}/devices"))["devices"]
    assert [d["team"] for d in devices] == ["A", "B", "A", "A"]
    ok(referee.delete(f"/api/games/{gid}/devices/{devices[3]['id']}"))

    ok(act(team_a, gid, {"type": "lock_sea", "team": "A", "ships": ships_json(SEA_7)}))
    ok(act(team_b, gid, {"type": "lock_sea", "team": "B", "ships": ships_json(SEA_B)}))
    ok(act(referee, gid, {"type": "start_game"}))
    ok(act(team_a, gid, {"type": "set_defender", "team": "A", "pilot": "Amy"}))
    ok(act(team_b, gid, {"type": "set_defender", "team": "B", "pilot": "Bo"}))
    for team, client, order in (
        ("A", team_a, {"pilot": "Ann", "kind": "fighter", "corridor": "upper"}),
        ("A", team_a, {"pilot": "Ada", "kind": "bomber", "corridor": "lower", "target": TARGET_OF_A}),
        ("B", team_b, {"pilot": "Bob", "kind": "bomber", "corridor": "upper", "target": TARGET_OF_B}),
        ("B", team_b, {"pilot": "Bea", "kind": "fighter", "corridor": "lower"}),
    ):
        ok(act(client, gid, {"type": "add_order", "team": team, "ship": "A", **order}))
    ok(act(referee, gid, {"type": "start_round"}))
    slips = {
        s["order"]: s["url"].rsplit("/s/", 1)[1]
        for c in (team_a, team_b)
        for s in ok(c.get(f"/api/games/{gid}/slips"))["slips"]
    }
    assert sorted(slips) == ["1A1", "1A2", "1B1", "1B2"]

    # The Battleship routes are driven against a Battleship game the two team phones play.
    made = team_a.post(
        "/api/battleship/games",
        json={"ruleset": "sjoslag", "opponent": "friend", "name": "Pia", "opponent_name": "Per", "first": "A"},
    )
    assert made.status_code == 201, made.get_json()
    bs_gid = made.get_json()["game"]
    assert team_b.get(made.get_json()["links"]["join"]["B"].split("localhost", 1)[1]).status_code == 303

    # The Vestorsjø routes, against a game the two team phones play (A is Scania, B took the invite).
    made = team_a.post("/api/vestorsjo/games", json={"opponent": "friend", "dice": "server"})
    assert made.status_code == 201, made.get_json()
    vs_gid = made.get_json()["game"]
    assert team_b.get(made.get_json()["links"]["join"]["zealand"].split("localhost", 1)[1]).status_code == 303

    clients = {
        "referee": referee,
        "team_a": team_a,
        "team_b": team_b,
        "pilot_a": app.test_client(),
        "public": app.test_client(),
        "stranger": stranger,
        "revoked": revoked,
        "tampered": app.test_client(),
    }
    return Ctx(app, gid, clients, slips, devices[2]["id"], other["game"], bs_gid, vs_gid)


# --- Secrets and side effects ------------------------------------------------------------------

# Keys whose values are plane labels ("A1", "A4" = team A's first and fourth order of the round), not squares.
LABEL_KEYS = frozenset({"label", "a_label", "b_label", "reason"})
# Named on purpose, to the team that lost the plane: it is handed to this pilot as a trophy.
NAME_KEYS = frozenset({"shot_down_by", "shot_down.by"})


def leaves(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Yield (key, string) for every string in a JSON value, dict keys included.

    A field of a narration note is keyed "<note type>.<field>" as well, so that one field of
    one kind of note can be allowed.
    """
    if isinstance(value, dict):
        kind = value.get("type") if isinstance(value.get("type"), str) else None
        for k, v in value.items():
            yield key, str(k)
            yield from leaves(v, f"{kind}.{k}" if kind and isinstance(v, str) else str(k))
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v, key)
    elif isinstance(value, str):
        yield key, value


def unambiguous(secret: str) -> bool:
    """A square of column C and beyond, or a name, can be searched for in raw text."""
    return not re.fullmatch(r"[AB]\d+", secret)


PAGE_DATA = re.compile(r'<script type="application/json" id="page-data">(.*?)</script>', re.S)
RANDOM_ID = re.compile(r"(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{12,}")


def leaks(role: str, text: str, *, squares_too: bool = True) -> set[str]:
    """Return the secrets hidden from `role` that appear in a body (JSON, page or CSV).

    JSON (a body, a page's page-data, a socket message) is walked field by field; the rest of
    a page (its rendered HTML) and other text is searched for the secrets that are not plane labels.
    """
    hidden = hidden_from(role)
    if not squares_too:
        hidden = {s for s in hidden if not re.fullmatch(r"[A-Z]\d+", s)}
    try:
        docs, rest = [json.loads(text)], ""
    except ValueError:
        docs, rest = [json.loads(m) for m in PAGE_DATA.findall(text)], PAGE_DATA.sub("", text)
    found = set()
    for doc in docs:
        for key, value in leaves(doc):
            if key.rpartition(".")[2] not in LABEL_KEYS and key not in NAME_KEYS and value in hidden:
                found.add(f"{key}={value}")
    # Random ids and tokens (base64url, 12 characters and more, lower case among them) can spell
    # a square by chance ("/b/D7-xK…"): they go before the text is searched.
    rest = RANDOM_ID.sub(" ", rest)
    for secret in filter(unambiguous, hidden):
        if re.search(rf"(?<![A-Za-z0-9_#-]){re.escape(secret)}(?![A-Za-z0-9])", rest):
            found.add(secret)
    return found


def snapshot(ctx: Ctx) -> Any:
    """Everything a request could change: events, games, devices, tokens (not last-seen times)."""
    dev, tok = Device.__table__, Token.__table__
    with ctx.app.app_context(), engine_of(ctx.app).connect() as conn:
        return (
            db.store.count_events(ctx.gid),
            conn.execute(select(func.count()).select_from(EventRow.__table__)).scalar(),
            conn.execute(select(func.count()).select_from(Game.__table__)).scalar(),
            conn.execute(select(dev.c.id, dev.c.name, dev.c.revoked_at).order_by(dev.c.id)).all(),
            conn.execute(select(tok.c.id, tok.c.revoked_at).order_by(tok.c.id)).all(),
        )


# --- HTTP: the expectation table -------------------------------------------------------------

EVERYONE = dict.fromkeys(ROLES, 200)


def only(allowed: dict[str, int], refused: int = 403) -> dict[str, int]:
    return {r: allowed.get(r, refused) for r in ROLES}


REPORT = {"type": "report_dogfight", "a": "1A1", "b": "1B1", "throws": [{"winner": "A"}]}

ROUTES: dict[tuple[str, str], dict[str, int]] = {
    ("/", "GET"): EVERYONE,
    ("/api/health", "GET"): EVERYONE,
    # Playing without a router: anyone on the network may ask how, and show that a phone gets there.
    ("/help/network", "GET"): EVERYONE,
    # The rules are the same for both teams: anyone may read them.
    ("/rules", "GET"): EVERYONE,
    ("/rules/<card>", "GET"): EVERYONE,
    ("/help/reach", "GET"): EVERYONE,
    ("/api/reach", "GET"): EVERYONE,
    ("/api/openapi.json", "GET"): EVERYONE,
    ("/lang/<code>", "GET"): dict.fromkeys(ROLES, 303),
    ("/scan", "GET"): EVERYONE,
    ("/games/new", "GET"): only({"referee": 200}),
    ("/games/new", "POST"): only({"referee": 303}),
    ("/games/practice", "GET"): only({"referee": 200}),
    ("/games/practice", "POST"): only({"referee": 303}),
    # The matrix's game is no practice game: the referee is refused with 409, everyone else 403.
    ("/api/games/<game_id>/practice", "POST"): only({"referee": 409}),
    # The list of games is the server referee's; the matrix's game is no practice game, so it
    # may be archived and put back but never deleted.
    ("/games/<game_id>/archive", "POST"): only({"referee": 303}),
    ("/games/<game_id>/restore", "POST"): only({"referee": 303}),
    ("/games/<game_id>/delete", "GET"): only({"referee": 409}),
    ("/games/<game_id>/delete", "POST"): only({"referee": 409}),
    ("/api/games", "POST"): only({"referee": 201}),
    # Any registered mode, by its create_game action: the referee only (the probe makes a Zeeslag game).
    ("/api/modes/<mode>/games", "POST"): only({"referee": 201}),
    ("/g/<game_id>/referee", "GET"): only({"referee": 200}),
    ("/g/<game_id>/print", "GET"): only({"referee": 200}),
    ("/g/<game_id>/team", "GET"): only({"team_a": 200, "team_b": 200}),
    ("/g/<game_id>/watch", "GET"): EVERYONE,
    ("/g/<game_id>/slips", "GET"): only({"referee": 200, "team_a": 200, "team_b": 200}),
    # A slip is a bearer code: each role opens its own one (the referee any); others hold a forged one.
    ("/s/<slip>", "GET"): only({"referee": 200, "team_a": 200, "team_b": 200, "pilot_a": 200}, 404),
    ("/api/games/<game_id>/view", "GET"): {**EVERYONE, "tampered": 403},
    # The probe is the report of dogfight 1A1–1B1: Ann's slip or the referee only.
    ("/api/games/<game_id>/actions", "POST"): only({"referee": 200, "pilot_a": 200}),
    ("/api/games/<game_id>/events", "GET"): only({"referee": 200}),
    ("/api/games/<game_id>/sea/check", "POST"): only({"referee": 200, "team_a": 200}),
    ("/api/games/<game_id>/sea/random", "POST"): only({"referee": 200, "team_a": 200}),
    ("/api/games/<game_id>/devices", "GET"): only({"referee": 200}),
    ("/api/games/<game_id>/devices/<device_id>", "POST"): only({"referee": 200}),
    ("/api/games/<game_id>/devices/<device_id>", "DELETE"): only({"referee": 200}),
    ("/api/games/<game_id>/teams/<team>/join-link", "POST"): only({"referee": 200}),
    ("/api/games/<game_id>/slips", "GET"): only({"referee": 200, "team_a": 200, "team_b": 200}),
    ("/api/games/<game_id>/log.json", "GET"): only({"referee": 200}),
    ("/api/games/<game_id>/log.csv", "GET"): only({"referee": 200}),
    # The score sheet holds both fleets and every order: the log's access (referee, everyone once over).
    ("/g/<game_id>/sheet", "GET"): only({"referee": 200}),
    ("/api/games/<game_id>/pilots.csv", "GET"): only({"referee": 200}),
    ("/api/games/<game_id>/events.csv", "GET"): only({"referee": 200}),
    # Battleship (ctx.bs_gid, placing). Anyone at the club may start a game; a player's page is its
    # two players' own (anyone else is sent on to the projector view).
    ("/battleship", "GET"): EVERYONE,
    ("/battleship", "POST"): dict.fromkeys(ROLES, 303),
    ("/battleship/scores", "GET"): EVERYONE,
    ("/b/<game_id>", "GET"): only({"team_a": 200, "team_b": 200}, 303),
    ("/b/<game_id>/watch", "GET"): EVERYONE,
    ("/b/<game_id>/rematch", "POST"): only({"team_a": 409, "team_b": 409}),
    # "New invite": player A only (it cuts player B's phone off, then A's page shows a fresh link).
    ("/b/<game_id>/invite", "POST"): only({"team_a": 303}),
    ("/api/battleship/games", "POST"): dict.fromkeys(ROLES, 201),
    ("/api/battleship/games/<game_id>/rematch", "POST"): only({"team_a": 409, "team_b": 409}),
    ("/api/battleship/scores", "GET"): EVERYONE,
    # Vestorsjø (ctx.vs_gid): anyone may start a game; a player's page is its two players' own.
    ("/vestorsjo", "GET"): EVERYONE,
    ("/vestorsjo", "POST"): dict.fromkeys(ROLES, 303),
    ("/api/vestorsjo/games", "POST"): dict.fromkeys(ROLES, 201),
    ("/v/<game_id>", "GET"): only({"team_a": 200, "team_b": 200}, 303),
    ("/v/<game_id>/watch", "GET"): EVERYONE,
    # "New invite": Scania's device only (it cuts Zealand's phone off).
    ("/v/<game_id>/invite", "POST"): only({"team_a": 303}),
}

# Routes whose squares are not the game's: a fresh random fleet (not stored), the static API document,
# the Vestorsjø pages (their "D7" is a hex of the Öresund map, which everyone sees).
NO_GAME_SQUARES = {
    ("/api/games/<game_id>/sea/random", "POST"),
    ("/api/openapi.json", "GET"),
    ("/vestorsjo", "GET"),
    ("/vestorsjo", "POST"),
    ("/api/vestorsjo/games", "POST"),
    ("/v/<game_id>", "GET"),
    ("/v/<game_id>/watch", "GET"),
    ("/v/<game_id>/invite", "POST"),
}

# Socket events: "ok" = ack {ok: true}; else the ack's error code. `disconnect` has no ack.
EVENTS: dict[str, dict[str, str]] = {
    "time_ping": dict.fromkeys(ROLES, "ok"),
    "resync": {**dict.fromkeys(ROLES, "ok"), "tampered": "forbidden"},
    "action": {r: "ok" if r in ("referee", "pilot_a") else "forbidden|not_your_turn" for r in ROLES},
    "disconnect": dict.fromkeys(ROLES, "ok"),
    # Only a socket that watches as the public (a projector) says whether its sound is on.
    "sound": {r: "ok" if VIEW_ROLE.get(r) == "public" else "malformed" for r in ROLES},
    # The catch-all of unknown event names, and the event junk packets become (realtime.TextPacket).
    "*": dict.fromkeys(ROLES, "malformed"),
    "malformed_packet": dict.fromkeys(ROLES, "malformed"),
}


def app_routes(app: Flask) -> set[tuple[str, str]]:
    return {
        (rule.rule, method)
        for rule in app.url_map.iter_rules()
        # socket_io: Socket.IO's own path, answered by the engine.io middleware, never by Flask.
        if rule.endpoint not in ("static", "socket_io")
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }


def app_events() -> set[str]:
    return set(socketio.server.handlers["/"])


def test_every_route_and_event_has_an_expectation(app: Flask) -> None:
    routes = app_routes(app)
    assert len(routes) >= 20 and ("/api/games/<game_id>/actions", "POST") in routes
    assert not routes - set(ROUTES), (
        f"routes without a row in ROUTES (decide who may use them): {sorted(routes - set(ROUTES))}"
    )
    assert not set(ROUTES) - routes, f"rows of ROUTES for routes that are gone: {sorted(set(ROUTES) - routes)}"
    events = app_events()
    assert {"resync", "action"} <= events
    assert not events - set(EVENTS), f"socket events without a row in EVENTS: {sorted(events - set(EVENTS))}"
    assert not set(EVENTS) - events, f"rows of EVENTS for events that are gone: {sorted(set(EVENTS) - events)}"


def request_for(ctx: Ctx, rule: str, method: str, role: str) -> tuple[str, dict[str, Any]]:
    """Fill a route's path and body for one role."""
    battleship = rule.startswith("/b/") or "battleship" in rule
    vestorsjo = rule.startswith("/v/") or "vestorsjo" in rule
    values = {
        "game_id": ctx.bs_gid if battleship else ctx.vs_gid if vestorsjo else ctx.gid,
        "team": "A",
        "device_id": ctx.spare_device,
        "slip": ctx.path_slip(role),
        "code": "en",
        "card": "pilot",
        "mode": "battleship",
    }
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values[m.group(1)], rule)
    slip = ctx.slip_of(role)
    kwargs: dict[str, Any] = {}
    if method == "GET" and slip and "/api/" in rule:
        kwargs["query_string"] = {"slip": slip}
    if method in ("POST", "DELETE") and rule.startswith("/api/"):
        body: dict[str, Any] = {}
        if rule.endswith("/actions"):
            body = {"action": REPORT, "client_id": f"probe-{role}"}
        elif rule.endswith("/sea/check"):
            body = {"player": "A", "ships": []} if battleship else {"team": "A", "ships": ships_json(SEA_7)}
        elif rule.endswith("/sea/random"):
            body = {"player": "A"} if battleship else {"team": "A"}
        elif rule == "/api/vestorsjo/games":
            body = {"opponent": "computer", "level": "easy", "dice": "server"}
        elif rule == "/api/battleship/games":
            body = {"ruleset": "zeeslag", "opponent": "computer", "level": "easy", "name": "Zed"}
        elif rule.endswith("/<device_id>") and method == "POST":
            body = {"name": f"renamed by {role}"}
        elif rule == "/api/modes/<mode>/games":
            body = {"action": {"ruleset": ruleset_raw("zeeslag"), "players": {"A": "Zed", "B": "Zoe"}}}
        elif rule == "/api/games":
            body = {
                "teams": [
                    {"name": "Owls", "players": ["Oz", "Ola", "Oli", "Ode"]},
                    {"name": "Rays", "players": ["Ra", "Ro", "Ri", "Ru"]},
                ]
            }
        if slip:
            body["slip"] = slip
        if method == "POST" or body:
            kwargs["json"] = body
    if battleship and method == "POST" and not rule.startswith("/api/"):
        # The lobby's and end screen's forms carry the session's CSRF token, as a browser would.
        lobby = ctx.clients[role].get("/battleship").get_data(as_text=True)
        token = re.search(r'name="csrf_token" value="([^"]+)"', lobby).group(1)  # type: ignore[union-attr]
        kwargs["data"] = {
            "csrf_token": token,
            "ruleset": "zeeslag",
            "opponent": "computer",
            "level": "easy",
            "name": "Zed",
        }
    if vestorsjo and method == "POST" and not rule.startswith("/api/"):
        page = ctx.clients[role].get("/vestorsjo").get_data(as_text=True)
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        kwargs["data"] = {"csrf_token": token, "opponent": "computer", "level": "easy", "dice": "server"}
    if rule == "/games/new" and method == "POST":
        form = {
            "team1_name": "Owls",
            "team1_players": "Oz\nOla\nOli\nOde",
            "team2_name": "Rays",
            "team2_players": "Ra\nRo\nRi\nRu",
        }
        if role == "referee":
            page = ctx.clients[role].get("/games/new").get_data(as_text=True)
            form["csrf_token"] = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        kwargs["data"] = form
    if rule.startswith("/games/<game_id>/") and method == "POST" and role == "referee":
        page = ctx.clients[role].get("/").get_data(as_text=True)
        kwargs["data"] = {"csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)}  # type: ignore[union-attr]
    if rule == "/games/practice" and method == "POST" and role == "referee":
        page = ctx.clients[role].get("/games/practice").get_data(as_text=True)
        kwargs["data"] = {"csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)}  # type: ignore[union-attr]
    return path, kwargs


@pytest.mark.parametrize("route", sorted(ROUTES), ids=lambda r: f"{r[1]} {r[0]}")
def test_route_as_every_role(ctx: Ctx, route: tuple[str, str]) -> None:
    rule, method = route
    expected = ROUTES[route]
    for role in ROLES:
        path, kwargs = request_for(ctx, rule, method, role)
        before = snapshot(ctx)
        response = ctx.clients[role].open(path, method=method, **kwargs)
        status = response.status_code
        where = f"{method} {path} as {role}"
        assert status < 500, f"{where}: {status}"
        assert status == expected[role], (
            f"{where}: {status}, expected {expected[role]}: {response.get_data(as_text=True)[:300]}"
        )
        if status >= 400 or method == "GET":
            assert snapshot(ctx) == before, f"{where} changed something"
        found = leaks(role, response.get_data(as_text=True), squares_too=route not in NO_GAME_SQUARES)
        found |= leaks(role, json.dumps(response.headers.get("Location", "")))
        assert not found, f"{where} leaks {sorted(found)}"
        if rule == "/api/games/<game_id>/view" and status == 200:
            assert response.get_json()["role"] == VIEW_ROLE[role], where


# --- Socket.IO -----------------------------------------------------------------------------------


def payload(ctx: Ctx, event: str, role: str) -> Any:
    slip = ctx.slip_of(role)
    data: dict[str, Any] = {"game": ctx.gid}
    if event == "time_ping":
        return {"t0": 1}
    if event == "resync":
        data["seq"] = 0
    if event == "action":
        data.update(action=REPORT, client_id=f"sock-{role}")
    if event == "sound":
        data["on"] = True
    if slip:
        data["slip"] = slip
    return data


def socket_messages(sock: Any) -> list[Any]:
    return [{"name": m["name"], "args": m["args"]} for m in sock.get_received()]


@pytest.mark.parametrize("event", sorted(EVENTS))
def test_event_as_every_role(ctx: Ctx, event: str, monkeypatch: pytest.MonkeyPatch) -> None:
    app, gid = ctx.app, ctx.gid
    pushes = Pushes(monkeypatch)
    sockets = {role: socketio.test_client(app, flask_test_client=ctx.clients[role]) for role in ROLES}
    received: dict[str, list[Any]] = {role: [] for role in ROLES}
    screens: dict[str, Screen] = {}
    # Every socket listens as its role first (resync), so every push below reaches it.
    for role, sock in sockets.items():
        ack = sock.emit("resync", payload(ctx, "resync", role), callback=True)
        assert ack["ok"] == (role != "tampered"), (role, ack)
        if ack["ok"]:
            assert ack["view"]["role"] == VIEW_ROLE[role], role
            screens[role] = Screen(sock, gid, pushes, ack)
        received[role].append(ack)
    try:
        for role in ROLES:
            sock = sockets[role]
            before = snapshot(ctx)
            if event == "disconnect":
                sock.disconnect()
                assert not sock.is_connected()
                ack: Any = {"ok": True}
            else:
                ack = sock.emit(event, payload(ctx, event, role), callback=True)
            where = f"{event} as {role}"
            assert isinstance(ack, dict), f"{where}: {ack!r}"
            received[role].append(ack)
            want = EVENTS[event][role]
            if want == "ok":
                assert ack.get("ok", "server_time" in ack) is True, f"{where}: {ack}"
            else:
                assert ack.get("ok") is False and ack.get("error") in want.split("|"), (
                    f"{where}: {ack}, expected {want}"
                )
                assert snapshot(ctx) == before, f"{where} changed something"
            if event == "resync" and ack.get("ok"):
                assert ack["view"]["role"] == VIEW_ROLE[role], where
        # Two more accepted changes, so that every socket still connected gets a pushed view, and
        # the second at least as a change set (a room's first push after a start is its whole view).
        for kind in ("pause_timer", "resume_timer"):
            ok(ctx.clients["referee"].post(f"/api/games/{gid}/actions", json={"action": {"type": kind}}))
        for role, sock in sockets.items():
            if sock.is_connected():
                pushed = socket_messages(sock)
                if event != "disconnect" and role != "tampered":
                    assert any(m["name"] in ("view", "changes") for m in pushed), f"{role} got no pushed view"
                    # Each change set, applied to the view the page held, gives the role's whole view.
                    screens[role].take(pushed)
                received[role].extend(pushed)
        if event != "disconnect":  # (every socket is gone then)
            assert "changes" in pushes.kinds, "no change set was pushed: the checks above saw whole views only"
        for role, docs in received.items():
            found = leaks(role, json.dumps(docs))
            assert not found, f"socket {event}: {role} received {sorted(found)}"
    finally:
        for sock in sockets.values():
            if sock.is_connected():
                sock.disconnect()


def test_matrix_size() -> None:
    """The matrix this file drives (kept here so a shrinking table is visible)."""
    assert len(ROLES) == 8
    assert len(ROUTES) * len(ROLES) >= 200 and len(EVENTS) * len(ROLES) == 56


# --- Refusals that name an order: one answer for every order the caller is not shown ---------------
#
# Order ids are easy to guess (1B1, 1B2, ...). A team or pilot may name only the orders its own view
# shows it; for any other id, existing or not, the answer must be the same bytes, over HTTP and over
# Socket.IO, and must not change with what the other team does.


@dataclass
class Probe:
    app: Flask
    gid: str
    referee: FlaskClient
    team_a: FlaskClient
    team_b: FlaskClient
    pilot_a: FlaskClient
    slip_a: str  # Ann's slip: fighter 1A1, upper corridor


def probe_game(app: Flask, *, start: bool) -> Probe:
    """A game where team A is shown 1B1 (meets Ann next) and 1B3 (waits at A's base), never 1B2."""
    referee = referee_client(app)
    created = create(referee, PLAYERS)
    gid = created["game"]
    team_a = join(app, created["links"]["join"]["A"])
    team_b = join(app, created["links"]["join"]["B"])
    ok(act(team_a, gid, {"type": "lock_sea", "team": "A", "ships": ships_json(SEA_7)}))
    ok(act(team_b, gid, {"type": "lock_sea", "team": "B", "ships": ships_json(SEA_B)}))
    ok(act(referee, gid, {"type": "start_game"}))
    ok(act(team_a, gid, {"type": "set_defender", "team": "A", "pilot": "Amy"}))
    ok(act(team_b, gid, {"type": "set_defender", "team": "B", "pilot": "Bo"}))
    for team, client, order in (
        ("A", team_a, {"pilot": "Ann", "kind": "fighter", "corridor": "upper"}),  # 1A1: meets 1B1
        ("A", team_a, {"pilot": "Ada", "kind": "bomber", "corridor": "lower", "target": TARGET_OF_A}),  # 1A2
        ("B", team_b, {"pilot": "Bob", "kind": "bomber", "corridor": "upper", "target": TARGET_OF_B}),  # 1B1
        ("B", team_b, {"pilot": "Bea", "kind": "fighter", "corridor": "middle"}),  # 1B2: meets nobody, lands
        ("B", team_b, {"pilot": "Ben", "kind": "bomber", "corridor": "middle", "target": "A1"}),  # 1B3: at A's base
    ):
        ok(act(client, gid, {"type": "add_order", "team": team, "ship": "A", **order}))
    if start:
        ok(act(referee, gid, {"type": "start_round"}))
    slips = {s["order"]: s["url"].rsplit("/s/", 1)[1] for s in ok(team_a.get(f"/api/games/{gid}/slips"))["slips"]}
    return Probe(app, gid, referee, team_a, team_b, app.test_client(), slips["1A1"])


def answers(probe: Probe, client: FlaskClient, action: dict[str, Any], slip: str | None = None) -> tuple[Any, ...]:
    """The HTTP answer (status, bytes) and the socket ack of one action, after checking it changed nothing."""
    before = snapshot_of(probe)
    body: dict[str, Any] = {"action": action}
    if slip:
        body["slip"] = slip
    response = client.post(f"/api/games/{probe.gid}/actions", json=body)
    sock = socketio.test_client(probe.app, flask_test_client=client)
    try:
        ack = sock.emit(
            "action", {"game": probe.gid, "action": action, **({"slip": slip} if slip else {})}, callback=True
        )
    finally:
        sock.disconnect()
    assert response.status_code in (400, 403, 409), (action, response.status_code, response.get_data(as_text=True))
    assert isinstance(ack, dict) and ack.get("ok") is False, (action, ack)
    assert snapshot_of(probe) == before, f"{action} changed the game"
    return response.status_code, response.get_data(), json.dumps(ack, sort_keys=True)


def snapshot_of(probe: Probe) -> int:
    with probe.app.app_context():
        return db.store.count_events(probe.gid)


# (caller, action with X where the probed id goes): A's phone and Ann's slip, naming ids A is not shown.
AIRBORNE_PROBES: list[tuple[str, dict[str, Any]]] = [
    ("team_a", {"type": "announce_bombing", "order": "X"}),
    ("team_a", {"type": "report_bombing", "order": "X", "throws": [{"winner": "ship"}]}),
    ("team_a", {"type": "report_dogfight", "a": "1A1", "b": "X", "throws": [{"winner": "A"}]}),
    ("team_a", {"type": "confirm_dogfight", "a": "1A1", "b": "X"}),
    ("pilot_a", {"type": "report_dogfight", "a": "1A1", "b": "X", "throws": [{"winner": "A"}]}),
    ("pilot_a", {"type": "report_dogfight", "a": "X", "b": "1A1", "throws": [{"winner": "A"}]}),
    ("pilot_a", {"type": "confirm_dogfight", "a": "1A1", "b": "X"}),
    ("pilot_a", {"type": "announce_bombing", "order": "X"}),
    ("pilot_a", {"type": "report_bombing", "order": "X", "throws": [{"winner": "bomber"}]}),
]
# Shown to nobody on A's side: B's landed fighter 1B2 (to Ann also 1B3 and A's own 1A2); ids no order has.
UNSEEN = {"team_a": ["1B2"], "pilot_a": ["1B2", "1B3", "1A2"]}
MISSING = ["1B4", "1B9", "2B1", "1A9"]


def fill(action: dict[str, Any], order_id: str) -> dict[str, Any]:
    return {k: order_id if v == "X" else v for k, v in action.items()}


@pytest.mark.parametrize("caller,action", AIRBORNE_PROBES, ids=lambda v: v if isinstance(v, str) else v["type"])
def test_probing_unseen_orders_gets_one_answer_in_the_air(app: Flask, caller: str, action: dict[str, Any]) -> None:
    probe = probe_game(app, start=True)
    client = probe.team_a if caller == "team_a" else probe.pilot_a
    slip = probe.slip_a if caller == "pilot_a" else None
    got = {oid: answers(probe, client, fill(action, oid), slip) for oid in UNSEEN[caller] + MISSING}
    assert len(set(got.values())) == 1, f"{caller} {action['type']}: answers differ by order: {got}"
    _status, body, _ = next(iter(got.values()))
    text = body.decode()
    for word in ("B1", "B2", "B3", "B4", "B5", "fighter", "bomber", "middle", "corridor", "Bea", "Ben"):  # B's planes
        assert word not in text, f"{caller} {action['type']}: the refusal names {word!r}: {text}"
    # What B does next changes nothing in A's answer: B's ships are bombed, a report comes in.
    ok(
        act(
            probe.referee,
            probe.gid,
            {"type": "report_dogfight", "a": "1A1", "b": "1B1", "throws": [{"winner": "B"}], "choice": "pass"},
        )
    )
    assert answers(probe, client, fill(action, "1B2"), slip) == got["1B2"]


def test_probing_orders_in_planning_counts_nothing(app: Flask) -> None:
    probe = probe_game(app, start=False)
    remove = {"type": "remove_order", "order": "X"}
    got = {oid: answers(probe, probe.team_a, fill(remove, oid), None) for oid in ["1B1", "1B2", "1B3", *MISSING]}
    assert len(set(got.values())) == 1, got
    assert got["1B1"][0] == 409
    # B takes an order back and writes a new one: A's answers for those ids stay the same.
    ok(act(probe.team_b, probe.gid, {"type": "remove_order", "order": "1B3"}))
    assert answers(probe, probe.team_a, fill(remove, "1B3"), None) == got["1B3"]
    ok(
        act(
            probe.team_b,
            probe.gid,
            {"type": "add_order", "team": "B", "ship": "A", "pilot": "Ben", "kind": "fighter", "corridor": "lower"},
        )
    )
    assert answers(probe, probe.team_a, fill(remove, "1B4"), None) == got["1B4"]
    # Ann's slip may not remove anything either, and says so alike for every id.
    slip_answers = {
        answers(probe, probe.pilot_a, fill(remove, oid), probe.slip_a) for oid in ["1A1", "1A2", "1B1", "1B9"]
    }
    assert len(slip_answers) == 1, slip_answers


def test_the_orders_a_view_shows_may_still_be_named(app: Flask) -> None:
    probe = probe_game(app, start=True)
    # 1B3 waits at A's base: A's phone announces it (the sea answers) and gets the real answer.
    announced = act(probe.team_a, probe.gid, {"type": "announce_bombing", "order": "1B3"})
    assert announced.status_code == 200, announced.get_json()
    # Ann meets 1B1 next: her report is taken.
    reported = probe.pilot_a.post(
        f"/api/games/{probe.gid}/actions",
        json={
            "slip": probe.slip_a,
            "action": {"type": "report_dogfight", "a": "1A1", "b": "1B1", "throws": [{"winner": "A"}]},
        },
    )
    assert reported.status_code == 200, reported.get_json()
