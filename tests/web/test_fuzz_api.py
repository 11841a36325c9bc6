"""Fuzz the JSON API from its own OpenAPI document (schemathesis), as five callers, against a game in the air.

Each generated request goes through the WSGI app in-process. Schemathesis makes valid
requests (positive) and requests that break the document (negative); a share of them is
pointed at the real game, its real phone and a real slip, so they reach the game's data and
not only the "no such game" answer.

Every answer must be: below 500, logged without an ERROR record, and if it is a refusal (4xx),
JSON naming the error and a specific message, with the game (state, version, events), its
phones and tokens exactly as before. Accepted requests (2xx) may change the game: the referee's
random actions pause clocks, end rounds or end the game, which is allowed.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from referee.web.errors import _friendly
from referee.web.extensions import socketio

from ..fuzz_helpers import Arena, airborne_arena
from .screens import Pushes, Screen

EXAMPLES = 60 * int(os.environ.get("REFEREE_FUZZ_SCALE", "1"))
"""Requests per caller and generation mode (positive, negative); REFEREE_FUZZ_SCALE=10 for a deeper run."""

CALLERS = ["nobody", "stranger", "pilot", "team_a", "referee"]

# The refusal codes the app answers with (rules core, store, HTTP errors).
ERROR_CODES = {
    "malformed",
    "illegal",
    "not_your_turn",
    "game_over",
    "stale",
    "forbidden",
    "not_found",
    "bad_request",
    "impossible",
    "method_not_allowed",
    "unsupported_media_type",
    "request_entity_too_large",
    "too_many_requests",
}


@pytest.fixture
def arena(app: Flask) -> Arena:
    return airborne_arena(app)


def generic_messages(app: Flask) -> set[str]:
    """The catch-all texts of errors.py, in every language offered: a refusal must say more than these."""
    from flask_babel import force_locale  # type: ignore[import-untyped]

    texts = set()
    with app.test_request_context():
        for lang in app.config["LANGUAGES"]:
            with force_locale(lang):
                texts |= {_friendly(code) for code in (400, 403, 404, 405, 409, 500, 503, 999)}
    return texts


def point_at_arena(case: Any, arena: Arena, caller: str, data: st.DataObject) -> None:
    """Aim a share of the cases at the real game, phone, team and slip."""
    params = case.path_parameters or {}
    if "game_id" in params and data.draw(st.integers(0, 3), label="real game") > 0:
        params["game_id"] = arena.gid
    if "device_id" in params and data.draw(st.booleans(), label="real device"):
        params["device_id"] = arena.device_a
    if caller == "pilot":
        slip = arena.slips[data.draw(st.sampled_from(sorted(arena.slips)), label="slip")]
        if case.method.upper() == "GET":
            case.query = {**(case.query or {}), "slip": slip}
        elif isinstance(case.body, dict):
            case.body = {**case.body, "slip": slip}


def check_answer(arena: Arena, case: Any, response: Any, before: Any, generic: set[str]) -> None:
    where = f"{case.method} {case.formatted_path} query={case.query!r} body={str(case.body)[:300]!r}"
    status = response.status_code
    assert status < 500, f"{where}: {status} {response.content[:300]!r}"
    if 400 <= status < 500:
        content_type = {k.lower(): v for k, v in response.headers.items()}.get("content-type", [""])[0]
        assert content_type.startswith("application/json"), (
            f"{where}: {status} is {content_type!r}, not JSON: {response.content[:200]!r}"
        )
        body = response.json()
        assert isinstance(body, dict), f"{where}: {body!r}"
        assert body.get("error") in ERROR_CODES, f"{where}: error {body.get('error')!r}"
        message = body.get("message")
        assert isinstance(message, str) and message.strip(), f"{where}: no message"
        assert message not in generic, f"{where}: only the catch-all message {message!r} ({status} {body['error']})"
        assert arena.fingerprint() == before, f"{where}: refused with {status}, but the game or its phones changed"


def watching(arena: Arena, pushes: Pushes) -> dict[str, Screen]:
    """A screen of every role in the game, each following its pushes (see screens.py)."""
    browsers = {
        "referee": arena.referee,
        "team_a": arena.team_a,
        "team_b": arena.team_b,
        "public": arena.app.test_client(),
        "pilot": arena.app.test_client(),
    }
    found = {}
    for who, browser in browsers.items():
        extra = {"slip": arena.slips["1A1"]} if who == "pilot" else {}
        found[who] = Screen(socketio.test_client(arena.app, flask_test_client=browser), arena.gid, pushes, **extra)
        assert found[who].ack["ok"], (who, found[who].ack)
    return found


@pytest.mark.parametrize("caller", CALLERS)
def test_api_fuzz(arena: Arena, caller: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    app = arena.app
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    # Every push the requests cause reaches a screen of every role: each change set must give
    # that role's whole view and tell nothing it does not (screens.py checks both).
    pushes = Pushes(monkeypatch)
    screens = watching(arena, pushes)
    cookies = arena.cookies("nobody" if caller == "pilot" else caller)
    generic = generic_messages(app)
    seen: dict[str, dict[int, int]] = {"positive": {}, "negative": {}}

    def fuzz(mode: str) -> None:
        generation = (
            schemathesis.GenerationMode.POSITIVE if mode == "positive" else schemathesis.GenerationMode.NEGATIVE
        )
        cases = schema.as_strategy(generation_mode=generation)

        # No shrinking: the failing request is printed whole, and shrinking would take minutes.
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(data=st.data())
        def one_request(data: st.DataObject) -> None:
            case = data.draw(cases, label="case")
            point_at_arena(case, arena, caller, data)
            before = arena.fingerprint()
            # Identity encoding: the transport hands back the raw body, and Flask-Compress would gzip it.
            response = case.call(cookies=cookies, headers={"Accept-Encoding": "identity", "Accept-Language": "en"})
            seen[mode][response.status_code] = seen[mode].get(response.status_code, 0) + 1
            check_answer(arena, case, response, before, generic)
            # Now and then the referee changes the game (refused once the fuzzer has ended it), so
            # the screens hear pushes after whatever the request did: a phone renamed, a link reissued.
            change = data.draw(st.sampled_from([None, None, "pause_timer", "resume_timer", "adjust_timer"]))
            if change:
                body = {"action": {"type": change, **({"seconds": 5} if change == "adjust_timer" else {})}}
                arena.referee.post(f"/api/games/{arena.gid}/actions", json=body)
            for screen in screens.values():
                screen.take()
            errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
            assert not errors, f"{case.method} {case.formatted_path}: logged {errors[0].getMessage()}"

        one_request()

    with caplog.at_level(logging.ERROR):
        # Negative first: the referee's valid requests may end the game, after which most are refused.
        fuzz("negative")
        fuzz("positive")
    # The fuzzer reached both sides: requests were refused, and (positive mode) some accepted.
    assert any(400 <= s < 500 for s in seen["negative"]), seen
    assert any(s < 300 for s in seen["positive"]), seen
    assert "changes" in pushes.kinds and all(s.changes_seen for s in screens.values() if s.sock.is_connected())


# --- What the fuzzer found, kept as plain regression tests ---------------------------------------


def test_a_ruleset_that_is_not_text_is_refused(arena: Arena) -> None:
    """Found by the fuzzer: `ruleset_toml` as a list was a 500 (`.strip()` of a list)."""
    before = arena.fingerprint()
    teams = [
        {"name": "Owls", "players": ["Oz", "Ola", "Oli", "Ode"]},
        {"name": "Rays", "players": ["Ra", "Ro", "Ri", "Ru"]},
    ]
    for junk in ([[], None, True], {"a": 1}, 7):
        response = arena.referee.post(
            "/api/games", json={"teams": teams, "ruleset_toml": junk}, headers={"Accept-Language": "en"}
        )
        assert response.status_code == 400, response.get_data(as_text=True)
        assert response.get_json()["error"] == "malformed" and "ruleset_toml" in response.get_json()["message"]
    assert arena.fingerprint() == before


def test_events_since_a_number_too_big_for_the_database_is_refused(arena: Arena) -> None:
    """Found by the fuzzer: `?since=` beyond SQLite's 64-bit integers was a 500 (OverflowError)."""
    for since in ("74222180747415873751955275776", str(2**63), "-1"):
        response = arena.referee.get(f"/api/games/{arena.gid}/events?since={since}", headers={"Accept-Language": "en"})
        assert response.status_code == 400 and response.get_json()["error"] == "malformed", (
            since,
            response.get_data(as_text=True),
        )
    assert (
        len(arena.referee.get(f"/api/games/{arena.gid}/events?since=3").get_json()["events"])
        == len(arena.referee.get(f"/api/games/{arena.gid}/events").get_json()["events"]) - 3
    )
