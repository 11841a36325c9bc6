"""A rehearsal: the referee starts a practice game from the home page and runs it while the server plays.

On a real `referee serve`, the simulated teams lock their seas, write their orders and, once the
referee starts a round, fly and report their dogfights by themselves, at the pace the dashboard
sets; the projector shows it as on the night, marked as practice. Screenshots:
test-artifacts/screenshots/practice/.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "practice"
SCREEN = {"width": 1366, "height": 768}
SLOW = 40_000  # ms: the simulated players make a move a second


@pytest.mark.browser
def test_a_practice_game_plays_itself_while_the_referee_runs_it(playwright_api: Any, server: Server) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(viewport=SCREEN, extra_http_headers={"Accept-Language": "en"})
            ctx.set_default_timeout(SLOW)
            referee = ctx.new_page()
            referee.on("pageerror", lambda exc: errors.append(str(exc)))
            referee.goto(server.link)
            referee.get_by_role("link", name="Practice game").click()
            referee.get_by_role("button", name="Start a practice game").click()
            expect(referee.locator("#practice-title")).to_have_text("Practice game")
            expect(referee.locator("#round-phase")).not_to_be_empty()  # the dashboard's script is running
            referee.locator('[data-pace="1"]').click()
            expect(referee.locator('[data-pace="1"]')).to_have_attribute("aria-pressed", "true")
            projector = ctx.new_page()
            projector.goto(referee.url.replace("/referee", "/watch"))
            expect(projector.locator(".watch-practice")).to_contain_text("Practice game")

            # The teams lock their seas by themselves; the referee starts the game.
            start = referee.locator("#main-action")
            expect(start).to_be_enabled(timeout=SLOW)
            start.click()
            # They choose defenders and write orders; the referee starts the round.
            expect(start).to_have_text("Start round 1")
            expect(start).to_be_enabled(timeout=SLOW)
            referee.wait_for_timeout(9000)  # the rest of the orders (one a second)
            start.click()
            expect(referee.locator("body")).to_have_attribute("data-phase", "airborne")
            # The pilots fly and report; the log fills by itself.
            expect(referee.locator("#log")).to_contain_text("Dogfight", timeout=3 * SLOW)  # pilots meet at random
            referee.screenshot(path=str(SHOTS / "referee.png"))
            projector.screenshot(path=str(SHOTS / "projector.png"))
            referee.locator('[data-pace="0"]').click()
            expect(referee.locator('[data-pace="0"]')).to_have_attribute("aria-pressed", "true")
        finally:
            browser.close()
    assert not errors, errors
