"""A void recomputes from a checkpoint before its target, and gives what recomputing from the start gives.

The states of random games (voids of voids included) played with a checkpoint every few events
are compared with the same logs folded without checkpoints, where every void re-folds the whole
game: after every void, at the end, and for a state loaded from a snapshot in the middle (its
own first checkpoint) and played on from there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import airraid
from referee.rules.airraid.moves import ENGINE
from referee.rules.events import Event

from ..speed import examples
from .test_airraid_properties import play


@contextmanager
def checkpoints(every: int, kept: int = 64) -> Iterator[None]:
    """Fold with a checkpoint every `every` events (0: none, every void re-folds from the start)."""
    rules = ENGINE.rules
    ENGINE.rules = dataclasses.replace(rules, checkpoint_every=every, checkpoints_kept=kept)
    try:
        yield
    finally:
        ENGINE.rules = rules


def folded(events: list[Event], every: int) -> Any:
    with checkpoints(every):
        return airraid.replay(events)


def test_a_void_starts_from_the_newest_checkpoint_before_its_target() -> None:
    with checkpoints(5):
        game = play(7, steps=120, void_rate=0.0, check_views=False)
        state = game.state
        assert [c.version for _voids, c in state.checkpoints] == list(range(5, state.version + 1, 5))
        target = state.version - 7
        log = (*state.log, Event(state.version + 1, "void", {"seq": target, "reason": "test"}, 0.0, "referee"))
        point = ENGINE.restart_point(state, log)
        assert point is not None and point.version == (target - 1) // 5 * 5
        # A void of a void restores its target: a checkpoint after that target no longer serves.
        voided = game.do("referee", type="void", seq=target, reason="test").version
        game.clock += 1
        state = game.state
        assert state.checkpoints[-1][1].version == voided // 5 * 5  # made again as the void re-folded
        log = (*state.log, Event(voided + 1, "void", {"seq": voided, "reason": "undo"}, 0.0, "referee"))
        point = ENGINE.restart_point(state, log)
        assert point is not None and point.version == (target - 1) // 5 * 5


@given(seed=st.integers(0, 2**32 - 1), every=st.sampled_from([1, 3, 7]), kept=st.sampled_from([2, 64]))
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_void_from_a_checkpoint_equals_a_void_from_the_start(seed: int, every: int, kept: int) -> None:
    with checkpoints(every, kept):
        game = play(seed, steps=160, check_views=False, void_rate=0.12)
    events = list(game.events)
    reference = folded(events, 0)
    assert airraid.state_to_dict(game.state) == airraid.state_to_dict(reference)
    ends = [i + 1 for i, e in enumerate(events) if e.kind == "void"][:4]
    for end in ends:
        with checkpoints(every, kept):
            quick = airraid.replay(events[:end])
        assert airraid.state_to_dict(quick) == airraid.state_to_dict(folded(events[:end], 0)), end
    # A state loaded from a snapshot in the middle starts its first void from there.
    middle = len(events) // 2
    with checkpoints(every, kept):
        loaded = airraid.state_from_dict(airraid.state_to_dict(airraid.replay(events[:middle])))
        for event in events[middle:]:
            loaded = airraid.fold(loaded, event)
    assert airraid.state_to_dict(loaded) == airraid.state_to_dict(reference)
