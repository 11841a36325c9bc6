"""Two devices: the host's invite goes as the friend's phone takes the Zealand seat; a spent invite says so.

The host (a tablet, 1024×768) starts a game against a friend from the new-game page and sees the
invite's QR code; the friend's phone (390×844) opens the link and plays Zealand; the host's page
drops the invite at once, without a reload. A third phone that opens the same link is told that
the link was used, without being sent to a referee this game has none of.
Screenshots: test-artifacts/screenshots/vestorsjo/invite-*.png.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, PHONE, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "vestorsjo"
TABLET = {"width": 1024, "height": 768}


@pytest.mark.browser
def test_the_invite_goes_when_the_friend_joins(playwright_api: Any, server: Server) -> None:  # noqa: F811
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
            host.locator("#vs-start").click()
            host.wait_for_url(re.compile(r".*/v/[^/]+$"))
            invite = host.locator("#vs-invite")
            expect(invite).to_be_visible()
            expect(invite.locator("svg")).to_have_count(1)
            link = invite.locator(".vs-link a").get_attribute("href")
            assert link and "t=" in link
            host.screenshot(path=str(SHOTS / "invite-1-host.png"))

            phone = {"viewport": PHONE, "is_mobile": True, "has_touch": True, **english}
            friend_ctx = browser.new_context(**phone)
            friend_ctx.set_default_timeout(WAIT)
            friend = friend_ctx.new_page()
            friend.on("pageerror", lambda exc: errors.append(f"friend: {exc}"))
            friend.goto(link)
            expect(friend.locator("#vs-end-turn")).to_be_attached()
            # The host's page hears of it on its socket: the invite is gone, no reload.
            expect(invite).to_be_hidden()
            host.screenshot(path=str(SHOTS / "invite-2-host-joined.png"))

            late_ctx = browser.new_context(**phone)
            late = late_ctx.new_page()
            late.goto(link)
            body = late.locator("main")
            expect(body).to_contain_text("it was used, or a newer one replaced it")
            assert "ask the referee" not in body.inner_text().lower()
            late.screenshot(path=str(SHOTS / "invite-3-spent.png"))
        finally:
            browser.close()
    assert not errors, errors
