"""Change sets: what turns the view a screen holds into the next one, much smaller than the view.

A push after a report sends each audience its change set (the "changes" event), not its whole
view; a page applies it to the view it holds (static/js/lib/changes.js is the same `apply`).
The form is JSON Merge Patch (RFC 7396) with two escapes and a compact edit of lists:

- an object is a merge, key by key: `null` removes the key, any other value changes that
  key's value, recursively by these same rules (`{}` changes nothing);
- `{"$set": value}` is `value` exactly as written: how a `null` value, or an object taken
  whole, is sent (a merge could not tell a null value from a removal);
- `{"$list": [step, ...]}` edits a list, steps in order: `[i, change]` changes item i by these
  rules, `[i, n, [items]]` removes n items at i and puts `items` there (a log that moved on by
  one row is `[[0, 1, []], [49, 0, [row]]]`, not fifty rows);
- anything else (text, a number, true or false, a list) is that value.

An object whose only key is `$set` or `$list` is never a merge: such a view object is sent
whole in a `$set`. No state: `apply(base, diff(base, new)) == new`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from itertools import takewhile
from operator import is_, truth
from typing import Any

from referee.rules.errors import Msg, Name

SET = "$set"
LIST = "$list"
OPS = frozenset({SET, LIST})
# Text that is translated as it is sent: alike only if made of the same template and values.
WORDS = (Msg, Name)

# How far into the old list a new one may start (a log window that moved on): a bounded scan.
MAX_SHIFT = 64


def _kind(value: Any) -> type:
    """Return the JSON type of a value: a Role is text, a tuple a list, true is not a number."""
    for kind in (str, bool, int, float, dict):
        if isinstance(value, kind):
            return kind
    if isinstance(value, (list, tuple)):
        return list
    return type(value)


def same(a: Any, b: Any) -> bool:
    """Tell whether two JSON values are the same JSON: true is not 1, 1.0 is not 1."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        kind = _kind(a)
        if kind is not _kind(b):
            return False
    if kind is dict:
        return len(a) == len(b) and all(key in b and same(value, b[key]) for key, value in a.items())
    if kind is list or kind is tuple:
        return len(a) == len(b) and all(map(same, a, b))
    if kind is str and a == b:
        return type(a) is type(b) is str or _same_words(a, b)
    return bool(a == b)


def _same_fast(a: Any, b: Any) -> bool:
    # Python's == runs in C; it says 1 == True == 1.0, so only its "equal" is checked again,
    # and only for values that may hold such a number (a view's text is most of it).
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        kind = _kind(a)
        if kind is not _kind(b):
            return False
    if a != b:
        return False
    return kind is str or _typed_alike(a, b)


def _same_words(a: str, b: str) -> bool:
    """Tell whether two equal texts of a text type with fields (a message before translation) are alike.

    A message is compared by its English text and by what it is made of (template and values):
    two messages that read the same in English may read differently once translated.
    """
    if not isinstance(a, WORDS) and not isinstance(b, WORDS):
        return True  # other text types (a Role) are their text
    return type(a) is type(b) and a.__dict__ == b.__dict__


def _typed_alike(a: Any, b: Any) -> bool:
    """Tell whether two values Python finds equal are the same JSON: a walk of types only."""
    kind = type(a)
    if kind is not type(b):
        return same(a, b)
    # Two loops written out, not one over a generator: this walk is most of a diff's time.
    if kind is dict:
        for key, x in a.items():
            sub = type(x)
            if sub is str:
                continue
            y = b[key]
            if sub is not type(y):
                if not same(x, y):
                    return False
            elif sub is dict or sub is list:
                if not _typed_alike(x, y):
                    return False
            elif isinstance(x, str) and not _same_words(x, y):
                return False
    elif kind is list:
        for x, y in zip(a, b, strict=True):
            sub = type(x)
            if sub is str:
                continue
            if sub is not type(y):
                if not same(x, y):
                    return False
            elif sub is dict or sub is list:
                if not _typed_alike(x, y):
                    return False
            elif isinstance(x, str) and not _same_words(x, y):
                return False
    elif isinstance(a, str):
        return _same_words(a, b)
    return True  # (equal leaves of one type are one JSON value)


def literal(value: Any) -> Any:
    """Return the change that sets `value` exactly (a null or an object goes in a `$set`)."""
    if value is None or isinstance(value, dict):
        return {SET: value}
    return value


