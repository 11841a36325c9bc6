"""Kill the real server mid-round with SIGKILL and start it again: nothing is lost, the clock is right."""

from __future__ import annotations

import http.cookiejar
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from ..airraid_helpers import PLAYERS, ships_json
from ..live_server import Server


class Browser:
    """A cookie-keeping HTTP client, like one phone."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def get(self, path: str) -> Any:
        with self.opener.open(self.base + path, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body[:1] in (b"{", b"[") else body

    def post(self, path: str, data: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.base + path, data=json.dumps(data).encode(), headers={"Content-Type": "application/json"}
        )
        try:
            with self.opener.open(request, timeout=10) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return json.loads(exc.read())


def test_sigkill_mid_round_loses_nothing_and_the_clock_is_where_it_should_be(tmp_path: Path) -> None:
    server = Server(tmp_path / "instance")
    server.start()
    try:
        base = f"http://127.0.0.1:{server.port}"
        referee = Browser(base)
        referee.get(server.link.split(str(server.port), 1)[1])
        created = referee.post(
            "/api/games",
            {
                "teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}],
                "round_seconds": 120,
            },
        )
        gid = created["game"]
        for team in "AB":
            phone = Browser(base)
            token = created["links"]["join"][team].split("t=", 1)[1]
            assert phone.get(f"/api/games/{gid}/view?t={token}")["role"] == f"team:{team}"
            assert phone.post(
                f"/api/games/{gid}/actions", {"action": {"type": "lock_sea", "team": team, "ships": ships_json()}}
            )["ok"]
        for action in (
            {"type": "start_game"},
            {"type": "set_defender", "team": "A", "pilot": "Amy"},
            {"type": "set_defender", "team": "B", "pilot": "Bo"},
            {
                "type": "add_order",
                "team": "A",
                "pilot": "Ann",
                "kind": "bomber",
                "ship": "A",
                "corridor": "upper",
                "target": "C4",
            },
            {"type": "start_round"},
        ):
            answer = referee.post(
                f"/api/games/{gid}/actions",
                {"action": action, "client_id": f"ref-{action['type']}-{action.get('pilot', '')}"},
            )
            assert answer["ok"], answer
        before = referee.get(f"/api/games/{gid}/view")
        answer = referee.post(
            f"/api/games/{gid}/actions", {"action": {"type": "announce_bombing", "order": "1A1"}, "client_id": "bomb-1"}
        )
        assert answer["ok"] and answer["seq"] == before["version"] + 1
        server.kill()
        time.sleep(1.0)
        server.start()
        after = referee.get(f"/api/games/{gid}/view")
        assert after["version"] == before["version"] + 1, "the acknowledged entry survived SIGKILL"
        assert after["round"]["deadline"] == before["round"]["deadline"], "the deadline is absolute and kept"
        assert after["round"]["left"] < before["round"]["left"], "time went on while the server was down"
        assert abs(after["round"]["left"] - (after["round"]["deadline"] - time.time())) < 1.0
        again = referee.post(
            f"/api/games/{gid}/actions", {"action": {"type": "announce_bombing", "order": "1A1"}, "client_id": "bomb-1"}
        )
        assert again["ok"] and again["duplicate"] and again["seq"] == after["version"], (
            "a retried entry is applied once"
        )
    finally:
        if server.proc and server.proc.poll() is None:
            server.kill()
