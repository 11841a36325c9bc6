"""Security headers, the Host allowlist, bounded JSON bodies, and CSRF protection.

Every request passes, in this order: the Host check (DNS rebinding), the JSON body check
(nesting depth bounded before parsing), the CSRF check; every response gets the headers.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
import secrets
import socket
from collections.abc import Callable, Iterable
from itertools import accumulate
from typing import Any

from flask import Flask, Request, Response, abort, current_app, request, session
from flask.json.provider import DefaultJSONProvider
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.exceptions import BadRequest

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


def check_json_body() -> None:
    """before_request: parse a JSON body once, bounded, before any handler or guard works on it.

    Handlers read it later with request.get_json(silent=True), from the cache.
    """
    if request.is_json and request.get_data(cache=True):
        request.get_json()


# --- Host allowlist ------------------------------------------------------------------------------

_HOST = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.%\w]+)\]|(?P<name>[^:\[\]]+))(?::\d{1,5})?$")


def machine_names() -> set[str]:
    """This machine's own names: localhost, its host name, and its mDNS (`.local`) name."""
    names = {"localhost"}
    full = socket.gethostname().lower().rstrip(".")
    if full:
        short = full.split(".", 1)[0]
        names |= {full, short, f"{short}.local"}
    return names


def host_checker(allowed: Iterable[str]) -> Callable[[str | None], bool]:
    """Return a check of a Host header: an IP literal, this machine's names, or `allowed`.

    In `allowed`, ".example.org" also matches every name under it and "*" matches anything
    (a proxy in front that checks names itself).
    """
    extra = {a.lower().rstrip(".") for a in allowed if a}
    anything = "*" in extra
    exact = machine_names() | {a for a in extra if not a.startswith(".")}
    suffixes = tuple(a for a in extra if a.startswith("."))

    def ok(host: str | None) -> bool:
        if anything:
            return True
        match = _HOST.match(host or "")
        if match is None or len(host or "") > 300:
            return False
        name = (match.group("v6") or match.group("name")).lower().rstrip(".")
        try:
            ipaddress.ip_address(name.split("%", 1)[0])
            return True
        except ValueError:
            pass
        return name in exact or (bool(suffixes) and (name.endswith(suffixes) or f".{name}" in suffixes))

    return ok


class UnknownHost(BadRequest):
    """400 `unknown_host`: a Host header that is not this machine's (a DNS-rebinding page)."""

    @property
    def name(self) -> str:
        """The error code the JSON answer carries."""
        return "unknown_host"


def host_allowed(host: str | None, app: Flask | None = None) -> bool:
    """Tell whether an app (the current one by default) serves this Host header."""
    check: Callable[[str | None], bool] = (app or current_app).extensions["referee.host_check"]
    return check(host)


def check_host() -> None:
    """before_request: refuse a request for a host name this server does not answer to."""
    if not host_allowed(request.host):
        raise UnknownHost(_("Unknown host: open the referee's address as the referee's computer shows it."))


def init_app(app: Flask) -> None:
    """Install the Host check, bounded JSON, the CSRF check and the security headers on an app."""
    allowed = app.config.get("ALLOWED_HOSTS") or ()
    if isinstance(allowed, str):  # REFEREE_ALLOWED_HOSTS=club.example,referee.lan
        allowed = allowed.replace(",", " ").split()
    app.extensions["referee.host_check"] = host_checker(allowed)
    app.request_class = BoundedRequest
    app.json = BoundedJSONProvider(app)
    app.before_request(check_host)
    app.before_request(check_json_body)
    app.before_request(check_csrf)
    app.after_request(add_security_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token
