"""Read-only questions about the games table: which games, of what mode and status, and what is due.

The games list, the round clock's look (the soonest deadline and the revocations counted) and
the mode of a game are answered from the games table alone, never by folding a log.
"""

from __future__ import annotations

from sqlalchemy import Engine, func, select

from referee.store.engine import reading
from referee.store.rows import DUE_GAMES, LOOK, events_t, game_row, games_t
from referee.store.types import ABANDONED, Look


class Listings:
    """The store's reads of the games table (the store binds `engine`)."""

    engine: Engine

    def mode_of(self, game_id: str) -> str:
        """Return the mode name of a game."""
        with reading(self.engine) as conn:
            return str(game_row(conn, game_id, lock=False).mode)

    def status_of(self, game_id: str) -> str:
        """Return a game's status in the games table (the mode's phase, or ABANDONED)."""
        with reading(self.engine) as conn:
            return str(game_row(conn, game_id, lock=False).status)

    def game_ids(self) -> list[str]:
        """Return every game id, newest first."""
        with reading(self.engine) as conn:
            return [r.id for r in conn.execute(select(games_t.c.id).order_by(games_t.c.created_at.desc()))]

    def game_ids_of(self, mode: str, limit: int = 100, *, archived: bool = False) -> list[str]:
        """Return the newest games of one mode, unfinished ones first (the referee's list).

        `archived`: the games taken off the list instead, the most recently archived first.
        """
        with reading(self.engine) as conn:
            finished = games_t.c.status.in_(("over", ABANDONED))
            stmt = select(games_t.c.id).where(games_t.c.mode == mode)
            if archived:
                stmt = stmt.where(games_t.c.archived_at.is_not(None)).order_by(games_t.c.archived_at.desc())
            else:
                stmt = stmt.where(games_t.c.archived_at.is_(None)).order_by(finished, games_t.c.created_at.desc())
            return [r.id for r in conn.execute(stmt.limit(limit))]

    def archived_at(self, game_id: str) -> float | None:
        """Return when a game was taken off the list of games, or None while it is listed."""
        with reading(self.engine) as conn:
            found = game_row(conn, game_id, lock=False).archived_at
            return None if found is None else float(found)

    def count_events(self, game_id: str) -> int:
        """Return how many events a game has stored."""
        with reading(self.engine) as conn:
            return int(conn.execute(select(func.count()).where(events_t.c.game_id == game_id)).scalar_one())

    def due_game_ids(self, now: float) -> list[str]:
        """Return the games whose stored deadline has come, soonest first, for the round clock.

        Only games with a deadline are read: thousands of Battleship games cost the clock nothing.
        """
        with reading(self.engine) as conn:
            return [r.id for r in conn.execute(DUE_GAMES, {"now": now})]

    def look(self) -> Look:
        """Return the soonest stored deadline and the revocations counted, read in one statement (the round clock's)."""
        with reading(self.engine) as conn:
            deadline, revocations = conn.execute(LOOK).one()
        return Look(None if deadline is None else float(deadline), int(revocations))

    def earliest_deadline(self) -> float | None:
        """Return the soonest stored deadline of any game, or None when no clock runs anywhere."""
        return self.look().deadline

    def revocations(self) -> int:
        """Return how many tokens and phones were ever revoked, by any process."""
        return self.look().revocations
