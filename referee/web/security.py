"""Security headers, the Host allowlist, bounded JSON bodies, and CSRF protection.

Every request passes, in this order: the Host check (`HostGate`, outside the app: a malformed
Host, or a DNS-rebinding page's), the body's size (its route's bound, from Content-Length,
before any of it is read), the CSRF check, the JSON body check (nesting depth bounded before
parsing); every response gets the headers.
"""

from __future__ import annotations

import hmac
import html
import ipaddress
import json
import re
import secrets
import socket
from collections.abc import Callable, Iterable, Mapping
from itertools import accumulate
from typing import Any, TypeVar

from flask import Flask, Request, Response, abort, current_app, request, session
from flask.json.provider import DefaultJSONProvider
from flask_babel import force_locale  # type: ignore[import-untyped]
from flask_babel import gettext as _
from werkzeug.datastructures import LanguageAccept
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge
from werkzeug.http import parse_accept_header
from werkzeug.middleware.proxy_fix import ProxyFix

CSRF_SESSION_KEY = "_csrf"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
# Content types a cross-site <form> (or a no-preflight fetch) can send.
SIMPLE_TYPES = frozenset({"", "application/x-www-form-urlencoded", "multipart/form-data", "text/plain"})

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "connect-src 'self' ws: wss:",
        "media-src 'self' blob: data:",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
    ]
)
# Pilots scan QR codes with the camera; nothing else is needed.
PERMISSIONS_POLICY = "camera=(self), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()"


def add_security_headers(response: Response) -> Response:
    """after_request: set CSP, Referrer-Policy, nosniff, frame denial and Permissions-Policy."""
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
    headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    return response


def csrf_token() -> str:
    """Return this session's CSRF token (created on first use); put it in forms and X-CSRF-Token."""
    token = session.get(CSRF_SESSION_KEY)
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session[CSRF_SESSION_KEY] = token
    return token


def same_text(a: str, b: str) -> bool:
    """Compare two secrets in constant time; any text (hmac.compare_digest refuses non-ASCII str)."""
    return hmac.compare_digest(a.encode("utf-8", "backslashreplace"), b.encode("utf-8", "backslashreplace"))


def _token_ok(sent: str | None) -> bool:
    expected = session.get(CSRF_SESSION_KEY)
    return bool(sent) and isinstance(expected, str) and same_text(str(sent), expected)


def _same_origin() -> bool:
    """Judge a request by the browser's own signals; True if it sent none (not a browser)."""
    site = request.headers.get("Sec-Fetch-Site")
    if site:
        return site in ("same-origin", "none")
    origin = request.headers.get("Origin")
    if origin:
        return origin == request.host_url.rstrip("/")
    return True


def check_csrf() -> None:
    """before_request: refuse (403) an unsafe request without a valid CSRF token.

    Form-like bodies must carry the token (form field or header). Other bodies (JSON), which a
    cross-site page cannot send without a CORS preflight we never grant, pass with the header
    or when the browser says the request is same-origin.
    """
    if request.method in SAFE_METHODS:
        return
    if _token_ok(request.headers.get(CSRF_HEADER)):
        return
    # Only a POST can come from a cross-site form; other methods cross sites only with a CORS
    # preflight, which we never grant.
    simple = request.method == "POST" and (request.mimetype or "") in SIMPLE_TYPES
    if simple and _token_ok(request.form.get(CSRF_FIELD)):
        return
    if not simple and _same_origin():
        return
    abort(403, description=_("This form has expired or came from another site. Reload the page and try again."))


# --- Bounded JSON -------------------------------------------------------------------------------

# Our deepest real body is an action's squares in a list in an object in an object (4); json.loads
# recurses once per level and dies with RecursionError near 1,000.
MAX_JSON_DEPTH = 32
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\Z)', re.S)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_DEPTH_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def json_depth(text: str | bytes) -> int:
    """Return how deep the arrays and objects of a JSON text nest, without parsing it.

    Linear and recursion-free: strings are cut out, then the brackets left are summed up in C
    (a 1 MiB body of brackets takes a few tens of milliseconds).
    """
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", raw))
    if not brackets:
        return 0
    return max(0, max(accumulate(map(_DEPTH_STEP.__getitem__, brackets))))


class JSONTooDeep(ValueError):
    """A JSON text nested deeper than MAX_JSON_DEPTH (refused before it is parsed)."""


def bounded_loads(text: str | bytes, loads: Callable[..., Any] = json.loads, **kwargs: Any) -> Any:
    """Parse JSON whose nesting is at most MAX_JSON_DEPTH; every failure is a ValueError."""
    if json_depth(text) > MAX_JSON_DEPTH:
        raise JSONTooDeep(f"nested deeper than {MAX_JSON_DEPTH}")
    try:
        return loads(text, **kwargs)
    except RecursionError as exc:  # not a ValueError: Flask's silent get_json would let it through
        raise JSONTooDeep(str(exc)) from None


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's JSON, with the nesting depth checked before parsing (request.get_json, sessions)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        """Parse like Flask does, refusing deep nesting with a ValueError."""
        return bounded_loads(s, json.loads, **kwargs)


