"""What a game's downloads are made of, made once per game version and off the event loop.

`log.json`, `log.csv`, the score sheet and its CSV files grow with the game: a long game's log is
a megabyte of JSON that takes a tenth of a second to write. Four referees' laptops downloading it
at once would hold every screen of every game that long. `once(what, game_id, version, build)`
returns what `build()` makes, built in a thread (referee.offload) the first time and kept for
that game version, so a second download of the same version costs nothing.

`build` must be pure (see referee.offload): no request, no app context, no translation; what is
translated is looked up before and handed to it. A page rendered from templates carries its own
copy of the request's context instead (`flask.copy_current_request_context`): the request waits
for it, so nothing changes that copy meanwhile. `download` answers such a file, compressed in the
thread too (once per encoding): Flask-Compress would compress a megabyte of JSON on the loop at
every download.
"""

from __future__ import annotations

import gzip
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import partial
from typing import Any, TypeVar

from flask import Response

from referee import offload
from referee.web.precompress import choose_encoding

T = TypeVar("T")

KEPT = 16
"""Things kept (the newest used): a few games' downloads, each a version's."""

_made: OrderedDict[tuple[Hashable, ...], Any] = OrderedDict()
_lock = threading.Lock()


MIN_SIZE = 500
"""Bytes under which a download goes out as it is: the encoding header costs more than it saves."""


def once(what: str, game_id: str, version: int, build: Callable[[], T], *extra: Hashable) -> T:
    """Return `build()` for this game version (and `extra`, such as a language), made once, in a thread."""
    key = (what, game_id, version, *extra)
    with _lock:
        if key in _made:
            _made.move_to_end(key)
            found: T = _made[key]
            return found
    made = offload.run(build)
    with _lock:
        _made[key] = made
        while len(_made) > KEPT:
            _made.popitem(last=False)
    return made


def download(
    what: str,
    game_id: str,
    version: int,
    build: Callable[[], str | bytes],
    *extra: Hashable,
    mimetype: str,
    headers: dict[str, str] | None = None,
) -> Response:
    """Answer what `build()` makes for this game version, in the best encoding the client takes, each made once."""
    raw = once(what, game_id, version, lambda: _bytes(build()), *extra)
    encoding = choose_encoding() if len(raw) >= MIN_SIZE else None
    body = (
        raw if encoding is None else once(what, game_id, version, partial(_compressed, raw, encoding), *extra, encoding)
    )
    response = Response(body, mimetype=mimetype, headers=headers)
    if encoding is not None:
        response.headers["Content-Encoding"] = encoding  # (Flask-Compress leaves it alone)
    response.vary.add("Accept-Encoding")
    return response


def _bytes(made: str | bytes) -> bytes:
    return made.encode("utf-8") if isinstance(made, str) else made


def _compressed(data: bytes, encoding: str) -> bytes:
    """Compress a download: Brotli 5 or gzip 6, a tenth of a second for a megabyte (Brotli 11 would take seconds)."""
    if encoding == "br":
        import brotli  # type: ignore[import-untyped]

        return bytes(brotli.compress(data, quality=5))
    return gzip.compress(data, compresslevel=6, mtime=0)


def forget() -> None:
    """Drop everything kept (tests)."""
    with _lock:
        _made.clear()
