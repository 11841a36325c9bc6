"""A team's base makes at most CHANGES_PER_STAGE changes a stage: a phone churning orders stops there.

Every change is an event kept for good; a phone adding and removing an order over and over once
made 20,014 events in seven minutes, and every void of that game then took seconds.
"""

from __future__ import annotations

import pytest

from referee.rules import airraid
from referee.rules.airraid.state import CHANGES_PER_STAGE
from referee.rules.errors import IllegalAction
from referee.rules.events import Role

from ..airraid_helpers import Game, new_game, ships_json, started_game

ORDER = {"team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"}


def churn(game: Game, changes: int) -> None:
    """Add and remove an order, `changes` changes in all (an even number)."""
    for _ in range(changes // 2):
        game.do("team:A", type="add_order", **ORDER)
        game.do("team:A", type="remove_order", order=next(iter(game.state.round.orders)))


def test_past_the_bound_a_phone_is_refused_with_the_reason_and_the_referee_may_still() -> None:
    game = started_game()
    churn(game, CHANGES_PER_STAGE)
    version = game.state.version
    with pytest.raises(IllegalAction, match=f"Eagles has made {CHANGES_PER_STAGE} changes this round") as refused:
        game.do("team:A", type="add_order", **ORDER)
    assert "Ask the referee" in str(refused.value)
    assert game.state.version == version
    with pytest.raises(IllegalAction, match="changes this round"):
        game.do("team:A", type="set_defender", team="A", pilot="Amy")
    # Not listed either: what a screen is offered is what the rules take.
    kinds = {a["type"] for a in airraid.legal_actions(game.state, Role.from_str("team:A"))}
    assert not kinds & {"add_order", "remove_order", "set_defender", "set_players"}
    # The other team and the referee are not held back.
    game.do("team:B", type="set_defender", team="B", pilot="Bo")
    game.ref(type="set_defender", team="A", pilot="Amy")
    game.ref(type="add_order", **ORDER)


def test_the_next_round_counts_afresh() -> None:
    game = started_game()
    churn(game, CHANGES_PER_STAGE)
    game.ref(type="set_defender", team="A", pilot="Amy")
    game.ref(type="set_defender", team="B", pilot="Bo")
    game.ref(type="start_round")
    game.ref(type="end_round")
    assert game.state.round.number == 2
    game.do("team:A", type="set_defender", team="A", pilot="Amy")
    game.do("team:A", type="add_order", **ORDER)


def test_the_setup_is_bounded_too() -> None:
    game = Game(*new_game())
    for _ in range(CHANGES_PER_STAGE // 2):
        game.do("team:A", type="lock_sea", team="A", ships=ships_json())
        game.do("team:A", type="unlock_sea", team="A")
    with pytest.raises(IllegalAction, match="changes before the game"):
        game.do("team:A", type="lock_sea", team="A", ships=ships_json())
    game.ref(type="lock_sea", team="A", ships=ships_json())


def test_the_count_survives_a_snapshot_and_a_replay() -> None:
    game = started_game()
    churn(game, CHANGES_PER_STAGE)
    again = airraid.state_from_dict(airraid.state_to_dict(game.state))
    assert again.changes == game.state.changes
    replayed = airraid.replay(list(game.state.log))
    assert replayed.changes == game.state.changes