class MalformedBody(BadRequest):
    """400 `malformed`: a body that is not JSON, or nests too deep."""

    @property
    def name(self) -> str:
        """The error code the JSON answer carries."""
        return "malformed"


class BoundedRequest(Request):
    """A request whose JSON failures say what went wrong (Flask's own 400 says nothing)."""

    def on_json_loading_failed(self, e: ValueError | None) -> Any:
        """Raise a 400 naming the problem; a wrong Content-Type stays Flask's 415."""
        if e is None:
            return super().on_json_loading_failed(e)
        if isinstance(e, JSONTooDeep):
            raise MalformedBody(_("The JSON is nested too deeply (at most %(depth)d levels).", depth=MAX_JSON_DEPTH))
        raise MalformedBody(_("The body is not valid JSON."))


# --- Bounded bodies ------------------------------------------------------------------------------

BODY_LIMIT = 64 * 1024
"""The longest body a route takes unless it says otherwise: an action, a draft fleet, a form."""
RULESET_BODY_LIMIT = 256 * 1024
"""For the routes that take a whole ruleset (100,000 characters of TOML at most, escaped in JSON)."""

V = TypeVar("V", bound=Callable[..., Any])


def body_limit(limit: int) -> Callable[[V], V]:
    """Mark a view as taking bodies of up to `limit` bytes (else BODY_LIMIT)."""

    def mark(view: V) -> V:
        view.body_limit = limit  # type: ignore[attr-defined]
        return view

    return mark


