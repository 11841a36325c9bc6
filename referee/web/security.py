"""Security headers on every response, and CSRF protection of state-changing requests."""

from __future__ import annotations

import hmac
import secrets

from flask import Flask, Response, abort, request, session
from flask_babel import gettext as _  # type: ignore[import-untyped]

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


def _token_ok(sent: str | None) -> bool:
    expected = session.get(CSRF_SESSION_KEY)
    return bool(sent) and isinstance(expected, str) and hmac.compare_digest(str(sent), expected)


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


def init_app(app: Flask) -> None:
    """Install the security headers and the CSRF check on an app."""
    app.before_request(check_csrf)
    app.after_request(add_security_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token
