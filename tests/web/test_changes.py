"""Change sets (push/changes.py, static/js/lib/changes.js): applied to the old view, they give the new one exactly."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.push import changes

from ..speed import examples

KEYS = st.sampled_from(["a", "b", "c", "seq", "$set", "$list", "__proto__", "ö"]) | st.text(max_size=3)
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=["Cs"]), max_size=6)
)
JSON = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(KEYS, inner, max_size=6),
    max_leaves=30,
)


def twins(value: Any) -> list[Any]:
    """Values Python's == takes for this one, which JSON (and a page) tells apart: true, 1 and 1.0."""
    if value in (0, 1):
        return [v for v in (bool(value), int(value), float(value)) if type(v) is not type(value)]
    return [value]


@st.composite
def edited(draw: st.DrawFn, value: Any, depth: int = 0) -> Any:
    """A value near `value`: some keys changed, added or removed, list items cut, shifted or changed."""
    if type(value) in (bool, int, float) and draw(st.booleans()):
        return draw(st.sampled_from(twins(value)))  # equal in Python, not in JSON
    if depth > 4 or draw(st.integers(0, 9)) == 0:
        return draw(JSON)
    if type(value) is dict:
        out = {}
        for key, sub in value.items():
            choice = draw(st.integers(0, 5))
            if choice == 0:
                continue  # removed
            out[key] = draw(edited(sub, depth + 1)) if choice in (1, 2) else sub
        for key in draw(st.lists(KEYS, max_size=2)):
            out[key] = draw(JSON)
        return out
    if type(value) is list:
        items = list(value)
        drop = draw(st.integers(0, len(items)))
        items = items[draw(st.integers(0, drop)) :] if draw(st.booleans()) else items
        items = [draw(edited(x, depth + 1)) if draw(st.integers(0, 2)) == 0 else x for x in items]
        at = draw(st.integers(0, len(items)))
        items[at:at] = draw(st.lists(JSON, max_size=3))
        return items
    return draw(JSON)


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    """An old and a new value: unrelated, or the new one an edit of the old (as views are)."""
    base = draw(JSON)
    new = draw(edited(base)) if draw(st.integers(0, 3)) else draw(JSON)
    return base, new


def as_json(value: Any) -> Any:
    """The value a page gets: what JSON carries (a wire round trip)."""
    return json.loads(json.dumps(value))


@given(pairs())
@settings(max_examples=examples(2000), deadline=None)
def test_applying_the_change_gives_the_new_value_exactly(pair: tuple[Any, Any]) -> None:
    base, new = pair
    kept = copy.deepcopy(base)
    change = as_json(changes.diff(base, new))
    assert changes.same(changes.apply(base, change), new), (base, new, change)
    assert changes.same(base, kept)  # neither diff nor apply touched the old value


@given(JSON)
@settings(max_examples=examples(300), deadline=None)
def test_an_unchanged_object_changes_nothing(value: Any) -> None:
    view = {"v": value}
    assert changes.diff(view, copy.deepcopy(view)) == {}


def test_nulls_true_and_one_survive() -> None:
    base = {"a": 1, "b": [True, 0], "c": {"x": 1.0}, "d": None}
    new = {"a": None, "b": [1, False], "c": {"x": 1}, "d": 0, "e": None, "f": {"g": None}}
    change = changes.diff(base, new)
    got = changes.apply(base, as_json(change))
    assert changes.same(got, new)
    assert json.dumps(got, sort_keys=True) == json.dumps(new, sort_keys=True)
    assert change["a"] == {"$set": None} and change["e"] == {"$set": None}


def test_a_view_key_that_looks_like_an_escape_is_sent_whole() -> None:
    base = {"m": {"$set": 1, "k": 2}}
    new = {"m": {"$set": 2, "k": 2}}
    change = changes.diff(base, new)
    assert change == {"m": {"$set": {"$set": 2, "k": 2}}}
    assert changes.same(changes.apply(base, change), new)