def check_body_size() -> None:
    """before_request, first of all: a body longer than its route takes is refused (413) before it is read.

    From its Content-Length, so none of it is read (a 1 MiB body from twenty connections once
    cost every other client a half-second wait); a chunked body is cut off at the same bound.
    """
    view = current_app.view_functions.get(request.endpoint or "")
    limit = min(
        int(getattr(view, "body_limit", BODY_LIMIT)), int(current_app.config.get("MAX_CONTENT_LENGTH") or 2**62)
    )
    request.max_content_length = limit
    length = request.content_length
    if length is not None and length > limit:
        raise RequestEntityTooLarge(_("This request is too large (at most %(kb)d kB).", kb=limit // 1024))


def check_json_body() -> None:
    """before_request: parse a JSON body once, bounded, before any handler or guard works on it.

    Handlers read it later with request.get_json(silent=True), from the cache.
    """
    if request.is_json and request.get_data(cache=True):
        request.get_json()


# --- Host allowlist ------------------------------------------------------------------------------

# A Host header's form: a name of dot-separated labels of 1 to 63 letters, digits, hyphens or
# underscores (an IPv4 address is one), or an IPv6 address in brackets; then an optional port.
# Werkzeug's routing encodes the name as IDNA, which fails on an empty or over-long label: a
# request then had no URL adapter, and its error page failed in turn. Such a Host never gets
# that far now (`HostGate`).
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_HOST = re.compile(
    rf"^(?:\[(?P<v6>[0-9A-Fa-f:.]+(?:%[0-9A-Za-z_.\-]{{1,32}})?)\]|(?P<name>{_LABEL}(?:\.{_LABEL})*\.?))"
    r"(?::(?P<port>[0-9]{1,5}))?$"
)
MAX_HOST = 260  # 253 for the name, a port and brackets: longer is no host at all


def machine_names() -> set[str]:
    """This machine's own names: localhost, its host name, and its mDNS (`.local`) name."""
    names = {"localhost"}
    full = socket.gethostname().lower().rstrip(".")
    if full:
        short = full.split(".", 1)[0]
        names |= {full, short, f"{short}.local"}
    return names


def well_formed_host(host: str | None) -> tuple[str, bool] | None:
    """Return a Host header's name (lower case, no trailing dot) and whether it is an IP address; None if malformed."""
    if not host or len(host) > MAX_HOST:
        return None
    match = _HOST.match(host)
    if match is None:
        return None
    port = match.group("port")
    if port is not None and not 1 <= int(port) <= 65535:
        return None
    v6 = match.group("v6")
    if v6 is not None:
        try:
            ipaddress.IPv6Address(v6.split("%", 1)[0])
        except ValueError:
            return None
        return v6.lower(), True
    name = match.group("name").lower().rstrip(".")
    if len(name) > 253:
        return None
    try:
        ipaddress.IPv4Address(name)
        return name, True
    except ValueError:
        return name, False


def host_checker(allowed: Iterable[str]) -> Callable[[str | None], bool]:
    """Return a check of a Host header: well formed, and an IP literal, this machine's names, or `allowed`.

    In `allowed`, ".example.org" also matches every name under it and "*" matches any well-formed
    host (a proxy in front that checks names itself).
    """
    extra = {a.lower().rstrip(".") for a in allowed if a}
    anything = "*" in extra
    exact = machine_names() | {a for a in extra if not a.startswith(".")}
    suffixes = tuple(a for a in extra if a.startswith("."))

    def ok(host: str | None) -> bool:
        formed = well_formed_host(host)
        if formed is None:
            return False
        name, literal = formed
        if anything or literal:
            return True
        return name in exact or (bool(suffixes) and (name.endswith(suffixes) or f".{name}" in suffixes))

    return ok


def host_allowed(host: str | None, app: Flask | None = None) -> bool:
    """Tell whether an app (the current one by default) serves this Host header."""
    check: Callable[[str | None], bool] = (app or current_app).extensions["referee.host_check"]
    return check(host)


class HostGate:
    """WSGI middleware: a request whose Host is malformed, missing or not this server's gets a 400 at once.

    It stands outside everything else (Socket.IO's handshake included), so nothing of the app runs
    for such a request: its answer was made when the app was, in every language (`refusals`), and
    costs a dictionary look-up. A DNS-rebinding page (its own name pointed at this laptop) is
    refused the same way.
    """

    def __init__(self, app: Any, allowed: Callable[[str | None], bool], refusals: HostRefusals) -> None:
        self.app = app
        self.allowed = allowed
        self.refusals = refusals

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        """Pass a request for one of this server's hosts on; answer any other with the ready 400."""
        if self.allowed(environ.get("HTTP_HOST")):
            return self.app(environ, start_response)
        path = str(environ.get("PATH_INFO") or "")
        body = self.refusals.answer(path.startswith("/api/") or path == "/api", environ.get("HTTP_ACCEPT_LANGUAGE"))
        start_response(
            "400 Bad Request",
            [
                ("Content-Type", "application/json" if body.startswith(b"{") else "text/html; charset=utf-8"),
                ("Content-Length", str(len(body))),
                ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
                ("X-Content-Type-Options", "nosniff"),
                ("Cache-Control", "no-store"),
            ],
        )
        return [body]


class HostRefusals:
    """The unknown-host answers, JSON and a page, one per language, made once."""

    def __init__(self, messages: Mapping[str, str], default: str) -> None:
        self.default = default
        self.json = {
            lang: json.dumps({"error": "unknown_host", "message": text, "status": 400}).encode()
            for lang, text in messages.items()
        }
        self.pages = {
            lang: (
                f'<!doctype html>\n<html lang="{lang}"><head><meta charset="utf-8">'
                '<meta name="viewport" content="width=device-width, initial-scale=1">'
                f"<title>400</title></head><body><main><h1>400</h1><p>{html.escape(text)}</p></main></body></html>\n"
            ).encode()
            for lang, text in messages.items()
        }

    def answer(self, api: bool, accept_language: str | None) -> bytes:
        """Return the JSON answer (API) or the page, in the language the browser prefers of ours."""
        lang = self.default
        if accept_language and len(accept_language) <= 500:
            best = LanguageAccept(parse_accept_header(accept_language)).best_match(self.pages)
            lang = best or self.default
        return (self.json if api else self.pages)[lang]


def host_refusals(app: Flask) -> HostRefusals:
    """Make the unknown-host answers in each of the app's languages, with its catalogues."""
    languages = list(app.config.get("LANGUAGES") or ["en"])
    messages = {}
    with app.test_request_context("/"):
        for lang in languages:
            with force_locale(lang):
                messages[lang] = str(_("Unknown host: open the referee's address as the referee's computer shows it."))
    return HostRefusals(messages, languages[0])


def init_app(app: Flask) -> None:
    """Install the Host check, bounded JSON, the CSRF check and the security headers on an app."""
    allowed = app.config.get("ALLOWED_HOSTS") or ()
    if isinstance(allowed, str):  # REFEREE_ALLOWED_HOSTS=club.example,referee.lan
        allowed = allowed.replace(",", " ").split()
    app.extensions["referee.host_check"] = host_checker(allowed)
    app.request_class = BoundedRequest
    app.json = BoundedJSONProvider(app)
    app.before_request(check_body_size)
    # The CSRF check reads no JSON body: a cross-site request is refused before its body is parsed.
    app.before_request(check_csrf)
    app.before_request(check_json_body)
    app.after_request(add_security_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token


def wrap_wsgi(app: Flask) -> None:
    """Put the Host gate, then the proxy's headers, around the whole app, Socket.IO's middleware included.

    Called last, once Socket.IO has wrapped the app. Behind a reverse proxy (deploy/nginx.conf)
    its X-Forwarded-For/-Proto/-Host are trusted only when told how many proxies there are
    (PROXY_FIX = 1), and they are applied before the Host gate looks. Off by default: a phone
    could otherwise forge its address (the token-failure limit counts per address) or the origin
    check's host. Not X-Forwarded-Port: it would turn Host "club.example" into
    "club.example:443", which no browser's Origin matches.
    """
    app.wsgi_app = HostGate(app.wsgi_app, app.extensions["referee.host_check"], host_refusals(app))  # type: ignore[method-assign]
    proxies = int(app.config.get("PROXY_FIX") or 0)
    if proxies > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)  # type: ignore[method-assign]
