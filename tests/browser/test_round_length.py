"""Between rounds the referee sets the length of the rounds to come, and every screen shows it.

The referee's control strip has a "Next rounds" list: in planning the round about to take off
takes the new length (the dashboard's, the team phone's and the projector's clocks show it at
once); while a round is in the air it keeps its clock and the next round takes the length. The
log says so in the page's language. Screenshots: test-artifacts/screenshots/game-night/.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..live_server import ROOT, Server, post_json
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "game-night"
REFEREE_SCREEN = {"width": 1366, "height": 768}
SMALL_PHONE = {"width": 360, "height": 740}
TEAMS = [
    {"name": "Orli", "players": ["Ann", "Ada", "Abe", "Amy"]},
    {"name": "Sharks", "players": ["Bob", "Bea", "Ben", "Bo"]},
]
WORDS = {
    "en": {
        "label": "Next rounds",
        "log": "Rounds last 4:00 from round 1 on",
        "next": "Rounds last 3:00 from round 2 on",
    },
    "cs": {"label": "Další kola", "log": "Od kola 1 trvají kola 4:00", "next": "Od kola 2 trvají kola 3:00"},
}


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_the_round_length_changes_between_rounds_on_every_screen(
    playwright_api: Any,  # noqa: F811
    server: Server,
    lang: str,
) -> None:
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    words = WORDS[lang]
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            referee_ctx = browser.new_context(viewport=REFEREE_SCREEN, extra_http_headers={"Accept-Language": lang})
            referee_ctx.set_default_timeout(WAIT)
            referee = referee_ctx.new_page()
            referee.on("pageerror", lambda exc: errors.append(str(exc)))
            referee.goto(server.link)

            def api(ctx: Any, path: str, body: dict[str, Any]) -> Any:
                return post_json(ctx, server.base + path, body)

            made = api(referee_ctx, "/api/games", {"teams": TEAMS})
            gid = made["game"]
            phone_ctx = browser.new_context(
                viewport=SMALL_PHONE, is_mobile=True, has_touch=True, extra_http_headers={"Accept-Language": lang}
            )
            phone_ctx.set_default_timeout(WAIT)
            phone = phone_ctx.new_page()
            phone.on("pageerror", lambda exc: errors.append(str(exc)))
            phone.goto(made["links"]["join"]["A"])
            for team, ctx in (("A", phone_ctx), ("B", referee_ctx)):
                ships = api(ctx, f"/api/games/{gid}/sea/random", {"team": team})["ships"]
                api(ctx, f"/api/games/{gid}/actions", {"action": {"type": "lock_sea", "team": team, "ships": ships}})
            api(referee_ctx, f"/api/games/{gid}/actions", {"action": {"type": "start_game"}})
            projector = referee_ctx.new_page()
            projector.on("pageerror", lambda exc: errors.append(str(exc)))
            projector.goto(f"{server.base}/g/{gid}/watch")
            referee.goto(f"{server.base}/g/{gid}/referee")
            phone.reload()
            expect(referee.locator("body")).to_have_attribute("data-phase", "planning")
            expect(referee.locator("#timer")).to_have_text("5:00")

            field = referee.locator("#round-length-field")
            expect(field).to_be_visible()
            expect(field).to_contain_text(words["label"])
            referee.locator("#round-length").select_option("240")
            for page in (referee, projector, phone):
                expect(page.locator("#timer")).to_have_text("4:00")
            expect(referee.locator("#log")).to_contain_text(words["log"])
            referee.screenshot(path=str(SHOTS / f"{lang}-referee-round-length.png"))

            for action in (
                {"type": "set_defender", "team": "A", "pilot": "Amy"},
                {"type": "set_defender", "team": "B", "pilot": "Bo"},
                {"type": "start_round"},
            ):
                api(referee_ctx, f"/api/games/{gid}/actions", {"action": action})
            expect(referee.locator("body")).to_have_attribute("data-phase", "airborne")
            api(referee_ctx, f"/api/games/{gid}/actions", {"action": {"type": "pause_timer"}})
            expect(referee.locator("#timer")).to_have_text("4:00")
            # In the air the list sets the next rounds' length; this round keeps its clock.
            expect(field).to_be_visible()
            expect(referee.locator("#round-length")).to_have_value("240")
            referee.locator("#round-length").select_option("180")
            expect(referee.locator("#log")).to_contain_text(words["next"])
            expect(referee.locator("#timer")).to_have_text("4:00")
            api(referee_ctx, f"/api/games/{gid}/actions", {"action": {"type": "end_round"}})
            for page in (referee, projector, phone):
                expect(page.locator("#timer")).to_have_text("3:00")
            expect(referee.locator("#round-length")).to_have_value("180")
            # The projector's "round over" banner stands clear of the clock's digits.
            expect(projector.locator(".round-moment")).to_be_visible()
            banner = projector.locator(".round-moment").bounding_box()
            digits = projector.locator("#timer").bounding_box()
            assert banner and digits and banner["y"] >= digits["y"] + digits["height"], (banner, digits)
            # The clock's box is a large part of the projector's height (ux.md: "about a third").
            clock = projector.locator(".watch-clock").bounding_box()
            assert clock and clock["height"] >= 0.2 * REFEREE_SCREEN["height"], clock
            projector.screenshot(path=str(SHOTS / f"{lang}-projector-round-length.png"))
        finally:
            browser.close()
    assert not errors, errors
