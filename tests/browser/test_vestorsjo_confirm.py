"""Two devices with our own dice: the die Scania enters waits on Zealand's phone for a yes (or a no).

The host (a tablet) starts a game against a friend with our own dice; the friend's phone (390×844)
joins. The two fleets close in (through the API), a Scania ship aims at a Zealand one and
enters 6: the friend's phone asks "did the die show 6?", the host's page waits. Once "no", the shot
is taken back; thrown again and confirmed, the roll is on both screens.
Screenshots: test-artifacts/screenshots/vestorsjo/confirm-*.png.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from referee.rules.vestorsjo.hexes import Hex

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, PHONE, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "vestorsjo"
TABLET = {"width": 1024, "height": 768}


@pytest.mark.browser
def test_the_enemy_confirms_a_die_thrown_by_hand(playwright_api: Any, server: Server) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            english = {"locale": "en-GB", "extra_http_headers": {"Accept-Language": "en"}}
            host_ctx = browser.new_context(viewport=TABLET, **english)
            host_ctx.set_default_timeout(WAIT)
            host = host_ctx.new_page()
            host.on("pageerror", lambda exc: errors.append(f"host: {exc}"))
            host.goto(f"{server.base}/vestorsjo")
            host.locator("input[name=opponent][value=friend]").check()
            host.locator("input[name=dice][value=physical]").check()
            host.locator("#vs-start").click()
            host.wait_for_url(re.compile(r".*/v/[^/]+$"))
            gid = host.url.rsplit("/", 1)[1]
            link = host.locator("#vs-invite .vs-link a").get_attribute("href")
            friend_ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, **english)
            friend_ctx.set_default_timeout(WAIT)
            friend = friend_ctx.new_page()
            friend.on("pageerror", lambda exc: errors.append(f"friend: {exc}"))
            friend.goto(str(link))
            expect(friend.locator("#conn-badge")).to_have_attribute("data-state", "synced")

            def act(ctx: Any, action: dict[str, Any]) -> Any:
                answer = ctx.request.post(
                    f"{server.base}/api/games/{gid}/actions",
                    data=json.dumps({"action": action}),
                    headers={"Content-Type": "application/json"},
                )
                assert answer.ok, answer.text()
                return answer.json()["view"]

            def view(ctx: Any = host_ctx) -> Any:
                return ctx.request.get(f"{server.base}/api/games/{gid}/view").json()

            def shot(state: Any) -> Any:
                return next((a for a in state["actions"] if a["type"] == "fire"), None)

            def closer(ctx: Any) -> Any:
                """Move up to three ships each a step nearer the enemy; return a shot once one is offered."""
                for _ in range(3):
                    state = view(ctx)
                    if shot(state) is not None:
                        return shot(state)
                    me = state["me"]
                    enemies = [Hex.parse(q["place"]) for q in state["pieces"] if q["side"] != me and q["on"] == "hex"]
                    moves = [a for a in state["actions"] if a["type"] == "move" and ".submarine" not in a["piece"]]
                    if not moves:
                        break
                    a = moves[0]
                    best = min(a["to"], key=lambda to: min(Hex.parse(to).distance(e) for e in enemies))
                    act(ctx, {"type": "move", "piece": a["piece"], "to": best})
                return shot(view(ctx))

            offer = None
            for _ in range(4):
                offer = closer(host_ctx)
                if offer is not None:
                    break
                act(host_ctx, {"type": "end_turn"})
                closer(friend_ctx)  # Zealand closes in too (a shot of its own is left unfired)
                act(friend_ctx, {"type": "end_turn"})
            assert offer is not None, "the fleets never came within range"
            shooter = offer["piece"]
            target = offer["targets"][0]["target"]
            act(host_ctx, {"type": "fire", "piece": shooter, "target": target, "pips": 6})
            # The friend's phone asks; the host's page waits for it.
            ask = friend.locator("#vs-confirm")
            expect(ask).to_be_visible()
            expect(friend.locator("#vs-confirm-text")).to_contain_text("did the die show 6?")
            expect(friend.locator("#vs-confirm-yes")).to_have_text("Yes, 6")
            expect(host.locator("#vs-wait-confirm")).to_have_text("Waiting for Zealand to confirm the die (6)")
            expect(host.locator("#vs-end-turn")).to_be_hidden()
            friend.screenshot(path=str(SHOTS / "confirm-1-friend-asked.png"))
            host.screenshot(path=str(SHOTS / "confirm-2-host-waits.png"))
            friend.locator("#vs-confirm-no").tap()
            expect(ask).to_be_hidden()
            expect(host.locator("#result")).to_contain_text("Zealand saw another number: throw the die again")
            assert view()["pending"] is None and view()["rolls"] == []
            act(host_ctx, {"type": "fire", "piece": shooter, "target": target, "pips": 5})
            expect(friend.locator("#vs-confirm-yes")).to_have_text("Yes, 5")
            friend.locator("#vs-confirm-yes").tap()
            expect(ask).to_be_hidden()
            for page in (host, friend):
                expect(page.locator("#vs-log .vs-roll").first).to_contain_text("die 5 (thrown by hand)")
            expect(host.locator("#vs-end-turn")).to_be_visible()
            assert view()["rolls"][-1]["pips"] == 5
        finally:
            browser.close()
    assert not errors, errors
