"""Error handlers: JSON under /api/, a friendly page elsewhere, never a traceback."""

from __future__ import annotations

import html
import math

from flask import Flask, Response, current_app, jsonify, make_response, render_template, request
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.exceptions import HTTPException, InternalServerError

from referee.rules.errors import MalformedAction, NotYourTurn, RulesError
from referee.store import GameNotFound, StoreBusy
from referee.web.i18n import say

RETRY_AFTER_DEFAULT = 60


def _slug(exc: HTTPException) -> str:
    return str(exc.name or "error").lower().replace(" ", "_").replace("'", "")


def wants_json() -> bool:
    """Tell whether the current request is an API request (path under /api/)."""
    return request.path.startswith("/api/") or request.path == "/api"


def _friendly(code: int) -> str:
    messages: dict[int, str] = {
        400: _("The request could not be understood."),
        403: _("You may not open this page."),
        404: _("This page does not exist."),
        405: _("This page cannot be used like that."),
        429: _("Too many attempts. Wait a minute and try again."),
        500: _("Something went wrong on the referee's computer."),
        503: _("The referee's computer is busy. Try again in a moment."),
    }
    return str(messages.get(code, _("Something went wrong.")))


def _render(code: int, slug: str, message: str) -> Response:
    if wants_json():
        return make_response(jsonify({"error": slug, "message": message, "status": code}), code)
    try:
        return make_response(render_template("error.html", code=code, message=message), code)
    except Exception:  # an error page must never become a traceback: this one is made of nothing
        current_app.logger.exception("error page failed to render")
        return make_response((_bare_page(code, message), code, {"Content-Type": "text/html; charset=utf-8"}))


def _bare_page(code: int, message: str) -> str:
    """An error page from nothing that can fail: no template, no URL, no catalogue."""
    return (
        f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{code}</title></head>'
        f"<body><main><h1>{code}</h1><p>{html.escape(message)}</p></main></body></html>\n"
    )


def handle_http_error(exc: HTTPException) -> Response:
    """Render an HTTP error as JSON (API) or the error page; keep its headers (Retry-After, Allow)."""
    code = exc.code or 500
    # Werkzeug's stock English descriptions are replaced by our translated ones.
    own = exc.description and exc.description != type(exc).description
    response = _render(code, _slug(exc), str(exc.description) if own else _friendly(code))
    for key, value in exc.get_headers():
        if key.lower() != "content-type":
            response.headers[key] = value
    if code == 429 and "Retry-After" not in response.headers:
        # Every 429 says when to come back; our limits all count in windows of a minute.
        response.headers["Retry-After"] = str(RETRY_AFTER_DEFAULT)
    return response


def handle_rules_error(exc: RulesError) -> Response:
    """A rules refusal: 400 if malformed, 403 if not this role's to take, else 409; with the core's code."""
    code = 400 if isinstance(exc, MalformedAction) else 403 if isinstance(exc, NotYourTurn) else 409
    return _render(code, exc.code, say(exc.message))


def handle_store_error(exc: Exception) -> Response:
    """Store failures a user may see: unknown game (404), or a database that cannot write now (503 `busy`).

    A 503 says nothing was stored and when to try again (`retry_after`, and Retry-After): the
    same entry, with its client id, is then applied once.
    """
    if isinstance(exc, GameNotFound):
        return _render(404, "not_found", _friendly(404))
    retry_after = exc.retry_after if isinstance(exc, StoreBusy) else StoreBusy.retry_after
    message = _("The referee's computer could not save this yet; try again in a moment.")
    if wants_json():
        response = make_response(
            jsonify({"error": "busy", "message": message, "status": 503, "retry_after": retry_after}), 503
        )
    else:
        response = _render(503, "busy", message)
    response.headers["Retry-After"] = str(math.ceil(retry_after))
    return response


def handle_unexpected(exc: Exception) -> Response:
    """Any other exception: log it with its traceback, answer a plain 500."""
    if isinstance(exc, HTTPException):
        return handle_http_error(exc)
    current_app.logger.exception("unhandled error on %s %s", request.method, request.path)
    return handle_http_error(InternalServerError(_friendly(500)))


def init_app(app: Flask) -> None:
    """Register the error handlers on an app."""
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(RulesError, handle_rules_error)
    app.register_error_handler(GameNotFound, handle_store_error)
    app.register_error_handler(StoreBusy, handle_store_error)
    app.register_error_handler(Exception, handle_unexpected)
