"""Over plain http a phone's screen stays on during a round: a silent video plays where no wake lock is.

A page on the club's network (http, no secure context) has no `navigator.wakeLock`; the pilot's
page and the defender's base then play NoSleep.js's silent video in a loop, out of sight. Here
the wake lock is taken away from the page before it loads, as an http page on a LAN address has
none (the test server's 127.0.0.1 would be a secure context).
"""

from __future__ import annotations

from typing import Any

import pytest

from ..live_server import Server, post_json
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

PHONE = {"width": 390, "height": 844}
TEAMS = [
    {"name": "Orli", "players": ["Ann", "Ada", "Abe", "Amy"]},
    {"name": "Sokoli", "players": ["Bob", "Bea", "Ben", "Bo"]},
]
NO_WAKE_LOCK = "delete Navigator.prototype.wakeLock;"
PLAYING = (
    "() => { const v = document.querySelector('.screen-wake-video'); return Boolean(v && !v.paused && v.currentSrc); }"
)


@pytest.mark.browser
def test_the_pilot_and_the_defender_keep_their_screens_on_over_http(playwright_api: Any, server: Server) -> None:  # noqa: F811
    sync_playwright = playwright_api.sync_playwright
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            referee_ctx = browser.new_context()
            referee_ctx.set_default_timeout(WAIT)
            referee = referee_ctx.new_page()
            referee.goto(server.link)
            made = post_json(referee_ctx, f"{server.base}/api/games", {"teams": TEAMS})
            gid = made["game"]

            def act(action: dict[str, Any]) -> Any:
                return post_json(referee_ctx, f"{server.base}/api/games/{gid}/actions", {"action": action})

            for team in "AB":
                ships = post_json(referee_ctx, f"{server.base}/api/games/{gid}/sea/random", {"team": team})["ships"]
                act({"type": "lock_sea", "team": team, "ships": ships})
            act({"type": "start_game"})
            act({"type": "set_defender", "team": "A", "pilot": "Amy"})
            act({"type": "set_defender", "team": "B", "pilot": "Bo"})
            act({"type": "add_order", "team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"})
            slips = referee_ctx.request.get(f"{server.base}/api/games/{gid}/slips").json()["slips"]
            act({"type": "start_round"})

            phone_ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
            phone_ctx.set_default_timeout(WAIT)
            phone_ctx.add_init_script(NO_WAKE_LOCK)
            pilot = phone_ctx.new_page()
            pilot.on("pageerror", lambda exc: errors.append(str(exc)))
            pilot.goto(slips[0]["url"])
            assert pilot.evaluate("() => 'wakeLock' in navigator") is False
            pilot.wait_for_function(PLAYING)
            # Out of sight, and nothing to hear.
            video = pilot.evaluate(
                "() => { const v = document.querySelector('.screen-wake-video'); const r = v.getBoundingClientRect();"
                " return { muted: v.muted, loop: v.loop, width: r.width, opacity: getComputedStyle(v).opacity }; }"
            )
            assert video["muted"] and video["loop"] and video["width"] <= 1 and float(video["opacity"]) < 0.05, video

            defender_ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
            defender_ctx.set_default_timeout(WAIT)
            defender_ctx.add_init_script(NO_WAKE_LOCK)
            base = defender_ctx.new_page()
            base.on("pageerror", lambda exc: errors.append(str(exc)))
            base.goto(made["links"]["join"]["B"])
            base.wait_for_function(PLAYING)
            # The round over, the base lets its screen sleep again.
            act({"type": "end_round"})
            base.wait_for_function(PLAYING.replace("Boolean(v && !v.paused", "Boolean(v && v.paused"))
        finally:
            browser.close()
    assert not errors, errors
