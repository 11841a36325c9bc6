"""The one event engine every game mode runs on: strict fields, versions, chance, voids, replay.

A mode gives the engine its `Rules`: how a game is set up from its `create_game` event, one
handler per kind of action, how to copy a state cheaply, and which kinds take chance or may be
voided. The engine decides, once for every mode:

- an action is checked on a copy of the state, so a refusal leaves nothing half done;
- `version` (given beside the action, or inside it) must be the state's version, else the action
  is stale;
- chance enters as a seed the caller (the server) draws for the kinds of action that need one; it
  is written into the event (`seed`), and a handler makes its own `random.Random` from it
  (`chance`), so a replay rolls the same dice;
- what a handler chose when the event was first accepted (its *bindings*: a new order's id, the
  squares the computer fired at) is written into the stored event too, so a replay applies the
  event to the same things instead of choosing again;
- a stored event that no longer applies (after a void) is kept in the log and skipped, with the
  reason, in `state.skipped`;
- a void recomputes the game from its log as if the voided event had never happened: from the
  newest checkpoint before it that the void leaves as it was (a copy of the state kept every
  `checkpoint_every` events), or from the start.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from .errors import GameOver, IllegalAction, MalformedAction, Msg, RulesError, StaleVersion
from .events import Event, Role

SEED = "seed"
"""The field of an event that holds its chance: only the engine writes it."""
MAX_SEED = 2**63 - 1


class EngineState(Protocol):
    """What the engine needs of every mode's state."""

    version: int
    log: tuple[Event, ...]
    skipped: dict[int, str]

    @property
    def over(self) -> str | None:
        """Return how the game ended, in words, once it has; None while it goes on."""


S = TypeVar("S", bound=EngineState)

Handler = Callable[[S, Event, Role], "Mapping[str, Any] | None"]
"""A handler checks an event fully, then changes the state; it returns its bindings, if any."""


class Fields:
    """Read an action's fields strictly: unknown fields and wrong types are refused."""

    def __init__(self, data: Mapping[str, Any], allowed: Iterable[str], *, kind: str | None = None) -> None:
        """Take `data` with only `allowed` fields; `kind` names it in a refusal (else its "type")."""
        if not isinstance(data, Mapping):
            raise MalformedAction(Msg("an action is a JSON object"))
        unknown = sorted(set(data) - set(allowed) - {"type"})
        if unknown:
            action = kind if kind is not None else data.get("type")
            raise MalformedAction(Msg("unknown field {unknown!r} in {action!r}", unknown=unknown[0], action=action))
        self.data = data

    def text(self, key: str, *, optional: bool = False, limit: int = 200) -> str:
        """Return a non-empty string field."""
        value = self.data.get(key)
        if value is None and optional:
            return ""
        if not isinstance(value, str) or not value.strip():
            raise MalformedAction(Msg("{key} must be non-empty text", key=key))
        if len(value) > limit:
            raise MalformedAction(Msg("{key} is longer than {limit} characters", key=key, limit=limit))
        return value.strip()

    def choice(self, key: str, options: Sequence[str], *, optional: bool = False) -> str | None:
        """Return a field that must be one of some options."""
        value = self.data.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, str) or value not in options:
            raise MalformedAction(
                Msg("{key} must be one of {join}, not {value!r}", key=key, join=", ".join(options), value=value)
            )
        return str(value)

    def integer(self, key: str, *, optional: bool = False, low: int = -(10**9), high: int = 10**9) -> int | None:
        """Return a whole-number field within bounds."""
        value = self.data.get(key)
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise MalformedAction(Msg("{key} must be a whole number, not {value!r}", key=key, value=value))
        if not low <= value <= high:
            raise MalformedAction(
                Msg("{key} must be between {low} and {high}, not {value}", key=key, low=low, high=high, value=value)
            )
        return value

    def number(self, key: str, *, low: float, high: float) -> float:
        """Return a numeric field within bounds."""
        value = self.data.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise MalformedAction(Msg("{key} must be a number, not {value!r}", key=key, value=value))
        if not low <= value <= high:
            raise MalformedAction(
                Msg("{key} must be between {low} and {high}, not {value}", key=key, low=low, high=high, value=value)
            )
        return float(value)


def chance(event: Event) -> random.Random:
    """Return the dice of an event: a generator seeded with the seed the server drew for it."""
    seed = event.data.get(SEED)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise MalformedAction(Msg("this action takes chance: the server gives it a seed"))
    return random.Random(seed)


def effective_voids(log: Sequence[Event]) -> dict[int, str]:
    """Return the events voided by voids that are themselves in force (a voided void restores)."""
    voids: dict[int, str] = {}
    targets: dict[int, list[Event]] = {}
    for event in log:
        if event.kind == "void":
            targets.setdefault(int(event.data["seq"]), []).append(event)
    # Voids point backwards, so walking from the newest settles each void before its target.
    for event in reversed(log):
        if event.seq in voids:
            continue
        for v in targets.get(event.seq, []):
            if v.seq not in voids:
                voids[event.seq] = str(v.data.get("reason", ""))
                break
    return voids


