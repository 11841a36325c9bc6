"""Log rows are made once and reused while what they show is unchanged (a push's change set then
sees an unchanged row at a glance); a reused row is always what a fresh one would be."""

from __future__ import annotations

import copy

from referee.rules import airraid
from referee.rules.events import PUBLIC, REFEREE, Role

from ..airraid_helpers import Game, started_game


def fresh_view(state: airraid.State, role: Role, now: float) -> dict[str, object]:
    """Return the view made with no rows kept from before."""
    fresh = copy.copy(state)
    fresh.made = {}
    return airraid.view_for(fresh, role, now=now)


def planning(game: Game) -> None:
    game.do("team:A", type="set_defender", team="A", pilot="Amy")
    game.do("team:B", type="set_defender", team="B", pilot="Bo")
    game.do("team:B", type="add_order", team="B", pilot="Bea", kind="fighter", ship="A", corridor="upper")


def test_an_unchanged_row_is_the_same_object_in_the_next_view() -> None:
    game = started_game()
    planning(game)
    roles = (REFEREE, PUBLIC, Role("team", "A"), Role("team", "B"))
    before = {role: airraid.view_for(game.state, role, now=game.clock) for role in roles}
    game.ref(type="start_round")
    for role in roles:
        after = airraid.view_for(game.state, role, now=game.clock)
        old = {row["seq"]: row for row in before[role]["log"]}
        kept = [row for row in after["log"] if row["seq"] in old]
        assert kept and all(row is old[row["seq"]] for row in kept), role
        assert after == fresh_view(game.state, role, game.clock)


def test_a_row_is_made_again_once_the_game_is_over_and_every_note_is_shown() -> None:
    game = started_game()
    planning(game)
    team_a = Role("team", "A")
    during = airraid.view_for(game.state, team_a, now=game.clock)
    game.ref(type="end_game")
    after = airraid.view_for(game.state, team_a, now=game.clock)
    # Team B's order was its own secret; at the end every note is shown to everyone.
    assert len(after["log"]) > len(during["log"]) or after["log"] != during["log"]
    assert after == fresh_view(game.state, team_a, game.clock)


def test_a_void_makes_the_rows_again() -> None:
    game = started_game()
    planning(game)
    seq = game.state.version
    before = airraid.view_for(game.state, REFEREE, now=game.clock)
    game.ref(type="void", seq=seq, reason="wrong pilot")
    after = airraid.view_for(game.state, REFEREE, now=game.clock)
    row = next(r for r in after["log"] if r["seq"] == seq)
    assert row["voided"] == "wrong pilot" and next(r for r in before["log"] if r["seq"] == seq)["voided"] is None
    assert after == fresh_view(game.state, REFEREE, game.clock)
