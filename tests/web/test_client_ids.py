"""A client id makes a retry safe for its sender, and gives nothing to anyone else."""

from __future__ import annotations

import json
from typing import Any

from tests.airraid_helpers import ships_json
from tests.web.test_games_web import act, game  # noqa: F401  (the fixture)


def test_a_retry_by_the_sender_is_answered_as_a_duplicate(game: dict[str, Any]) -> None:  # noqa: F811
    """The same team sending the same client id twice gets the original answer, applied once."""
    first = act(game["A"], game["id"], {"type": "lock_sea", "team": "A", "ships": ships_json()}, client_id="a-1")
    again = act(game["A"], game["id"], {"type": "lock_sea", "team": "A", "ships": ships_json()}, client_id="a-1")
    assert first.status_code == 200 and again.status_code == 200
    assert again.get_json()["duplicate"] is True
    assert again.get_json()["seq"] == first.get_json()["seq"]


def test_another_role_reusing_a_client_id_gets_a_refusal_not_the_events(game: dict[str, Any]) -> None:  # noqa: F811
    """Team B sending team A's client id is refused, and A's fleet is not in the answer."""
    sea_a = ships_json()
    assert (
        act(game["A"], game["id"], {"type": "lock_sea", "team": "A", "ships": sea_a}, client_id="a-2").status_code
        == 200
    )
    before = game["referee"].get(f"/api/games/{game['id']}/view").get_json()["version"]
    stolen = act(game["B"], game["id"], {"type": "lock_sea", "team": "B", "ships": ships_json()}, client_id="a-2")
    assert stolen.status_code == 400
    body = stolen.get_json()
    assert body["error"] == "malformed" and "client_id" in body["message"]
    text = json.dumps(body)
    assert not any(sq in text for ship in sea_a for sq in ship["squares"])
    assert game["referee"].get(f"/api/games/{game['id']}/view").get_json()["version"] == before
