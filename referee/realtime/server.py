"""`referee serve`'s server: gevent, so an open websocket or a slow client costs a greenlet, not a thread.

Under gunicorn's threaded worker each open websocket, and each request whose headers were still
arriving, held one of its threads: 100 bare websockets, or 110 requests sent a byte at a time,
from one phone made every other page wait. Here (gevent's WSGI server with gevent-websocket, as
Flask-SocketIO's gevent mode wants) an idle socket is a greenlet and ~50 kB, and on top of that:

- open websockets per client address are capped (WEBSOCKETS_PER_ADDRESS): the next handshake
  gets 429 with a JSON body;
- connections per client address that are not websockets (requests, keep-alive, long-polling)
  are capped (CONNECTIONS_PER_ADDRESS): the next one gets 503 with a JSON body, at once, unread;
- requests that change something (POST, PUT, PATCH, DELETE) are rate limited per client (its
  address and cookies: POSTS_PER_SECOND, bursts of POSTS_BURST) and per address (ADDRESS_SHARE
  times that, for the phones behind one address): the next gets 429 with Retry-After, before the
  app. Each is cheap, but a phone sending hundreds a second kept the event loop busy for everyone;
- a request line and headers must arrive within HEADER_TIMEOUT seconds of the connection (or
  of the previous response on a keep-alive connection), else 408 and the connection is closed;
- sqlite3's calls run in a thread pool (referee.store.sqlite_threads): a commit's fsync or a wait for
  SQLite's write lock no longer stops every greenlet. PostgreSQL (psycopg 3 waits through the
  patched `select` when it sees gevent) and Redis (redis-py on patched sockets) are cooperative.

No forwarded header is trusted here: REMOTE_ADDR is the peer and the scheme is http. With
PROXY_FIX = N (behind deploy/nginx.conf) the app's ProxyFix takes the client address from
X-Forwarded-For, and so do the websocket caps; the connection cap is then nginx's job
(`limit_conn`), since every connection comes from nginx.

The standard library must be monkey-patched before anything imports it: `referee serve`
re-executes itself through referee/cli/serve_gevent.py for that (see referee.cli).
"""

from __future__ import annotations

import json
import logging
import math
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import gevent  # type: ignore[import-untyped]
from gevent.pywsgi import LoggingLogAdapter, WSGIHandler, WSGIServer  # type: ignore[import-untyped]
from geventwebsocket.handler import WebSocketHandler  # type: ignore[import-untyped]
from geventwebsocket.websocket import WebSocket as _WebSocket  # type: ignore[import-untyped]
from werkzeug.http import parse_list_header

from referee.log_config import ACCESS, SERVER_ERRORS
from referee.realtime import frames, hooks_on
from referee.realtime.collector import DESERTED_AFTER, collect_calmly, collect_when_quiet
from referee.web.logs import RedactSecrets

try:
    import resource
except ImportError:  # Windows: no open-files limit to raise
    resource = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

T = TypeVar("T")
log.addFilter(RedactSecrets())  # a bad request line is logged, and may hold a token


@dataclass(frozen=True)
class Limits:
    """What one client address may hold (see config/referee.toml)."""

    websockets_per_address: int = 100
    connections_per_address: int = 200
    header_timeout: float = 10.0
    max_message: int = 65536  # SOCKETIO_MAX_HTTP_BUFFER_SIZE: the longest websocket message taken
    proxies: int = 0  # PROXY_FIX: how many proxies' X-Forwarded-For to trust
    max_body: int = 262144  # MAX_CONTENT_LENGTH: the largest request body any route takes
    posts_per_second: float = 20.0  # POSTS_PER_SECOND: requests that change something, per address
    posts_burst: int = 100  # POSTS_BURST

    @classmethod
    def from_config(cls, config: Any) -> Limits:
        """Read the caps, HEADER_TIMEOUT, SOCKETIO_MAX_HTTP_BUFFER_SIZE and PROXY_FIX from config; refuse nonsense."""
        limits = cls(
            websockets_per_address=int(config.get("WEBSOCKETS_PER_ADDRESS", cls.websockets_per_address)),
            connections_per_address=int(config.get("CONNECTIONS_PER_ADDRESS", cls.connections_per_address)),
            header_timeout=float(config.get("HEADER_TIMEOUT", cls.header_timeout)),
            max_message=int(config.get("SOCKETIO_MAX_HTTP_BUFFER_SIZE", cls.max_message)),
            proxies=int(config.get("PROXY_FIX") or 0),
            max_body=int(config.get("MAX_CONTENT_LENGTH") or cls.max_body),
            posts_per_second=float(config.get("POSTS_PER_SECOND", cls.posts_per_second)),
            posts_burst=int(config.get("POSTS_BURST", cls.posts_burst)),
        )
        if not (limits.posts_per_second > 0 and limits.posts_burst >= 1):
            raise ValueError("POSTS_PER_SECOND must be above 0 and POSTS_BURST at least 1")
        if limits.websockets_per_address < 1 or limits.connections_per_address < 1:
            raise ValueError("WEBSOCKETS_PER_ADDRESS and CONNECTIONS_PER_ADDRESS must be at least 1")
        if limits.max_message < 1:
            raise ValueError("SOCKETIO_MAX_HTTP_BUFFER_SIZE must be at least 1")
        if not 0 < limits.header_timeout <= 3600:
            raise ValueError("HEADER_TIMEOUT must be between 0 and 3600 seconds")
        return limits


