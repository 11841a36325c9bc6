"""A game in the air with every kind of caller, for the fuzz tests (HTTP and Socket.IO)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from referee.rules import airraid
from referee.store.models import Device, Game, Token
from referee.web.access import SERVER_REFEREE_COOKIE
from referee.web.extensions import engine_of, store_of

from .airraid_helpers import PLAYERS, SEA_7, ships_json
from .web.test_games_web import act, join, referee_client

# Team B's sea is team A's turned half a turn.
SEA_B = "\n".join(row[::-1] for row in SEA_7.strip().splitlines()[::-1])


@dataclass
class Arena:
    """A started game with round 1 airborne.

    1A1 (fighter) meets 1B1 (bomber) in the upper corridor, 1A2 (bomber) meets 1B2 (fighter) in the lower.
    """

    app: Flask
    gid: str
    referee: FlaskClient
    team_a: FlaskClient
    team_b: FlaskClient
    stranger: FlaskClient  # a phone of another game's team A
    other_gid: str
    slips: dict[str, str]  # order id -> slip code
    device_a: str  # team A's phone (device id)

    def cookies(self, who: str) -> dict[str, str]:
        """The cookies one identity sends: none, referee, team device, or a wrong game's token."""
        if who == "nobody":
            return {}
        if who == "referee":
            return {SERVER_REFEREE_COOKIE: self._cookie(self.referee, SERVER_REFEREE_COOKIE)}
        if who == "team_a":
            return {f"dv_{self.gid}": self._cookie(self.team_a, f"dv_{self.gid}")}
        if who == "stranger":
            # The other game's device token, sent under this game's cookie name.
            return {f"dv_{self.gid}": self._cookie(self.stranger, f"dv_{self.other_gid}")}
        raise ValueError(who)

    @staticmethod
    def _cookie(client: FlaskClient, name: str) -> str:
        cookie = client.get_cookie(name)
        assert cookie is not None, name
        return cookie.value

    def fingerprint(self) -> Any:
        """Everything a refused request must leave as it was: the game's state and version, games, devices, tokens."""
        with self.app.app_context():
            # The state as the app serves it (its cache): a handler that changed the cached state
            # in place shows in the state, one that wrote a row shows in the version and count.
            store = store_of(self.app)
            state, version = store.load(self.gid)
            dev, tok = Device.__table__, Token.__table__
            with engine_of(self.app).connect() as conn:
                rest = (
                    conn.execute(select(func.count()).select_from(Game.__table__)).scalar(),
                    conn.execute(select(dev.c.id, dev.c.name, dev.c.revoked_at).order_by(dev.c.id)).all(),
                    conn.execute(select(tok.c.id, tok.c.revoked_at).order_by(tok.c.id)).all(),
                )
            return version, store.count_events(self.gid), json.dumps(airraid.state_to_dict(state), sort_keys=True), rest


def ok(response: Any) -> Any:
    assert response.status_code in (200, 201), response.get_data(as_text=True)[:500]
    return response.get_json()


def airborne_arena(app: Flask) -> Arena:
    """Create a game, join both teams, lock the seas, write four orders and start round 1."""
    referee = referee_client(app)
    teams = {"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]}
    created = ok(referee.post("/api/games", json=teams))
    gid = created["game"]
    team_a = join(app, created["links"]["join"]["A"])
    team_b = join(app, created["links"]["join"]["B"])
    other = ok(referee.post("/api/games", json=teams))
    stranger = join(app, other["links"]["join"]["A"])
    ok(act(team_a, gid, {"type": "lock_sea", "team": "A", "ships": ships_json(SEA_7)}))
    ok(act(team_b, gid, {"type": "lock_sea", "team": "B", "ships": ships_json(SEA_B)}))
    ok(act(referee, gid, {"type": "start_game"}))
    ok(act(team_a, gid, {"type": "set_defender", "team": "A", "pilot": "Amy"}))
    ok(act(team_b, gid, {"type": "set_defender", "team": "B", "pilot": "Bo"}))
    for team, client, order in (
        ("A", team_a, {"pilot": "Ann", "kind": "fighter", "corridor": "upper"}),
        ("A", team_a, {"pilot": "Ada", "kind": "bomber", "corridor": "lower", "target": "E2"}),
        ("B", team_b, {"pilot": "Bob", "kind": "bomber", "corridor": "upper", "target": "C4"}),
        ("B", team_b, {"pilot": "Bea", "kind": "fighter", "corridor": "lower"}),
    ):
        ok(act(client, gid, {"type": "add_order", "team": team, "ship": "A", **order}))
    ok(act(referee, gid, {"type": "start_round"}))
    slips = {
        s["order"]: s["url"].rsplit("/s/", 1)[1]
        for c in (team_a, team_b)
        for s in ok(c.get(f"/api/games/{gid}/slips"))["slips"]
    }
    devices = ok(referee.get(f"/api/games/{gid}/devices"))["devices"]
    return Arena(app, gid, referee, team_a, team_b, stranger, other["game"], slips, devices[0]["id"])
