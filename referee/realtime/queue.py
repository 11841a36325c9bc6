"""The Redis message queue between `referee serve` processes, made to survive a Redis restart.

python-socketio's RedisManager already keeps listening after Redis goes away, but:
- its retry delay doubles up to 60 s, so after a longer outage a process may stay deaf for a
  minute after Redis is back: here the delay stops growing at `retry_max` (2 s);
- redis-py reconnects and resubscribes by itself after a short blip, silently: every view
  published while the queue was down is lost to the other processes, and nobody knows.
  Here redis-py does not retry on its own; every lost subscription goes through our loop, and
  after each new subscription `on_resubscribed` runs, so the app can resend fresh views to the
  sockets of this process (see referee.push.clock.resend_views);
- without a connect timeout a publish to an unreachable host would hold the entry's request for
  minutes: here a connect gives up after 2 s.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import socketio  # type: ignore[import-untyped]

log = logging.getLogger(__name__)

# What RedisQueue overrides or calls of python-socketio's RedisManager (all private).
PRIVATE = ("_publish", "_redis_listen_with_retries", "_redis_connect")


def fits() -> bool:
    """Tell whether this python-socketio has what RedisQueue overrides; warn once if not (the stock manager is used)."""
    missing = [name for name in PRIVATE if not callable(getattr(socketio.RedisManager, name, None))]
    if missing:
        log.warning(
            "python-socketio's RedisManager has no %s: using its stock queue (a Redis restart may leave "
            "screens on other processes without views for up to a minute)",
            ", ".join(missing),
        )
    return not missing


class RedisQueue(socketio.RedisManager):  # type: ignore[misc]
    """socketio.RedisManager that resubscribes within seconds and says when it has."""

    connected: bool  # set by RedisManager; declared for mypy, which cannot see into the untyped base

    def __init__(
        self,
        url: str,
        *,
        channel: str = "flask-socketio",
        on_resubscribed: Callable[[], None] | None = None,
        retry_max: float = 2.0,
        connect_timeout: float = 2.0,
    ) -> None:
        """Use `url` (redis:// or rediss://); call `on_resubscribed` after every resubscription."""
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        options: dict[str, Any] = {
            # No silent reconnects inside redis-py: a dropped connection surfaces here.
            "retry": Retry(NoBackoff(), 0),
            "socket_connect_timeout": connect_timeout,
            "socket_keepalive": True,
        }
        super().__init__(url, channel=channel, redis_options=options)
        self.on_resubscribed = on_resubscribed
        self.retry_max = retry_max
        self.subscriptions = 0  # how many times the listener has subscribed (1 = never lost)
        self.publish_failing = False

    def _publish(self, data: Any) -> Any:  # pragma: no cover - needs a Redis that goes away
        """Publish, reconnecting once; while Redis is down say so once, not at every view."""
        for attempt in (1, 2):
            try:
                if not self.connected:
                    self._redis_connect()
                result = self.redis.publish(self.channel, self.json.dumps(data))
                if self.publish_failing:
                    self.publish_failing = False
                    log.warning("message queue: publishing again")
                return result
            except Exception as exc:  # noqa: BLE001 - any Redis failure: reconnect once, then say so once
                self.connected = False
                if attempt == 2 and not self.publish_failing:
                    self.publish_failing = True
                    log.error(
                        "message queue: cannot publish to Redis (%s); other processes' screens "
                        "miss views until it is back, then catch up",
                        exc,
                    )
        return None

    def _redis_listen_with_retries(self) -> Iterator[Any]:  # pragma: no cover - runs in a thread
        """Listen for ever: on any failure wait (0.25 s doubling to retry_max) and subscribe again."""
        delay = 0.25
        while True:
            try:
                self._redis_connect()
                pubsub = self.pubsub  # ours: a publish that reconnects later makes another one
                pubsub.subscribe(self.channel)
                self.subscriptions += 1
                delay = 0.25
                if self.subscriptions > 1:
                    log.warning("message queue: subscribed again (%d)", self.subscriptions)
                    self._resubscribed()
                yield from pubsub.listen()
            except Exception as exc:  # noqa: BLE001 - any Redis failure: wait, then subscribe again
                log.error("message queue: cannot receive from Redis (%s); retrying in %.2f s", exc, delay)
                time.sleep(delay)
                delay = min(delay * 2, self.retry_max)

    def _resubscribed(self) -> None:
        """Run the hook in its own thread: it reads the database and must not stall the listener."""
        hook = self.on_resubscribed
        if hook is None:
            return

        def run() -> None:
            try:
                hook()
            except Exception:  # the listener must go on whatever the hook does
                log.exception("message queue: resubscription hook failed")

        self.server.start_background_task(run)
