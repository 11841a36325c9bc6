"""Compact JSON text from the standard library's C encoder, made once.

`json.dumps(value, separators=...)` builds a JSONEncoder and walks four Python functions for
every call before the C encoder runs; an action writes its event's data and a push encodes each
room's message, every report. Here the C encoder is made once and called directly: the same
text as `json.dumps(value, ensure_ascii=..., separators=(",", ":"))` for every JSON value.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as json_encoder
from typing import Any

# None where the standard library's _json is not built: then JSONEncoder's own Python code.
_make_encoder = getattr(json_encoder, "c_make_encoder", None)


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def compact_encoder(*, ensure_ascii: bool) -> Callable[[Any], str]:
    """Return a function that writes a value as compact JSON text (ASCII only if `ensure_ascii`)."""
    whole = json.JSONEncoder(ensure_ascii=ensure_ascii, separators=(",", ":"), check_circular=False).encode
    if _make_encoder is None:
        return whole
    escape = json_encoder.encode_basestring_ascii if ensure_ascii else json_encoder.encode_basestring
    chunks = _make_encoder(None, _not_json, escape, None, ":", ",", False, False, True)

    def dumps(value: Any) -> str:
        if isinstance(value, str):  # a text alone is escaped, not walked
            return whole(value)
        return "".join(chunks(value, 0))

    return dumps
