"""No router needed: the network help page on the referee's laptop hears a phone that reaches it.

The referee opens /help/network (linked from the dashboard's join cards); a phone that opens the
address of one of its QR codes (/help/reach) is told it reaches the laptop, and appears in the
page's list within seconds. Screenshots: test-artifacts/screenshots/network/.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "network"
WORDS = {
    "en": {
        "title": "Play without a router",
        "ok": "This phone reaches the referee's computer",
        "listed": "Android reached",
    },
    "cs": {
        "title": "Hra bez routeru",
        "ok": "Tento telefon dosáhne na počítač rozhodčího",
        "listed": "Android dosáhl na",
    },
}
ANDROID = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
)


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_a_phone_that_reaches_the_laptop_shows_on_the_help_page(
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
            laptop_ctx = browser.new_context(
                viewport={"width": 1366, "height": 768}, extra_http_headers={"Accept-Language": lang}
            )
            laptop_ctx.set_default_timeout(WAIT)
            laptop = laptop_ctx.new_page()
            laptop.on("pageerror", lambda exc: errors.append(str(exc)))
            laptop.goto(f"{server.base}/help/network")
            expect(laptop.locator("h1")).to_have_text(words["title"])
            laptop.screenshot(path=str(SHOTS / f"{lang}-help-laptop.png"), full_page=True)

            phone_ctx = browser.new_context(
                viewport={"width": 360, "height": 740},
                is_mobile=True,
                has_touch=True,
                user_agent=ANDROID,
                extra_http_headers={"Accept-Language": lang},
            )
            phone_ctx.set_default_timeout(WAIT)
            phone = phone_ctx.new_page()
            phone.on("pageerror", lambda exc: errors.append(str(exc)))
            phone.goto(f"{server.base}/help/reach")
            expect(phone.locator(".verdict")).to_contain_text(words["ok"])
            phone.screenshot(path=str(SHOTS / f"{lang}-reach-phone.png"))
            expect(laptop.locator("#reaches")).to_contain_text(words["listed"])
            # A phone reads the help page too: nothing wider than its screen.
            phone.goto(f"{server.base}/help/network")
            wide = phone.evaluate("() => document.documentElement.scrollWidth > innerWidth + 1")
            assert not wide, "the help page is wider than a 360 px phone"
            phone.screenshot(path=str(SHOTS / f"{lang}-help-phone.png"), full_page=True)
        finally:
            browser.close()
    assert not errors, errors
