"""A handler changes a copy of the state (`moves._clone`): what the copy shares must never change.

The property test (`test_airraid_properties`) checks that every accepted or refused action leaves
the state before it as it was. This one makes a new field a decision: `_clone` copies what a
handler may change and shares the rest, so a field it has not heard of would be shared.
"""

from __future__ import annotations

import dataclasses

from referee.rules import airraid
from referee.rules.airraid.moves import _clone
from referee.rules.airraid.state import Bombing, Order, Round, State, Team, Timer

from ..airraid_helpers import started_game

# Every field of the dataclasses `_clone` copies, as it was written for: a new one fails here
# until `_clone` (referee/rules/airraid/moves.py) copies it, or its docstring says why it is shared.
KNOWN = {
    State: {
        "ruleset_raw",
        "teams",
        "round_seconds",
        "phase",
        "rounds",
        "trophies",
        "outcome",
        "version",
        "log",
        "voided",
        "skipped",
        "notes",
        "notes_rebuilt",
        "practice",  # a bool, set once at creation: shared by every copy
        "changes",
        "ruleset",
        "checkpoints",
        "made",
    },
    Team: {
        "id",
        "name",
        "colour",
        "players",
        "size",
        "fleet",
        "ships",
        "locked",
        "hits",
        "shots",
        "stock",
        "lost",
        "start_planes",
        "sunk",
    },
    Round: {"number", "timer", "phase", "defenders", "orders", "serial", "duels", "reports", "conflicts", "bombings"},
    Timer: {"seconds", "deadline", "remaining", "started_at", "ended_at"},
    Order: {
        "id",
        "round",
        "team",
        "pilot",
        "kind",
        "ship",
        "corridor",
        "position",
        "target",
        "status",
        "landed_on",
        "shot_down_by",
    },
    Bombing: {"order", "target", "answer", "ship", "seq", "throws", "choice", "result", "sunk"},
}


def test_the_copy_of_a_state_was_written_for_every_field() -> None:
    for kind, known in KNOWN.items():
        assert {f.name for f in dataclasses.fields(kind)} == known, kind.__name__


def test_a_copy_shares_nothing_a_handler_changes() -> None:
    game = started_game()
    game.do("team:A", type="set_defender", team="A", pilot="Amy")
    game.do("team:B", type="add_order", team="B", pilot="Bea", kind="fighter", ship="A", corridor="upper")
    state = game.state
    work = _clone(state)
    # The views' memory is every copy's on purpose; the log and the ruleset never change.
    assert work.made is state.made and work.log is state.log and work.ruleset is state.ruleset
    for t in state.teams:
        mine, theirs = work.teams[t], state.teams[t]
        assert mine is not theirs
        for name in ("players", "ships", "hits", "shots", "stock", "lost", "start_planes", "sunk"):
            assert getattr(mine, name) is not getattr(theirs, name), name
        assert all(mine.stock[s] is not theirs.stock[s] for s in theirs.stock)
    rnd, old = work.rounds[-1], state.rounds[-1]
    assert rnd is not old and rnd.timer is not old.timer
    assert all(rnd.orders[o] is not old.orders[o] for o in old.orders)


def test_the_clocks_handlers_change_only_what_their_copy_copies() -> None:
    game = started_game()
    game.do("team:A", type="set_defender", team="A", pilot="Amy")
    game.do("team:B", type="set_defender", team="B", pilot="Bo")
    game.do("team:A", type="add_order", team="A", pilot="Ann", kind="fighter", ship="A", corridor="upper")
    game.ref(type="start_round")
    for action in ({"type": "pause_timer"}, {"type": "adjust_timer", "seconds": 30}, {"type": "resume_timer"}):
        old = game.state
        before = airraid.snapshot_to_dict(old)
        new = game.ref(**action)
        assert airraid.snapshot_to_dict(old) == before, action  # the state before is as it was
        # Only the round's timer and the notes are new: the teams and the orders are the very same.
        assert new.teams is old.teams and new.rounds[-1].orders is old.rounds[-1].orders
        assert new.rounds[-1].timer is not old.rounds[-1].timer and new.notes is not old.notes
        assert new.version == old.version + 1 and new.rounds[-1].timer != old.rounds[-1].timer
