"""Vestorsjø on a phone (390×844) with our own dice: a tapped piece comes into view with all it may
reach, and the dice take one row, the action bar about a sixth of the screen, not half of it.

Screenshots: test-artifacts/screenshots/vestorsjo/phone-dice-*.png.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, PHONE, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "vestorsjo"
NEAR = {"zealand.frigate-1": "L21", "zealand.corvette-1": "K21"}

IN_VIEW = """(ids) => {
  const board = document.getElementById('vs-board').getBoundingClientRect();
  return ids.filter((sel) => {
    const r = document.querySelector(sel).getBoundingClientRect();
    return r.left < board.left || r.right > board.right || r.top < board.top || r.bottom > board.bottom;
  });
}"""


@pytest.mark.browser
def test_a_phone_brings_the_reach_into_view_and_keeps_the_dice_small(playwright_api: Any, server: Server) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(
                viewport=PHONE,
                is_mobile=True,
                has_touch=True,
                device_scale_factor=2,
                locale="en-GB",
                extra_http_headers={"Accept-Language": "en"},
            )
            ctx.set_default_timeout(WAIT)
            page = ctx.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{server.base}/vestorsjo")
            made = page.request.post(
                f"{server.base}/api/vestorsjo/games",
                data=json.dumps({"opponent": "hotseat", "dice": "physical", "start": NEAR}),
                headers={"Content-Type": "application/json"},
            )
            assert made.status == 201, made.text()
            gid = made.json()["game"]
            page.goto(f"{server.base}/v/{gid}")
            expect(page.locator("#conn-badge")).to_have_attribute("data-state", "synced")
            # Zoom in on the north, far from the fleets: a tap on a chip, then on the piece itself.
            for _ in range(3):
                page.locator("#vs-zoom-in").tap()
            page.locator('#vs-info [data-select="scania.destroyer"]').tap()
            page.locator('[data-piece="scania.destroyer"]').first.tap()  # deselect
            page.locator('[data-piece="scania.destroyer"]').first.tap()  # select again: the reach comes into view
            expect(page.locator('[data-piece="zealand.frigate-1"]')).to_have_class(re.compile(r"\bis-target\b"))
            page.wait_for_timeout(200)
            reach = [
                '[data-piece="scania.destroyer"]',
                '[data-piece="zealand.frigate-1"]',
                '[data-piece="zealand.corvette-1"]',
            ]
            reach += [
                f'#vs-moves [data-to="{to}"]'
                for to in page.evaluate(
                    "() => [...document.querySelectorAll('#vs-moves [data-to]')].map((m) => m.dataset.to)"
                )
            ]
            assert page.evaluate(IN_VIEW, reach) == []
            # Aim: our own dice, one row with Cancel; the bar stays small.
            page.locator('[data-piece="zealand.frigate-1"]').first.tap()
            expect(page.locator("#vs-dice")).to_be_visible()
            expect(page.locator("#vs-cancel-dice")).to_be_visible()
            bar = page.locator("footer.actionbar").bounding_box()
            assert bar is not None and bar["height"] <= 0.25 * PHONE["height"], bar
            tops = page.evaluate(
                "() => [...document.querySelectorAll('#vs-dice .vs-die')].map((d) => d.getBoundingClientRect().top)"
            )
            assert len(tops) == 7 and max(tops) - min(tops) < 1, tops
            sizes = page.evaluate(
                "() => [...document.querySelectorAll('#vs-dice .vs-die')].map((d) => d.getBoundingClientRect().height)"
            )
            assert min(sizes) >= 44, sizes
            page.screenshot(path=str(SHOTS / "phone-dice-1-aim.png"))
            page.locator('#vs-dice [data-pips="6"]').tap()
            expect(page.locator("#vs-log .vs-roll").first).to_contain_text("die 6 (thrown by hand)")
            expect(page.locator("#vs-dice")).to_be_hidden()
            page.screenshot(path=str(SHOTS / "phone-dice-2-rolled.png"))
        finally:
            browser.close()
    assert not errors, errors