class Tally:
    """How many of something each address holds, up to a limit.

    No lock: every handler is a greenlet of the one hub thread, and nothing here yields.
    """

    def __init__(self, limit: int) -> None:
        """Allow `limit` per address."""
        self.limit = limit
        self.counts: dict[str, int] = {}

    def take(self, address: str) -> bool:
        """Count one more for `address`; False (and nothing counted) when it is at the limit."""
        held = self.counts.get(address, 0)
        if held >= self.limit:
            return False
        self.counts[address] = held + 1
        return True

    def give(self, address: str) -> None:
        """Count one fewer for `address`."""
        held = self.counts.get(address, 0) - 1
        if held > 0:
            self.counts[address] = held
        else:
            self.counts.pop(address, None)


class Buckets:
    """A token bucket per address: `rate` a second, holding at most `burst` (no lock: see Tally)."""

    KEPT = 10000  # addresses remembered; a full bucket is forgotten first, then the oldest

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.clock = clock
        self.held: dict[str, tuple[float, float]] = {}  # address -> (tokens, when counted)

    def take(self, address: str) -> float:
        """Take a token for `address`: 0.0 if it had one, else the seconds until it has one."""
        now = float(self.clock())
        tokens, then = self.held.get(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens < 1.0:
            self.held[address] = (tokens, now)
            return (1.0 - tokens) / self.rate
        if len(self.held) >= self.KEPT and address not in self.held:
            self._forget(now)
        self.held[address] = (tokens - 1.0, now)
        return 0.0

    def _forget(self, now: float) -> None:
        full = [a for a, (t, w) in self.held.items() if t + (now - w) * self.rate >= self.burst]
        for address in full or list(self.held)[: len(self.held) // 2]:
            del self.held[address]


def client_address(environ: dict[str, Any], peer: str, proxies: int) -> str:
    """The client's address as the app's ProxyFix(x_for=proxies) will see it: the peer without a proxy."""
    if proxies > 0:
        forwarded = parse_list_header(environ.get("HTTP_X_FORWARDED_FOR", ""))
        if len(forwarded) >= proxies and forwarded[-proxies]:
            return str(forwarded[-proxies])
    return peer


def _json_response(status: str, error: str, message: str, extra: str = "") -> bytes:
    body = json.dumps({"error": error, "message": message}).encode()
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        f"{extra}Connection: close\r\n\r\n"
    ).encode("latin-1") + body


TOO_MANY_CONNECTIONS = _json_response(
    "503 Service Unavailable",
    "too_many_connections",
    "Too many connections from your address; close some pages and try again.",
    "Retry-After: 5\r\n",
)
HEADERS_TOO_SLOW = _json_response("408 Request Timeout", "request_timeout", "The request took too long to arrive.")
BODY_FAR_TOO_LARGE = _json_response(
    "413 Content Too Large", "too_large", "This request is far too large for any route of this server."
)
FAR_TOO_LARGE = 2
"""A body announced this many times the largest any route takes is refused before the app, unread.

(The app refuses a smaller one with its own words, and pywsgi then reads the body to keep the
connection: a megabyte for every refusal, from twenty connections, held the loop.)"""


class BodyFarTooLarge(ValueError):
    """A request announced a body far larger than any route takes: refused without reading it."""


TOO_MANY_POSTS_BODY = json.dumps(
    {"error": "rate_limited", "message": "Too many requests from your address; wait a moment and try again."}
).encode()
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
ADDRESS_SHARE = 5
"""An address may send this many clients' worth of POSTs (a few phones behind one router)."""
TOO_MANY_SOCKETS_BODY = json.dumps(
    {"error": "too_many_sockets", "message": "Too many open pages from your address; close some and reload."}
).encode()


class HeadersLate(BaseException):
    """The request line and headers did not arrive in time.

    A BaseException, like gevent.Timeout: pywsgi's `except Exception` around header parsing
    must not turn it into a logged 400.
    """


class Handler(WebSocketHandler):  # type: ignore[misc]
    """gevent-websocket's handler with a header deadline, the per-address websocket cap, and our frame reader."""

    server: Server
    counted = False  # whether this connection is in server.connections (not once it is a websocket)

    def handle_one_request(self) -> Any:
        """Read one request within the header deadline, then handle it without one."""
        self._headers_timer = gevent.Timeout.start_new(self.server.limits.header_timeout, HeadersLate)
        try:
            return super().handle_one_request()
        except HeadersLate:
            try:
                self.socket.sendall(HEADERS_TOO_SLOW)
            except OSError:
                pass
            return None  # handle() closes the connection
        finally:
            self._headers_timer.close()

    def read_request(self, raw_requestline: str) -> Any:
        """Parse the headers; the deadline covers only them, not the application.

        A body announced far larger than any route takes is refused here, before it is read.
        """
        try:
            parsed = super().read_request(raw_requestline)
        finally:
            self._headers_timer.close()
        if parsed and (self.content_length or 0) > FAR_TOO_LARGE * self.server.limits.max_body:
            raise BodyFarTooLarge(self.content_length)
        return parsed

    def start_response(self, status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        """Say `Connection: close` when the connection will close (pywsgi does not, on HTTP/1.1).

        Without it a client that sent `Connection: close` (or whose socket attempt this is) may
        put the connection back in its pool and send its next request into a closed socket.
        """
        if self.close_connection and not any(name.lower() == "connection" for name, _value in headers):
            headers = [*headers, ("Connection", "close")]
        return super().start_response(status, headers, exc_info)

    def log_request(self) -> None:
        """Write the request's line to the access log, if the server keeps one (pywsgi's way).

        gevent-websocket's own version writes every request to the server's logger at INFO,
        whether an access log was asked for or not.
        """
        WSGIHandler.log_request(self)

    def run_application(self) -> Any:
        """Run the app; a websocket handshake first takes one of its address's websocket places.

        A request that changes something first takes a token of its address's bucket.
        """
        self.server.last_request = time.monotonic()
        if self.environ.get("HTTP_UPGRADE", "").lower() != "websocket":
            if self.environ.get("REQUEST_METHOD") in UNSAFE_METHODS:
                server = self.server
                address = client_address(self.environ, self.client_address[0], server.limits.proxies)
                client = f"{address} {self.environ.get('HTTP_COOKIE', '')}"
                wait = server.posts.take(client) or server.address_posts.take(address)
                if wait:
                    return self._refuse_post(wait)
            return super().run_application()
        server = self.server
        address = client_address(self.environ, self.client_address[0], server.limits.proxies)
        self.close_connection = True  # a websocket attempt is the connection's last request
        if not server.websockets.take(address):
            return self._refuse_socket()
        if self.counted and server.connections is not None:
            # From now on an idle websocket: counted as one, not as a connection.
            server.connections.give(str(self.client_address[0]))
            self.counted = False
        try:
            return super().run_application()
        finally:
            server.websockets.give(address)

    def upgrade_websocket(self) -> Any:
        """Answer the handshake; the websocket then reads its frames as `frames.WebSocket` does."""
        answer = super().upgrade_websocket()
        ws = getattr(self, "websocket", None)  # none when this request is not a handshake
        if ws is not None and type(ws) is _WebSocket and frames.USED:
            ws.__class__ = frames.WebSocket  # made by gevent-websocket's handler: only its reading changes
        return answer

    def _refuse_post(self, wait: float) -> None:
        self.start_response(
            "429 Too Many Requests",
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(TOO_MANY_POSTS_BODY))),
                ("Retry-After", str(max(1, math.ceil(wait)))),
            ],
        )
        self.write(TOO_MANY_POSTS_BODY)

    def _refuse_socket(self) -> None:
        self.start_response(
            "429 Too Many Requests",
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(TOO_MANY_SOCKETS_BODY))),
                ("Retry-After", "5"),
            ],
        )
        self.write(TOO_MANY_SOCKETS_BODY)


