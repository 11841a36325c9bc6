"""What a Vestorsjø action did, for a play script to check: the dice and their hits, the pieces
hit, sunk, moved or removed, the port counters that moved, whose drag it is, the outcome.

`referee play` prints it with every accepted line (and every computer's move), and a line's
`"expect": {"effects": {...}}` checks the part it names.
"""

from __future__ import annotations

from typing import Any

from .state import State

PIECE_FIELDS = ("place", "hits", "sunk", "removed")


def effects(before: State, after: State) -> dict[str, Any]:
    """Return what changed from `before` to `after` (a later state of the same game), as JSON."""
    out: dict[str, Any] = {}
    rolls = after.rolls[len(before.rolls) :]  # rolls are only ever added (a confirmed die keeps its shot's seq)
    if rolls:
        out["rolls"] = [
            {
                "piece": r.piece,
                "target": r.target,
                "table": r.table,
                "distance": r.distance,
                "damage": r.damage,
                "pips": r.pips,
                "hits": r.hits,
                "sunk": r.sunk,
            }
            for r in rolls
        ]
    pieces: dict[str, dict[str, Any]] = {}
    for piece_id, piece in after.pieces.items():
        old = before.pieces.get(piece_id)
        changed = {f: getattr(piece, f) for f in PIECE_FIELDS if old is None or getattr(old, f) != getattr(piece, f)}
        if changed:
            pieces[piece_id] = changed
    if pieces:
        out["pieces"] = pieces
    held = {port: count for port, count in after.held.items() if before.held.get(port, 0) != count}
    if held:
        out["held"] = held
    if after.pending != before.pending:
        pending = after.pending
        out["pending"] = (
            None if pending is None else {"piece": pending.piece, "target": pending.target, "pips": pending.pips}
        )
    if (after.turn, after.round) != (before.turn, before.round):
        out["turn"] = {"side": after.turn, "round": after.round}
    if after.outcome is not None and before.outcome is None:
        out["outcome"] = {"winner": after.outcome.winner, "reason": after.outcome.reason}
    return out
