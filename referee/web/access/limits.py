"""How often one client may fail a check (a wrong join code, say) before it must wait."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import cast

from flask import current_app, request

# ---------------------------------------------------------------------------------------
# Rate limit of failed token lookups


class FailureLimiter:
    """At most `limit` failures per key in a sliding `window` of seconds (in-process)."""

    def __init__(self, limit: int = 20, window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        """Set the limit, the window and the clock (injectable for tests)."""
        self.limit = limit
        self.window = window
        self.clock = clock
        self._fails: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        fails = self._fails.setdefault(key, deque())
        while fails and now - fails[0] >= self.window:
            fails.popleft()
        return fails

    def blocked(self, key: str) -> bool:
        """Tell whether `key` has used up its failures."""
        with self._lock:
            blocked = len(self._recent(key, self.clock())) >= self.limit
            if not self._fails[key]:
                del self._fails[key]
            return blocked

    def fail(self, key: str) -> None:
        """Count one failure of `key`."""
        with self._lock:
            now = self.clock()
            self._recent(key, now).append(now)
            self._forget_idle(now)

    def take(self, key: str) -> float:
        """Count one use of `key` if it has one left and return 0; else the seconds until it has one."""
        with self._lock:
            now = self.clock()
            recent = self._recent(key, now)
            if len(recent) >= self.limit:
                return max(0.001, self.window - (now - recent[-self.limit])) if self.limit > 0 else self.window
            recent.append(now)
            self._forget_idle(now)
            return 0.0

    def retry_in(self, key: str) -> float:
        """Return the seconds until `key` may fail once more (0 if it may now)."""
        with self._lock:
            now = self.clock()
            recent = self._recent(key, now)
            if len(recent) < self.limit:
                return 0.0
            return max(0.001, self.window - (now - recent[-self.limit]))

    def _forget_idle(self, now: float) -> None:
        if len(self._fails) > 10_000:  # forget idle keys so memory stays bounded
            for k in [k for k, d in self._fails.items() if not d or now - d[-1] >= self.window]:
                del self._fails[k]


def limiter() -> FailureLimiter:
    """The current app's failure limiter."""
    return cast(FailureLimiter, current_app.extensions["referee.limiter"])


def client_key() -> str:
    """The client's address, the key of per-client limits (behind nginx: see PROXY_FIX)."""
    return client_key_of_request()


def client_key_of_request() -> str:
    return request.remote_addr or "?"
