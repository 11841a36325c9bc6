"""Lists in actions are bounded before any work on their items (one phone must not hold the write lock)."""

from __future__ import annotations

from typing import Any

import pytest

from referee.rules import airraid
from referee.rules.errors import MalformedAction

from ..airraid_helpers import Game, new_game, ships_json
from .test_games_web import act, game  # noqa: F401  (the `game` fixture is used by name)


def test_a_huge_roster_is_refused_by_its_length_before_any_name_is_read() -> None:
    g = Game(*new_game())
    # Every name the same: a check of names before the length would answer "two players are called".
    with pytest.raises(MalformedAction) as refused:
        g.do("team:A", type="set_players", team="A", players=["Ann"] * 40_000)
    assert "at most 10 players" in refused.value.message
    # A non-text name deep in the list is never reached either.
    with pytest.raises(MalformedAction) as refused:
        g.do("team:A", type="set_players", team="A", players=["Ann", "Ada"] + [None] * 39_998)
    assert "at most 10 players" in refused.value.message


def test_a_huge_roster_at_creation_is_refused_by_its_length() -> None:
    with pytest.raises(MalformedAction) as refused:
        new_game(players={"A": ["Ann"] * 5_000, "B": ["Bob", "Bea", "Ben", "Bo"]})
    assert "at most 10 players" in refused.value.message


def test_a_ship_with_more_squares_than_its_sea_is_refused_before_they_are_read() -> None:
    g = Game(*new_game())
    ships = ships_json()
    ships[0] = {**ships[0], "squares": [{"bad": i} for i in range(10_000)]}
    with pytest.raises(MalformedAction) as refused:
        g.do("team:A", type="lock_sea", team="A", ships=ships)
    assert "more squares than the sea" in refused.value.message


def test_a_huge_roster_over_http_is_a_400_and_changes_nothing(game: dict[str, Any]) -> None:  # noqa: F811
    # Within the route's 64 kB bound the rules refuse it (400); beyond it, the body is refused unread (413).
    response = act(game["A"], game["id"], {"type": "set_players", "team": "A", "players": ["Ann"] * 5_000})
    assert response.status_code == 400, response.get_json()
    huge = act(game["A"], game["id"], {"type": "set_players", "team": "A", "players": ["Ann"] * 40_000})
    assert huge.status_code == 413, huge.get_json()
    view = game["A"].get(f"/api/games/{game['id']}/view").get_json()
    assert view["players"] == ["Ann", "Ada", "Abe", "Amy"]
    assert airraid.MAX_NAME == 40