def test_a_log_that_moved_on_sends_its_new_row_only() -> None:
    rows = [{"seq": n, "kind": "report", "notes": [f"note {n}"]} for n in range(1, 51)]
    later = rows[1:] + [{"seq": 51, "kind": "report", "notes": ["note 51"]}]
    change = changes.diff({"log": rows}, {"log": later})
    assert change == {"log": {"$list": [[0, 1, []], [49, 0, [later[-1]]]]}}
    assert len(json.dumps(change)) < len(json.dumps(later)) / 10
    # One order's state changes in the middle of a list: that item's own change only.
    orders = [{"id": f"1A{n}", "state": "planned"} for n in range(10)]
    moved = [dict(o, state="airborne") if o["id"] == "1A4" else o for o in orders]
    assert changes.diff(orders, moved) == {"$list": [[4, {"state": "airborne"}]]}


def test_a_list_changed_throughout_is_sent_whole() -> None:
    assert changes.diff([1, 2, 3], [4, 5, 6]) == [4, 5, 6]
    assert changes.diff({"a": [1, 2]}, {"a": []}) == {"a": []}


@pytest.mark.parametrize(
    "base, change",
    [
        ([1, 2], {"$list": [[5, 1]]}),
        ([1, 2], {"$list": [["0", 1]]}),
        ([1, 2], {"$list": [[0, -1, []]]}),
        ({"a": 1}, {"$list": [[0, 1]]}),
        ([1], {"$list": "x"}),
    ],
)
def test_a_malformed_change_is_refused_and_leaves_the_view(base: Any, change: Any) -> None:
    kept = copy.deepcopy(base)
    with pytest.raises(ValueError):
        changes.apply(base, change)
    assert base == kept


NODE_APPLY = r"""
import { readFileSync } from 'node:fs';
const { applyChanges } = await import(process.argv[1]);
const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const out = [];
for (const [base, change] of cases) {
  const before = JSON.stringify(base);
  out.push(applyChanges(base, change));
  if (JSON.stringify(base) !== before) throw new Error('the held view was changed in place');
}
console.log(JSON.stringify(out));
"""


def numbers_as_floats(value: Any) -> Any:
    """JSON in JavaScript has one number type: 1.0 comes back as 1, a float of 17 digits as an integer."""
    if type(value) in (int, float):
        return float(value)
    if type(value) is dict:
        return {k: numbers_as_floats(v) for k, v in value.items()}
    if type(value) is list:
        return [numbers_as_floats(v) for v in value]
    return value


def test_the_page_applies_changes_as_the_server_makes_them(tmp_path: Path) -> None:
    """conn.js's applyChanges (lib/changes.js) gives what changes.apply gives, on the same cases."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js not installed: the changes.js check is skipped")
    cases: list[tuple[Any, Any, Any]] = []

    @given(pairs())
    @settings(max_examples=examples(600), deadline=None, database=None)
    def collect(pair: tuple[Any, Any]) -> None:
        base, new = pair
        cases.append((as_json(base), as_json(changes.diff(base, new)), new))

    collect()
    data = tmp_path / "cases.json"
    data.write_text(json.dumps([[b, c] for b, c, _new in cases]))
    module = (Path(__file__).resolve().parents[2] / "static" / "js" / "lib" / "changes.js").as_uri()
    done = subprocess.run(
        [node, "--input-type=module", "-e", NODE_APPLY, module, str(data)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert len(got) == len(cases)
    for result, (base, change, new) in zip(got, cases, strict=True):
        assert changes.same(numbers_as_floats(result), numbers_as_floats(as_json(new))), (
            base,
            change,
            new,
            result,
        )


@given(value=JSON)
def test_compact_is_json_dumps_without_spaces(value: Any) -> None:
    assert changes.compact(value) == json.dumps(value, separators=(",", ":"))
    assert changes.compact(changes.Encoded({"v": value}, "")) == json.dumps({"v": value}, separators=(",", ":"))


def test_compact_refuses_what_is_not_json() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        changes.compact({"a": [object()]})
    assert changes.compact(float("inf")) == "Infinity" == json.dumps(float("inf"))  # as python-socketio sends it
