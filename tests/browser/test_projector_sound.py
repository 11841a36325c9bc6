"""The projector's sound at 0:00: remembered on the device, and shown on the referee's dashboard.

Turned on once, the projector's sound comes back after a reload: at once where the browser
allows sound without a tap (a kiosk started with autoplay allowed, as here), else at the first
tap anywhere, the button saying so. The dashboard says whether the projector's sound is on.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..live_server import Server, post_json
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

SCREEN = {"width": 1366, "height": 768}
TEAMS = [
    {"name": "Orli", "players": ["Ann", "Ada", "Abe", "Amy"]},
    {"name": "Sokoli", "players": ["Bob", "Bea", "Ben", "Bo"]},
]
WORDS = {
    "en": {
        "on": "Projector: sound on",
        "off": "Projector: sound off",
        "again": "Tap anywhere to turn the sound back on",
    },
    "cs": {
        "on": "Projektor: zvuk zapnutý",
        "off": "Projektor: zvuk vypnutý",
        "again": "Klepnutím kamkoli zvuk znovu zapnete",
    },
}


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_the_dashboard_shows_whether_the_projector_sounds(playwright_api: Any, server: Server, lang: str) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    words = WORDS[lang]
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        kiosk = p.chromium.launch(
            executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, "--autoplay-policy=no-user-gesture-required"]
        )
        try:
            referee_ctx = browser.new_context(viewport=SCREEN, extra_http_headers={"Accept-Language": lang})
            referee_ctx.set_default_timeout(WAIT)
            referee = referee_ctx.new_page()
            referee.on("pageerror", lambda exc: errors.append(str(exc)))
            referee.goto(server.link)
            gid = post_json(referee_ctx, f"{server.base}/api/games", {"teams": TEAMS})["game"]
            referee.goto(f"{server.base}/g/{gid}/referee")
            status = referee.locator("#projector-sound")
            expect(status).to_be_hidden()

            # A projector in a browser that blocks sound until a tap.
            projector_ctx = browser.new_context(viewport=SCREEN, extra_http_headers={"Accept-Language": lang})
            projector_ctx.set_default_timeout(WAIT)
            projector = projector_ctx.new_page()
            projector.on("pageerror", lambda exc: errors.append(str(exc)))
            projector.goto(f"{server.base}/g/{gid}/watch")
            expect(status).to_contain_text(words["off"])
            projector.locator("#sound").click()
            expect(projector.locator("#sound")).to_have_attribute("aria-pressed", "true")
            expect(status).to_have_text(words["on"])
            # Reloaded, it remembers the choice but must wait for a tap: both screens say so.
            projector.reload()
            expect(projector.locator("#sound")).to_have_text(words["again"])
            expect(status).to_contain_text(words["off"])
            projector.locator("main").click()
            expect(projector.locator("#sound")).to_have_attribute("aria-pressed", "true")
            expect(status).to_have_text(words["on"])
            projector_ctx.close()
            expect(status).to_be_hidden()

            # A kiosk projector (autoplay allowed): the sound it had is back after a reload, untouched.
            kiosk_ctx = kiosk.new_context(viewport=SCREEN, extra_http_headers={"Accept-Language": lang})
            kiosk_ctx.set_default_timeout(WAIT)
            screen = kiosk_ctx.new_page()
            screen.on("pageerror", lambda exc: errors.append(str(exc)))
            screen.goto(f"{server.base}/g/{gid}/watch")
            screen.locator("#sound").click()
            expect(status).to_have_text(words["on"])
            screen.reload()
            expect(screen.locator("#sound")).to_have_attribute("aria-pressed", "true")
            expect(status).to_have_text(words["on"])
        finally:
            browser.close()
            kiosk.close()
    assert not errors, errors
