"""Logging for every `referee` command, set up once, before anything logs.

One handler on the root logger prints each record as one line: the time, the level, the
logger's name and the message (tokens and slips already redacted where the record was made,
`referee.web.logs`). Because the root logger has a handler, Flask adds none of its own to the
app's logger ("referee"): Flask's default handler writes to the request's `wsgi.errors`, which
under gevent is the server's error log, a logger too, and a record then went round between the
two until Python's recursion limit (a malformed Host header held the event loop 1.6 s a
request that way). The server's own logs are named outside the app's tree for the same reason:
`SERVER_ERRORS` and `ACCESS` below.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
DEFAULT_LEVEL = "INFO"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
DATE_FORMAT = "%Y-%m-%d %H:%M:%S"

SERVER_ERRORS = "gevent.pywsgi"
"""The logger gevent's WSGI server writes its errors to (and the `wsgi.errors` of every request)."""
ACCESS = "gevent.pywsgi.access"
"""The access log's logger: one line a request, when `referee serve --access-log` asks for it."""

_HANDLER_MARK = "_referee_handler"


def parse_level(text: str) -> int:
    """Return the logging level a `--log-level` names (any case); ValueError for another word."""
    name = text.strip().upper()
    if name not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {text!r}")
    return int(logging.getLevelName(name))


def configure(level: str = DEFAULT_LEVEL, *, access_log: bool = False, stream: TextIO | None = None) -> None:
    """Give the root logger its one handler at `level` (again: replace it); the access log on or off.

    Werkzeug's server logs every request at INFO on its own logger: that is its access log, so it
    is quiet unless the access log is asked for, as gevent's is.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, _HANDLER_MARK, False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter(FORMAT, DATE_FORMAT))
    setattr(handler, _HANDLER_MARK, True)
    root.addHandler(handler)
    root.setLevel(parse_level(level))
    quiet = logging.NOTSET if access_log else logging.WARNING
    for name in (ACCESS, "werkzeug"):
        logging.getLogger(name).setLevel(quiet)
    # Alembic names each of its plugins at INFO before every migration check, on every command:
    # its own upgrades ("Running upgrade 0001 -> 0002") stay.
    logging.getLogger("alembic.runtime.plugins").setLevel(max(logging.WARNING, root.level))
