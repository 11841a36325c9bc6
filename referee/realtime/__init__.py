"""The transport, which knows no game: the gevent server with its per-address caps, frames and the Redis queue.

- `server.py`: `referee serve`'s WSGI server on gevent: connection caps and header deadlines per
  address, the rate of writes, `TCP_NODELAY`.
- `threads.py`: sqlite3's blocking calls in gevent's thread pool, long computations in offload's.
- `collector.py`: Python's cycle collector, run at quiet moments.
- `frames.py`: the websocket frame-size cap.
- `queue.py`: the Redis message queue between processes, which subscribes again after an outage.

Socket.IO's setup on the app (same origin, packets, sessions) is `web/socketio_app.py`.

Where a module of this package relies on another library's private methods (python-socketio's
Redis manager in `queue.py`, gevent's client-error hook in `server.py`) or on its classes' inner
workings (gevent-websocket's frame reader in `frames.py`), that module checks at start-up that
what it overrides or calls exists (`fits()`); if not, it logs one warning and the library's
stock path is used. `REFEREE_LIBRARY_HOOKS=0` switches every such hook off
(tests/services/test_stock_paths.py runs a server so).
"""

from __future__ import annotations

import os


def hooks_on() -> bool:
    """Whether this package may hook into other libraries' inner workings (REFEREE_LIBRARY_HOOKS, default on)."""
    return os.environ.get("REFEREE_LIBRARY_HOOKS", "1") != "0"
