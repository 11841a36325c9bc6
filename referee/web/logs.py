"""Keep capability tokens and pilot slips out of log lines.

A request line such as `GET /g/abc/team?t=SECRET` would otherwise land in the terminal (Werkzeug's
request log) or a proxy's access log, and anyone reading over the referee's shoulder could join a team.

Redaction happens where every log record is made (logging.setLogRecordFactory), not in a filter on
some loggers: a filter on a logger does not run for records of its child loggers, nor for loggers
made later (the app's own `unhandled error on GET /s/<slip>` slipped through that way), while every
record of every logger comes from the factory, whichever handler prints it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

REDACTED = "[redacted]"
_PATTERNS = (
    # ?t=, ?token= (links)
    (re.compile(r"([?&](?:t|token)=)[^&\s\"'\\]+"), r"\1" + REDACTED),
    # /s/<slip> (pilot slips)
    (re.compile(r"(/s/)[A-Za-z0-9_.\-]+"), r"\1" + REDACTED),
    # a bare slip code, <game>.<order>.<16-character signature> (an exception's message)
    (
        re.compile(
            r"(?<![A-Za-z0-9_.\-])[A-Za-z0-9_\-]{4,32}\.[A-Za-z0-9_\-]{1,32}\.[A-Za-z0-9_\-]{16}(?![A-Za-z0-9_.\-])"
        ),
        REDACTED,
    ),
    # "slip": "<slip>" in a logged Socket.IO packet or JSON body
    (re.compile(r"(\"slip\"\s*:\s*\")[^\"]*"), r"\1" + REDACTED),
    # Cookie-style token=value pairs of our capability cookies (a logged Cookie header)
    (re.compile(r"\b((?:referee|(?:dv|rg|pj)_[A-Za-z0-9_\-]+)=)[^;\s\"',]+"), r"\1" + REDACTED),
)


def redact(text: str) -> str:
    """Return `text` with every token and slip code replaced by a marker."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact_record(record: logging.LogRecord) -> None:
    """Rewrite a record's message, traceback and stack without secrets (in place)."""
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a broken format string: logging reports it when a handler formats the record
        return
    cleaned = redact(message)
    if cleaned != message:
        record.msg, record.args = cleaned, None
    if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
        # Formatters reuse exc_text when it is set, so the traceback is printed as redacted here.
        record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
    elif record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


class RedactSecrets(logging.Filter):
    """A logging filter that redacts tokens and slips from a record (for handlers made by hand)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record without secrets; never drop the record."""
        redact_record(record)
        return True


def _redacting(base: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = base(*args, **kwargs)
        redact_record(record)
        return record

    factory.redacts = True  # type: ignore[attr-defined]
    return factory


def install() -> None:
    """Make every log record of every logger, now and later, redacted when made (idempotent)."""
    current = logging.getLogRecordFactory()
    if not getattr(current, "redacts", False):
        logging.setLogRecordFactory(_redacting(current))