def _nothing(*_args: Any) -> None:
    return None


@dataclass(frozen=True)
class Rules(Generic[S]):
    """What a mode gives the engine."""

    mode: str
    setup: Callable[[Event], S]
    """Build the state from the `create_game` event (seq 1), checking it fully, its role included."""
    handlers: Mapping[str, Handler[S]]
    clone: Callable[[S], S]
    """Copy a state so that a handler may change the copy (sharing what never changes is fine)."""
    clones: Mapping[str, Callable[[S], S]] = field(default_factory=dict)
    """A cheaper copy for the kinds whose handlers change less than `clone` copies, by kind."""
    chance: frozenset[str] = frozenset()
    """The kinds of action (and `create_game`) that take a seed: the server draws one for each."""
    bindings: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """The fields a handler may bind into the event of each kind."""
    written: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Fields only the rules write into an event (as bindings): an action may not send them."""
    after_end: frozenset[str] = frozenset()
    """The kinds still taken once the game is over (a void may undo the end)."""
    on_voided: Callable[[S, Event, str], None] = _nothing
    """Tell the state an event is void (narration), during a recomputation."""
    on_void: Callable[[S, Event], None] = _nothing
    """Tell the state of a void event itself, during a recomputation."""
    on_unapplied: Callable[[S, Event], None] = _nothing
    """Keep what an event that no longer applies had given (an id is never given twice)."""
    checkpoint_every: int = 0
    """Keep a copy of the state every this many events (its `checkpoints`), for a void to recompute from; 0: none."""
    checkpoints_kept: int = 64
    """The most checkpoints a state keeps (the newest): a void further back recomputes from the start."""


class Engine(Generic[S]):
    """Create, apply, fold and replay one mode's games."""

    def __init__(self, rules: Rules[S]) -> None:
        self.rules = rules

    # --- Starting, acting ---------------------------------------------------------------------

    def create(
        self, action: Mapping[str, Any], *, at: float, by: str, seed: int | None = None
    ) -> tuple[S, list[Event]]:
        """Start a game from a create_game action; return the state and its first event."""
        if not isinstance(action, Mapping):
            raise MalformedAction(Msg("an action is a JSON object with a type"))
        Role.from_str(by)
        data = self._data(action, "create_game", seed)
        event = Event(1, "create_game", data, float(at), by)
        return self._created(event), [event]

    def apply(
        self,
        state: S,
        action: Mapping[str, Any],
        *,
        at: float,
        by: str,
        version: int | None = None,
        seed: int | None = None,
    ) -> tuple[S, list[Event]]:
        """Check an action by a role at a time; return the new state and the events it adds.

        `version` (beside the action, or inside it) is the state version the actor saw: an action
        based on an older one is refused, so a double tap cannot act twice.
        """
        if not isinstance(action, Mapping):
            raise MalformedAction(Msg("an action is a JSON object with a type"))
        kind = action.get("type")
        if not isinstance(kind, str) or kind not in self.rules.handlers:
            known = ", ".join(sorted(self.rules.handlers))
            raise MalformedAction(Msg("unknown action type {kind!r}; known: {known}", kind=kind, known=known))
        seen = action.get("version") if version is None else version
        if seen is not None and seen != state.version:
            raise StaleVersion(
                Msg(
                    "the game has moved on (version {version}, your view was {version2}): look again",
                    version=state.version,
                    version2=seen,
                )
            )
        Role.from_str(by)
        data = self._data(action, kind, seed)
        event = Event(state.version + 1, kind, data, float(at), by)
        bound: dict[str, Any] = {}
        work = self._step(state, event, bound)
        if bound:
            event = Event(event.seq, kind, {**data, **bound}, event.at, by)
            work.log = state.log + (event,)
        self._checkpoint(work)
        return work, [event]

    def _data(self, action: Mapping[str, Any], kind: str, seed: int | None) -> dict[str, Any]:
        data = {k: v for k, v in action.items() if k not in ("type", "version")}
        written = sorted(({SEED} | self.rules.written.get(kind, frozenset())) & set(data))
        if written:
            raise MalformedAction(Msg("unknown field {unknown!r} in {action!r}", unknown=written[0], action=kind))
        if kind in self.rules.chance and seed is not None:
            # Only the kinds that take chance keep a seed: the server may offer one to every action.
            if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
                raise MalformedAction(Msg("a seed is a whole number from 0 to 2**63 - 1"))
            data[SEED] = seed
        return data

    # --- Stored events ------------------------------------------------------------------------

    def fold(self, state: S, event: Event) -> S:
        """Apply a stored event and return the new state (the input is not changed)."""
        if event.seq != state.version + 1:
            raise StaleVersion(
                Msg("event {seq} does not follow version {version}", seq=event.seq, version=state.version)
            )
        try:
            work = self._step(state, event)
        except RulesError as exc:
            # A stored event was accepted once; it can only fail here if the code changed since.
            work = self._skip(self.rules.clone(state), event, exc.message)
        self._checkpoint(work)
        return work

    def replay(self, events: Sequence[Event]) -> S:
        """Rebuild a game from its whole log."""
        if not events:
            raise MalformedAction(Msg("an empty log holds no game"))
        state = self._created(events[0])
        for event in events[1:]:
            state = self.fold(state, event)
        return state

    def recompute(self, log: tuple[Event, ...], start: S | None = None) -> S:
        """Re-fold a log, leaving out the events voided by voids in force.

        From `start` (a checkpoint `restart_point` found: the state after the log's first
        `start.version` events, which the voids in force leave as it was), else from the start.
        Re-folding every event since is the only way to be sure every consequence of a voided
        event is gone.
        """
        voided = effective_voids(log)
        if start is None:
            fresh = self._created(log[0])
            rest = log[1:]
        else:
            fresh = self.rules.clone(start)
            if self.rules.checkpoint_every:
                start_voids = {seq: why for seq, why in voided.items() if seq <= start.version}
                fresh.checkpoints = (*start.checkpoints, (start_voids, start))  # type: ignore[attr-defined]
            rest = log[start.version :]
        for event in rest:
            if event.seq in voided:
                self.rules.on_unapplied(fresh, event)
                self._keep(fresh, event)
                self.rules.on_voided(fresh, event, voided[event.seq])
                continue
            if event.kind == "void":
                self._keep(fresh, event)
                self.rules.on_void(fresh, event)
                continue
            try:
                fresh = self._step(fresh, event)
            except RulesError as exc:
                # After a void, a later event may no longer fit (a dogfight that can no longer
                # happen). It stays in the log, shown to the referee as skipped, with the reason.
                fresh = self._skip(fresh, event, exc.message)
            self._checkpoint(fresh, voided)
        return fresh

    def restart_point(self, state: S, log: tuple[Event, ...]) -> S | None:
        """Return the newest of the state's checkpoints a recomputation of `log` may start from, or None.

        `log` is the state's log and a void. A checkpoint serves when the events up to it are
        voided, or not, as they were when it was made (a void of a void may restore an event
        before it; a checkpoint a recomputation made knew of voids after it): its state is then
        what re-folding `log` up to it gives.
        """
        if not self.rules.checkpoint_every:
            return None
        voided = effective_voids(log)
        target = int(log[-1].data["seq"]) if log[-1].kind == "void" else log[-1].seq
        for voids, point in reversed(getattr(state, "checkpoints", ())):
            if point.version < target and {s: why for s, why in voided.items() if s <= point.version} == voids:
                return point  # type: ignore[no-any-return]
        return None

    def _checkpoint(self, state: S, voided: Mapping[int, str] | None = None) -> None:
        """Keep a copy of the state every `checkpoint_every` events, with the voids in force it was made under.

        `voided`: those of the log being recomputed (else those of the state's own log, which
        a state that keeps them as `voided` has at hand). A copy: the state itself may still be
        changed in place (a recomputation's skips).
        """
        every = self.rules.checkpoint_every
        if every and state.version % every == 0:
            voids = voided if voided is not None else getattr(state, "voided", None)
            if voids is None:
                voids = effective_voids(state.log)
            made_under = {seq: why for seq, why in voids.items() if seq <= state.version}
            kept = getattr(state, "checkpoints", ())[-(self.rules.checkpoints_kept - 1) :]
            state.checkpoints = (*kept, (made_under, self.rules.clone(state)))  # type: ignore[attr-defined]

    # --- One step -----------------------------------------------------------------------------

    def _created(self, event: Event) -> S:
        if event.kind != "create_game" or event.seq != 1:
            raise MalformedAction(Msg("a game's log starts with its create_game event"))
        state = self.rules.setup(event)
        state.version = 1
        state.log = (event,)
        return state

    def _step(self, state: S, event: Event, bound: dict[str, Any] | None = None) -> S:
        """Return the state after one event; raise RulesError, leaving the input untouched, if it does not apply."""
        if event.kind == "create_game":
            raise IllegalAction(Msg("the game already exists"))
        fn = self.rules.handlers.get(event.kind)
        if fn is None:
            raise MalformedAction(Msg("unknown action {kind!r}", kind=event.kind))
        ended = state.over
        if ended is not None and event.kind not in self.rules.after_end:
            raise GameOver(Msg("the game is over: {value}", value=ended))
        role = Role.from_str(event.by)
        # Handlers check before they change anything, but working on a copy makes a half-applied
        # action impossible even if one of them is wrong.
        work = self.rules.clones.get(event.kind, self.rules.clone)(state)
        bindings = fn(work, event, role)
        if bindings and bound is not None:
            assert set(bindings) <= self.rules.bindings.get(event.kind, frozenset()), (event.kind, bindings)
            bound.update(bindings)
        work.version = event.seq
        if not work.log or work.log[-1].seq != event.seq:
            work.log = state.log + (event,)
        return work

    def _skip(self, state: S, event: Event, why: str) -> S:
        self.rules.on_unapplied(state, event)
        self._keep(state, event)
        state.skipped[event.seq] = why
        return state

    @staticmethod
    def _keep(state: S, event: Event) -> None:
        state.log = state.log + (event,)
        state.version = event.seq