class HandlerAnswering413(Handler):
    """Handler, and a far too large body answered 413 through pywsgi's private hook for requests it could not read.

    Without the hook (another gevent, or REFEREE_LIBRARY_HOOKS=0) pywsgi answers such a request
    400 itself: refused unread all the same.
    """

    def _handle_client_error(self, ex: BaseException) -> Any:
        """A far too large body is a 413, unread, and the end; anything else as pywsgi answers it."""
        if isinstance(ex, BodyFarTooLarge):
            self.close_connection = True
            return ("413", BODY_FAR_TOO_LARGE)
        return super()._handle_client_error(ex)


def fits() -> bool:
    """Tell whether this gevent has the private hook HandlerAnswering413 overrides; warn once if not."""
    if callable(getattr(WSGIHandler, "_handle_client_error", None)):
        return True
    log.warning("gevent's WSGIHandler has no _handle_client_error: a far too large body is answered 400, not 413")
    return False


def handler_class() -> type[Handler]:
    """The handler `referee serve` uses: with the private hook where it fits and hooks are on."""
    return HandlerAnswering413 if hooks_on() and fits() else Handler


class Server(WSGIServer):  # type: ignore[misc]
    """gevent's WSGI server, with the connection cap applied as each connection is accepted."""

    handler_class = Handler

    def __init__(
        self, listener: tuple[str, int] | socket.socket, application: Any, limits: Limits, *, access_log: bool = False
    ) -> None:
        """Listen on `listener` (an address, or a socket bound already) and serve `application` within `limits`.

        One line a request if `access_log`.
        """
        host = listener[0] if isinstance(listener, tuple) else str(listener.getsockname()[0])
        super().__init__(
            listener,
            application,
            # Off unless asked for; on, its lines pass the redaction every record does (request lines hold tokens).
            log=LoggingLogAdapter(logging.getLogger(ACCESS), logging.INFO) if access_log else None,
            # A logger outside the app's tree ("referee"): see referee.log_config.
            error_log=LoggingLogAdapter(logging.getLogger(SERVER_ERRORS), logging.WARNING),
            # Set, so gevent does not look the host name up (getfqdn) on a Wi-Fi with no DNS.
            environ={"SERVER_NAME": host or "localhost"},
        )
        self.limits = limits
        self.logger = log  # gevent-websocket logs its handshake refusals here
        self.websockets = Tally(limits.websockets_per_address)
        self.posts = Buckets(limits.posts_per_second, limits.posts_burst)
        self.address_posts = Buckets(ADDRESS_SHARE * limits.posts_per_second, ADDRESS_SHARE * limits.posts_burst)
        # Behind a proxy every connection is the proxy's: nginx caps per client (limit_conn).
        self.connections = Tally(limits.connections_per_address) if limits.proxies == 0 else None
        self.last_request = time.monotonic()

    def deserted(self) -> bool:
        """Tell whether nobody is here: no websocket open and no request for DESERTED_AFTER seconds."""
        return not self.websockets.counts and time.monotonic() - self.last_request >= DESERTED_AFTER

    def handle(self, sock: Any, address: tuple[Any, ...]) -> None:
        """Refuse a connection past its address's cap at once; else handle it as pywsgi does."""
        no_delay(sock)
        peer = str(address[0])
        if self.connections is not None and not self.connections.take(peer):
            with gevent.Timeout(1, False):  # a client that reads nothing must not hold us
                try:
                    sock.sendall(TOO_MANY_CONNECTIONS)
                except OSError:
                    pass
            return  # the StreamServer closes the socket
        handler = self.handler_class(sock, address, self)
        handler.counted = self.connections is not None
        try:
            handler.handle()
        finally:
            if handler.counted and self.connections is not None:
                self.connections.give(peer)


def no_delay(sock: Any) -> None:
    """Send each write at once (TCP_NODELAY).

    pywsgi writes an answer's headers and its body in two writes. With Nagle's algorithm the body
    then waited for the client's acknowledgement of the headers, which a client delays by up to
    40 ms: every answer on a kept-alive connection took about 44 ms, where a new one took 2-3 ms.
    """
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:  # the client has already gone: pywsgi finds out when it reads
            pass


def serve(
    application: Any,
    listener: socket.socket,
    limits: Limits,
    busy: Callable[[], bool] = lambda: False,
    *,
    access_log: bool = False,
) -> None:
    """Serve on a bound, listening socket until killed; `busy` tells when an entry is running (no collection then)."""
    server = Server(listener, application, limits, access_log=access_log)
    server.handler_class = handler_class()
    host, port = listener.getsockname()[:2]
    log.info(
        "serving on %s:%d with gevent (%d websockets and %d connections per address, headers within %g s)",
        host,
        port,
        limits.websockets_per_address,
        limits.connections_per_address,
        limits.header_timeout,
    )
    collect_calmly()
    gevent.spawn(collect_when_quiet, busy, deserted=server.deserted)
    server.serve_forever()
