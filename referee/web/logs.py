"""Keep capability tokens and pilot slips out of log lines.

A request line such as `GET /g/abc/team?t=SECRET` would otherwise land in the terminal (Werkzeug's
request log) or a proxy's access log, and anyone reading over the referee's shoulder could join a team.
"""

from __future__ import annotations

import logging
import re

REDACTED = "[redacted]"
# ?t=, ?token= (links), /s/<slip> (pilot slips), and Cookie-style token=value pairs.
_PATTERNS = (
    (re.compile(r"([?&](?:t|token)=)[^&\s\"']+"), r"\1" + REDACTED),
    (re.compile(r"(/s/)[A-Za-z0-9_.\-]+"), r"\1" + REDACTED),
)


def redact(text: str) -> str:
    """Return `text` with every token and slip code replaced by a marker."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactSecrets(logging.Filter):
    """A logging filter that redacts tokens and slips from a record's final message."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message without secrets; never drop the record."""
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


# Loggers that print request lines or handshake URLs.
REQUEST_LOGGERS = ("werkzeug", "engineio.server", "socketio.server", "gunicorn.access", "gunicorn.error")


def install() -> None:
    """Attach the redacting filter to every logger that may print a URL (idempotent)."""
    for name in REQUEST_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())
