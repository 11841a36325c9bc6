"""What a game's downloads are made of, made once per game version and off the event loop.

`log.json`, `log.csv`, the score sheet and its CSV files grow with the game: a long game's log is
a megabyte of JSON that takes a tenth of a second to write. Four referees' laptops downloading it
at once would hold every screen of every game that long. `once(what, game_id, version, build)`
returns what `build()` makes, built in a thread (referee.offload) the first time and kept for
that game version, so a second download of the same version costs nothing.

`build` must be pure (see referee.offload): no request, no app context, no translation; what is
translated is looked up before and handed to it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from referee import offload

T = TypeVar("T")

KEPT = 16
"""Things kept (the newest used): a few games' downloads, each a version's."""

_made: OrderedDict[tuple[Hashable, ...], Any] = OrderedDict()
_lock = threading.Lock()


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


def forget() -> None:
    """Drop everything kept (tests)."""
    with _lock:
        _made.clear()