def diff(base: Any, new: Any) -> Any:
    """Return the change that turns `base` into `new` (both JSON values)."""
    if isinstance(new, dict):
        if not isinstance(base, dict):
            return {SET: new}
        merged = _merge(base, new)
        return {SET: new} if merged is None else merged
    if isinstance(new, (list, tuple)) and isinstance(base, (list, tuple)):
        return _edit(list(base), list(new))
    return literal(new)


def _merge(base: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for key, value in new.items():
        if key in base:
            old = base[key]
            # Views keep their unchanged parts (the same objects): most keys pass here at a glance.
            if old is not value and not _same_fast(old, value):
                out[key] = diff(old, value)
        else:
            out[key] = literal(value)
    for key in base:
        if key not in new:
            out[key] = None
    if len(out) == 1 and next(iter(out)) in OPS:
        return None  # it would read as an escape, not a merge
    return out


def _shift(base: list[Any], new: list[Any]) -> int:
    """Return how many leading items of `base` to drop so that the rest starts `new` (0: none fits)."""
    first = new[0]
    for k in range(1, min(len(base), MAX_SHIFT + 1)):
        if _same_fast(base[k], first):
            return k
    return 0


def _same_objects(a: Iterable[Any], b: Iterable[Any]) -> int:
    """Count the leading items of two lists that are the very same objects."""
    return len(list(takewhile(truth, map(is_, a, b))))


def _edit(base: list[Any], new: list[Any]) -> Any:
    """Return a `$list` edit of `base` into `new`, or `new` itself when that is no larger."""
    if not base or not new:
        return new
    steps: list[list[Any]] = []
    work = base
    if not _same_fast(base[0], new[0]):
        k = _shift(base, new)
        if k:
            steps.append([0, k, []])
            work = base[k:]
    lb, ln = len(work), len(new)
    # Items a view kept are the same objects (a log's rows): counted in C before any is compared.
    p = _same_objects(work, new)
    while p < lb and p < ln and _same_fast(work[p], new[p]):
        p += 1
    s = _same_objects(reversed(work[p:]), reversed(new[p:]))
    while s < lb - p and s < ln - p and _same_fast(work[lb - 1 - s], new[ln - 1 - s]):
        s += 1
    old_mid, new_mid = work[p : lb - s], new[p : ln - s]
    sent = 0
    if len(old_mid) == len(new_mid):
        for i, (a, b) in enumerate(zip(old_mid, new_mid, strict=True)):
            if not _same_fast(a, b):
                steps.append([p + i, diff(a, b)])
                sent += 1
    else:
        steps.append([p, len(old_mid), new_mid])
        sent = len(new_mid)
    if sent >= ln:
        return new  # every item is sent anyway: the list itself is shorter
    return {LIST: steps}


def apply(base: Any, change: Any) -> Any:
    """Return `base` changed by `change`; `base` itself is left as it was."""
    if isinstance(change, dict):
        if len(change) == 1:
            op, arg = next(iter(change.items()))
            if op == SET:
                return arg
            if op == LIST:
                return _apply_list(base, arg)
        out = dict(base) if isinstance(base, dict) else {}
        for key, sub in change.items():
            if sub is None:
                out.pop(key, None)
            else:
                out[key] = apply(out.get(key), sub)
        return out
    return change


def _apply_list(base: Any, steps: Any) -> list[Any]:
    if not isinstance(base, (list, tuple)) or not isinstance(steps, list):
        raise ValueError("a $list edit needs a list to edit")
    out = list(base)
    for step in steps:
        if type(step) is not list or not step or type(step[0]) is not int or not 0 <= step[0] <= len(out):
            raise ValueError(f"not a step of a $list edit: {step!r}")
        if len(step) == 2 and step[0] < len(out):
            out[step[0]] = apply(out[step[0]], step[1])
        elif len(step) == 3 and type(step[1]) is int and step[1] >= 0 and type(step[2]) is list:
            out[step[0] : step[0] + step[1]] = step[2]
        else:
            raise ValueError(f"not a step of a $list edit: {step!r}")
    return out


compact: Callable[[Any], str] = partial(json.dumps, separators=(",", ":"))
"""Return a value's JSON text as a packet carries it: no spaces, ASCII only (`json.dumps`'s, compact)."""


class Encoded(dict[str, Any]):
    """A push's message with its JSON text, made once when the push weighed it: sent as that text.

    The message is still the dict it reads as (tests, the message queue, a screen's own
    process); referee.web.socketio_app's packets write `text` instead of encoding it again.
    """

    __slots__ = ("text",)

    def __init__(self, fields: Mapping[str, Any], text: str) -> None:
        """Hold the message's fields and their JSON text (compact, ASCII only, as a packet's is)."""
        super().__init__(fields)
        self.text = text
