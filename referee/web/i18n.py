"""Page languages (Czech, the home one; English, Dutch, Norwegian bokmål, Swedish), chosen by a `lang` cookie."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from flask import Blueprint, Flask, current_app, redirect, request
from flask_babel import force_locale, get_locale, get_translations, gettext  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from referee.rules.errors import Msg, Name, localize
from referee.web.extensions import babel

bp = Blueprint("i18n", __name__)

LANG_COOKIE = "lang"


def languages() -> list[str]:
    """Return the configured language codes, the default one first."""
    return list(current_app.config["LANGUAGES"])


def select_locale() -> str:
    """Pick the locale: the `lang` cookie, else the browser's Accept-Language, else the default."""
    langs = languages()
    chosen = request.cookies.get(LANG_COOKIE)
    if chosen in langs:
        return str(chosen)
    return browser_language(request.accept_languages, langs) or str(current_app.config["BABEL_DEFAULT_LOCALE"])


# Browsers say "no" or "nn" for Norwegian as often as "nb": bokmål is what we have.
SAME_LANGUAGE = {"no": "nb", "nn": "nb"}


def browser_language(accepted: Iterable[tuple[str, float]], langs: list[str]) -> str | None:
    """Return the offered language the browser likes best, matching by the main subtag.

    Werkzeug's best_match prefers an exact "en" at q=0.5 over "nl-BE" at q=1; a Flemish
    phone should get Dutch, so "nl-BE" counts as "nl" here.
    """
    for tag, quality in sorted(accepted, key=lambda item: -item[1]):
        if quality <= 0:
            continue
        main = tag.replace("_", "-").split("-")[0].lower()
        main = SAME_LANGUAGE.get(main, main)
        if main in langs:
            return main
    return None


def current_lang() -> str:
    """Return the language code of the current request (for <html lang>)."""
    locale = get_locale()
    return locale.language if locale is not None else str(current_app.config["BABEL_DEFAULT_LOCALE"])


def say(message: str) -> str:
    """Translate a message of the rules core (with its values) into the request's language."""
    return localize(message, gettext, current_lang())


# Exact types that hold no message: say_all returns them at once. A view has hundreds of
# values and every push walks every screen's view, so the common cases come first.
_PLAIN = frozenset({str, int, float, bool, type(None)})


def say_all(value: Any) -> Any:
    """Translate every message of the core inside a view (dicts and lists walked, Msgs translated)."""
    kind = type(value)
    if kind is dict:
        return {k: say_all(v) for k, v in value.items()}
    if kind is list:
        return [say_all(v) for v in value]
    if kind in _PLAIN:  # Msg and Name are str subclasses, so never plain
        return value
    if isinstance(value, Msg):
        return say(value)
    if isinstance(value, Name):
        return value.in_language(current_lang())
    if isinstance(value, dict):
        return {k: say_all(v) for k, v in value.items()}
    if isinstance(value, list):
        return [say_all(v) for v in value]
    return value


def catalogue(lang: str) -> Callable[[str], str]:
    """Return the gettext of one language of this app, read once (no forced locale per push)."""
    found: dict[str, Callable[[str], str]] = current_app.extensions.setdefault("referee.catalogues", {})
    translate = found.get(lang)
    if translate is None:
        with force_locale(lang):
            translate = found[lang] = get_translations().ugettext
    return translate


def said(value: Any, lang: str) -> Any:
    """Return a view (or a change) with every message of the core in `lang`: `say_all` for a language.

    What holds no message is returned itself, not copied: a push whose change holds none sends
    one message to every language's room, and a translated view shares the untranslated parts.
    """
    return _said(value, catalogue(lang), lang)


def _said(value: Any, translate: Callable[[str], str], lang: str) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is dict or (kind is not list and isinstance(value, dict)):
        out = None
        for key, item in value.items():
            if type(item) in _PLAIN:
                continue  # most of a view: no call for each of its leaves
            new = _said(item, translate, lang)
            if new is not item:
                if out is None:
                    out = dict(value)
                out[key] = new
        return value if out is None else out
    if kind is list or isinstance(value, list):
        changed = None
        for i, item in enumerate(value):
            if type(item) in _PLAIN:
                continue
            new = _said(item, translate, lang)
            if new is not item:
                if changed is None:
                    changed = list(value)
                changed[i] = new
        return value if changed is None else changed
    if isinstance(value, Msg):
        return localize(value, translate, lang)
    if isinstance(value, Name):
        return value.in_language(lang)
    return value


# Browsers drop tabs and newlines anywhere in a URL (and spaces and controls at its ends), so
# "/\t/evil.example" is followed as "//evil.example": judge a target only once they are gone.
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_INNER_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Link tokens never go back into an address bar or a link (see access.cookies.exchange_url_token).
TOKEN_PARAMS = ("t", "token")


def without_tokens(target: str) -> str:
    """Return a local URL without its `?t=`/`?token=` parameters."""
    parts = urlsplit(target)
    if not parts.query:
        return target
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in TOKEN_PARAMS]
    return urlunsplit(("", "", parts.path, urlencode(query), parts.fragment))


def _safe_next(target: str | None) -> str:
    """Only a same-site path is a valid place to go back to (no open redirect, no header injection)."""
    if not target:
        return "/"
    stripped = _CONTROL.sub("", target)
    if not stripped.startswith("/") or stripped.startswith("//") or "\\" in stripped:
        return "/"
    parts = urlsplit(stripped)
    if parts.scheme or parts.netloc:
        return "/"
    return without_tokens(_INNER_CONTROL.sub("", target.strip("\x00\x20")))


def here_without_tokens() -> str:
    """Return this page's path and query without link tokens (the language links' `next`)."""
    return without_tokens(request.full_path.rstrip("?")) if request else "/"


@bp.get("/lang/<code>")
def set_language(code: str) -> Response:
    """Remember the chosen language in a cookie and go back to `?next=` (or home)."""
    response = redirect(_safe_next(request.args.get("next")), code=303)
    if code in languages():
        response.set_cookie(
            LANG_COOKIE, code, max_age=365 * 24 * 3600, path="/", samesite="Lax", secure=request.is_secure
        )
    return response


def init_app(app: Flask) -> None:
    """Bind Flask-Babel with our locale selector and register the /lang route."""
    babel.init_app(app, locale_selector=select_locale)
    app.jinja_env.globals["current_lang"] = current_lang
    app.jinja_env.globals["here_without_tokens"] = here_without_tokens
    app.register_blueprint(bp)
