"""Pages follow change sets: after its first push each screen is sent what changed, and shows it without a resync.

The referee's dashboard, a team's phone and the projector watch one game in the air. The referee
adds time on the dashboard (its own socket: the answer carries no view, the page takes the one its
push brought) and pauses the clock over HTTP. Every page must show the same paused clock as the
game's view, having received change sets and sent one resync only (at connect): a change set the
page could not apply would have cost it another.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest

from ..live_server import Server, post_json
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

TEAMS = [
    {"name": "Orli", "players": ["Ann", "Ada", "Abe", "Amy"]},
    {"name": "Sharks", "players": ["Bob", "Bea", "Ben", "Bo"]},
]


def listen(page: Any) -> dict[str, list[str]]:
    """Keep the Socket.IO frames a page receives and sends."""
    frames: dict[str, list[str]] = {"in": [], "out": []}

    def on_socket(ws: Any) -> None:
        ws.on("framereceived", lambda payload: frames["in"].append(str(payload)))
        ws.on("framesent", lambda payload: frames["out"].append(str(payload)))

    page.on("websocket", on_socket)
    return frames


def events(frames: list[str], name: str) -> list[Any]:
    """The payloads of the Socket.IO events of one name in these frames (42, an ack id, the array)."""
    found = []
    for frame in frames:
        match = re.match(r'^42\d*(\["' + name + r'".*)$', frame, re.S)
        if match:
            found.append(json.loads(match.group(1))[1:])
    return found


@pytest.mark.browser
def test_every_page_shows_the_change_sets_it_is_sent_without_a_resync(
    playwright_api: Any,  # noqa: F811
    server: Server,
) -> None:
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            contexts = {}
            for who in ("referee", "team", "watch"):
                ctx = browser.new_context(extra_http_headers={"Accept-Language": "en"})
                ctx.set_default_timeout(WAIT)
                contexts[who] = ctx

            def api(ctx: Any, path: str, body: dict[str, Any]) -> Any:
                return post_json(ctx, server.base + path, body)

            pages = {who: ctx.new_page() for who, ctx in contexts.items()}
            for page in pages.values():
                page.on("pageerror", lambda exc: errors.append(str(exc)))
            pages["referee"].goto(server.link)
            made = api(contexts["referee"], "/api/games", {"teams": TEAMS})
            gid = made["game"]
            pages["team"].goto(made["links"]["join"]["A"])
            phone_b = browser.new_context()
            phone_b.request.get(made["links"]["join"]["B"])
            for team, ctx in (("A", contexts["team"]), ("B", phone_b)):
                ships = api(ctx, f"/api/games/{gid}/sea/random", {"team": team})["ships"]
                api(ctx, f"/api/games/{gid}/actions", {"action": {"type": "lock_sea", "team": team, "ships": ships}})
            for action in (
                {"type": "start_game"},
                {"type": "set_defender", "team": "A", "pilot": "Amy"},
                {"type": "set_defender", "team": "B", "pilot": "Bo"},
                {"type": "add_order", "team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"},
                {"type": "add_order", "team": "B", "pilot": "Bob", "kind": "fighter", "ship": "A", "corridor": "upper"},
                {"type": "start_round"},
            ):
                api(contexts["referee"], f"/api/games/{gid}/actions", {"action": action})

            frames = {who: listen(page) for who, page in pages.items()}
            pages["referee"].goto(f"{server.base}/g/{gid}/referee")
            pages["team"].reload()
            pages["watch"].goto(f"{server.base}/g/{gid}/watch")
            expect(pages["referee"].locator("#timer-buttons")).to_be_visible()
            for who, page in pages.items():
                expect(page.locator("#timer")).not_to_be_empty()
                # Its resync answered (an ack frame, 43…), so every push below follows a view it holds.
                for _ in range(WAIT // 50):
                    if any(f.startswith("43") for f in frames[who]["in"]):
                        break
                    page.wait_for_timeout(50)
            plus = pages["referee"].locator("#t-plus")
            for _ in range(3):
                expect(plus).to_be_enabled()
                plus.click()
            expect(plus).to_be_enabled()
            api(contexts["referee"], f"/api/games/{gid}/actions", {"action": {"type": "pause_timer"}})
            view = contexts["referee"].request.get(f"{server.base}/api/games/{gid}/view").json()
            assert view["round"]["running"] is False and view["round"]["left"] > 300, view["round"]
            left = math.ceil(view["round"]["left"])  # as lib/timer.js shows it
            shown = f"{left // 60}:{left % 60:02d}"
            # A running clock shows the paused one's text for up to a second before the pause
            # arrives: the pages are looked at once each has received a push of that version.
            for who, page in pages.items():
                for _ in range(WAIT // 50):
                    if any(
                        p[0]["seq"] >= view["version"]
                        for e in ("changes", "view")
                        for p in events(frames[who]["in"], e)
                    ):
                        break
                    page.wait_for_timeout(50)
                expect(page.locator("#timer")).to_have_text(shown)
            for who, seen in frames.items():
                changes = events(seen["in"], "changes")
                assert len(changes) >= 3, (who, len(changes), [f[:80] for f in seen["in"]][-8:])
                assert changes[-1][0]["seq"] == view["version"], (who, changes[-1][0]["seq"], view["version"])
                assert len(events(seen["out"], "resync")) == 1, (who, "asked for a resync again")
        finally:
            browser.close()
    assert not errors, errors
