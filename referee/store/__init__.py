"""The store: an append-only event log per game plus snapshots, generic over the game mode.

Every game is a list of events with contiguous seq numbers 1, 2, 3, ...; the first one
(kind "game_created") holds the ruleset and setup. The state of a game is the fold of its
events; a snapshot every `snapshot_every` events keeps loading fast. Writes go through
`Store.execute` (`log.py`), which runs one action in ONE write transaction: on SQLite it begins
IMMEDIATE (the write lock is taken before the state is read), on PostgreSQL it locks the
game row with SELECT ... FOR UPDATE. So two writers never both fold the same version.

- `log.py`: `Store`: creating a game, running an action in one write transaction, reading its log.
- `states.py`: each game's state in this process (a cache by version, one load at a time) and its snapshots.
- `listing.py`: read-only questions about the games table (the games list, what is due, a game's mode).
- `engine.py`: the engine (SQLite's durability settings), migrations, read-only transactions.
- `rows.py`: the tables as Core sees them, the statements, rows to and from events and snapshots.
- `types.py`: what the store answers and raises, and what it needs of a mode.
- `models.py` and `migrations/`: the schema and its Alembic history.
- `sqlite_threads.py`: sqlite3's blocking calls off the event loop.
"""

from referee.store.engine import (
    MIGRATIONS_DIR,
    SQLITE_MAX_CONNECTIONS,
    is_busy_error,
    make_engine,
    make_private_sqlite_file,
    migrate,
    reading,
    retry_busy,
    run_sqlite_calls_in,
)
from referee.store.log import Store
from referee.store.rows import events_t, games_t, new_id, random_seed, snapshots_t
from referee.store.types import (
    ABANDONED,
    MODES,
    BrokenMode,
    GameNotFound,
    Look,
    Mode,
    Result,
    StoreBusy,
    StoreError,
    WriteHealth,
)

__all__ = [
    "ABANDONED",
    "MIGRATIONS_DIR",
    "MODES",
    "SQLITE_MAX_CONNECTIONS",
    "BrokenMode",
    "GameNotFound",
    "Look",
    "Mode",
    "Result",
    "Store",
    "StoreBusy",
    "StoreError",
    "WriteHealth",
    "events_t",
    "games_t",
    "is_busy_error",
    "make_engine",
    "make_private_sqlite_file",
    "migrate",
    "new_id",
    "random_seed",
    "reading",
    "retry_busy",
    "run_sqlite_calls_in",
    "snapshots_t",
]
