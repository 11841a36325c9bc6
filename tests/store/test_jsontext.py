"""The compact JSON encoder made once writes what json.dumps writes, in both of its uses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.jsontext import compact_encoder

from ..web.test_changes import JSON

# Czech as the screens read it, and text that only a JSON escape can carry.
TEXTS = st.sampled_from(["Kolo skončilo", "střela", "žádný", '"uvozovky"', "a\\b", "\n\t", "\u2028"])


@pytest.mark.parametrize("ensure_ascii", [False, True])
@given(value=JSON | st.dictionaries(TEXTS, JSON | TEXTS, max_size=4) | TEXTS)
def test_it_writes_what_json_dumps_writes(ensure_ascii: bool, value: Any) -> None:
    dumps = compact_encoder(ensure_ascii=ensure_ascii)
    assert dumps(value) == json.dumps(value, ensure_ascii=ensure_ascii, separators=(",", ":"))


def test_unescaped_text_stays_as_it_is_written() -> None:
    assert compact_encoder(ensure_ascii=False)({"zpráva": "Kolo skončilo"}) == '{"zpráva":"Kolo skončilo"}'
    assert compact_encoder(ensure_ascii=True)({"a": "ž"}) == '{"a":"\\u017e"}'


def test_what_is_not_json_is_refused_as_json_dumps_refuses_it() -> None:
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        compact_encoder(ensure_ascii=False)({"a": [object()]})
    assert compact_encoder(ensure_ascii=False)(float("nan")) == "NaN" == json.dumps(float("nan"))
