"""No capability token, slip or fleet ever reaches a log line.

The terminal running `referee serve` is often projected or read over the referee's shoulder; a
join link in it would let anyone join a team.
"""

from __future__ import annotations

import http.cookiejar
import json
import logging
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from referee.web.logs import REDACTED, redact
from tests.airraid_helpers import PLAYERS


def test_redact_hides_link_tokens_and_slips() -> None:
    """Tokens in ?t= and ?token=, and slip codes in /s/..., are replaced; the rest stays readable."""
    line = '127.0.0.1 - - "GET /g/ab12/team?lang=en&t=SECRETjoin HTTP/1.1" 303 -'
    assert redact(line) == f'127.0.0.1 - - "GET /g/ab12/team?lang=en&t={REDACTED} HTTP/1.1" 303 -'
    assert "SECRETref" not in redact("GET /?token=SECRETref")
    assert redact("GET /s/ab12.1A3.Zx-9_sig HTTP/1.1") == f"GET /s/{REDACTED} HTTP/1.1"
    assert redact("GET /g/ab12/watch HTTP/1.1") == "GET /g/ab12/watch HTTP/1.1"


def test_werkzeug_request_lines_are_redacted(app: Flask, caplog: pytest.LogCaptureFixture) -> None:
    """Werkzeug's request log (the fallback server) prints request lines without the token."""
    with caplog.at_level(logging.INFO, logger="werkzeug"):
        logging.getLogger("werkzeug").info(
            '%s - - [x] "%s" %s -', "10.0.0.7", "GET /g/ab12/team?t=SECRETjoin HTTP/1.1", 303
        )
    assert "SECRETjoin" not in caplog.text
    assert REDACTED in caplog.text and "10.0.0.7" in caplog.text


class Browser:
    """A cookie jar and the JSON calls a page makes."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=15) as answer:
            return str(answer.read().decode("utf-8", "replace"))

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Accept-Language": "en"},
        )
        with self.opener.open(request, timeout=15) as answer:
            return json.loads(answer.read())


def test_a_whole_setup_leaves_no_secret_in_the_server_output(tmp_path: Path) -> None:
    """Join links, device cookies, slips and seas used against a real server never show in its output."""
    from tests.live_server import Server

    server = Server(tmp_path / "instance")
    server.start()
    try:
        referee_token = server.link.split("token=", 1)[1]
        referee = Browser(server.base)
        referee.get(f"/?token={referee_token}")
        game = referee.post(
            "/api/games",
            {"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]},
        )
        gid = game["game"]
        secrets: list[str] = []
        seas: dict[str, Any] = {}
        for team in ("A", "B"):
            link = game["links"]["join"][team]
            secrets.append(link.split("t=", 1)[1])
            phone = Browser(server.base)
            phone.get(link[link.index("/g/") :])
            secrets.extend(c.value for c in phone.jar if c.name.startswith("dv_") and c.value)
            seas[team] = phone.post(f"/api/games/{gid}/sea/random", {"team": team})
            phone.post(
                f"/api/games/{gid}/actions",
                {"action": {"type": "lock_sea", "team": team, "ships": seas[team]["ships"]}},
            )
        referee.post(f"/api/games/{gid}/actions", {"action": {"type": "start_game"}})
        # A slip scanned by a pilot (this one is not genuine, so it is refused: still a slip in a URL).
        slip = f"{gid}.1A1.NotGenuineSig0000"
        try:
            Browser(server.base).get(f"/s/{slip}")
        except urllib.error.HTTPError as refused:
            assert refused.code in (403, 404)
        secrets.append(slip)
    finally:
        server.stop()
    output = "".join(server.output)
    # The referee link is printed once, on purpose, in the banner; nowhere else.
    assert output.count(referee_token) == 1, output
    for secret in secrets:
        assert len(secret) > 8
        assert secret not in output, f"a token reached the server output:\n{output}"
    for team, sea in seas.items():
        squares = {sq for ship in sea["ships"] for sq in ship["squares"]}
        assert not any(f'"{sq}"' in output for sq in squares), f"team {team}'s sea reached the server output"
