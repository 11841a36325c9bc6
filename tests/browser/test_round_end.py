"""The end of an air-raid round is a moment every screen shows, in Czech and in English.

At 0:00 with a dogfight still due (the shipped ruleset's `at_zero = "wait"`): the referee's
dashboard says "Time!" and what is still open, a team's phone shows the "Time!" banner, the round
stays in the air; "End round" asks first and says what becomes of the planes still out; once it is
ended every screen says that the round is over. Screenshots: test-artifacts/screenshots/game-night/.
"""

from __future__ import annotations

import re
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
        "time": "Time!",
        "open": "Still open: 1 dogfight",
        "over": "Round 1 is over.",
        "ask": "End round 1 now?",
        "early": "The referee ended round 2.",
    },
    "cs": {
        "time": "Čas!",
        "open": "Ještě otevřené: 1 vzdušný souboj",
        "over": "Kolo 1 skončilo.",
        "ask": "Ukončit kolo 1",
        "early": "Rozhodčí ukončil kolo 2.",
    },
}


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_time_is_a_moment_on_every_screen(playwright_api: Any, server: Server, lang: str) -> None:  # noqa: F811
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
            phones = {}
            for team in "AB":
                ctx = browser.new_context(
                    viewport=SMALL_PHONE, is_mobile=True, has_touch=True, extra_http_headers={"Accept-Language": lang}
                )
                ctx.set_default_timeout(WAIT)
                page = ctx.new_page()
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.goto(made["links"]["join"][team])
                ships = api(ctx, f"/api/games/{gid}/sea/random", {"team": team})["ships"]
                api(ctx, f"/api/games/{gid}/actions", {"action": {"type": "lock_sea", "team": team, "ships": ships}})
                phones[team] = page
            for action in (
                {"type": "start_game"},
                {"type": "set_defender", "team": "A", "pilot": "Amy"},
                {"type": "set_defender", "team": "B", "pilot": "Bo"},
                {"type": "add_order", "team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"},
                {"type": "add_order", "team": "B", "pilot": "Bob", "kind": "fighter", "ship": "A", "corridor": "upper"},
                {"type": "start_round"},
            ):
                api(referee_ctx, f"/api/games/{gid}/actions", {"action": action})
            referee.goto(f"{server.base}/g/{gid}/referee")
            expect(referee.locator("#round-phase")).not_to_be_empty()
            # Every table fits its card on the referee's 1366 px screen, Czech headings too.
            expect(referee.locator("#ledger tr").first).to_be_visible()
            wide = referee.evaluate(
                "() => [...document.querySelectorAll('.table-wrap')]"
                ".filter((w) => w.scrollWidth > w.clientWidth + 1).length"
            )
            assert wide == 0, f"{wide} tables wider than their card"
            for page in phones.values():
                page.reload()
            # Five seconds before 0:00: Ann and Bob have not fought their dogfight yet.
            api(referee_ctx, f"/api/games/{gid}/actions", {"action": {"type": "adjust_timer", "seconds": -295}})

            moment = referee.locator(".round-moment")
            expect(moment).to_be_visible(timeout=WAIT)
            expect(moment).to_contain_text(words["time"])
            expect(referee.locator("#timer")).to_have_text("0:00")
            expect(referee.locator("#main-why")).to_contain_text(words["open"])
            expect(phones["A"].locator(".round-moment")).to_contain_text(words["time"])
            referee.screenshot(path=str(SHOTS / f"{lang}-referee-timeup.png"))
            phones["A"].screenshot(path=str(SHOTS / f"{lang}-team-timeup.png"))
            # The round waits for the dogfight that was due: still in the air a while after 0:00.
            referee.wait_for_timeout(1500)
            state = referee.evaluate("() => document.body.dataset.phase")
            assert state == "airborne", state

            referee.locator("#t-end").click()
            dialog = referee.locator("#reason-dialog")
            expect(dialog).to_be_visible()
            expect(dialog).to_contain_text(words["ask"])
            expect(dialog.locator("#reason-input")).to_be_hidden()
            assert re.search(r"\b2\b", dialog.locator("#reason-text").inner_text()), "says how many planes are out"
            referee.screenshot(path=str(SHOTS / f"{lang}-referee-confirm.png"))
            dialog.locator("#reason-ok").click()

            expect(referee.locator("body")).to_have_attribute("data-phase", "planning")
            expect(moment).to_contain_text(words["over"])
            expect(phones["B"].locator(".round-moment")).to_contain_text(words["over"])
            referee.screenshot(path=str(SHOTS / f"{lang}-referee-ended.png"))
            phones["B"].screenshot(path=str(SHOTS / f"{lang}-teamB-ended.png"))

            # Round 2, ended by the referee with most of its time left: no screen says "Time!".
            for action in (
                {"type": "set_defender", "team": "A", "pilot": "Abe"},
                {"type": "set_defender", "team": "B", "pilot": "Ben"},
                {"type": "add_order", "team": "A", "pilot": "Ada", "kind": "fighter", "ship": "A", "corridor": "upper"},
                {"type": "add_order", "team": "B", "pilot": "Bea", "kind": "fighter", "ship": "A", "corridor": "upper"},
                {"type": "start_round"},
            ):
                api(referee_ctx, f"/api/games/{gid}/actions", {"action": action})
            expect(referee.locator("body")).to_have_attribute("data-phase", "airborne")
            expect(phones["A"].locator("#timer")).not_to_have_text("0:00")
            api(referee_ctx, f"/api/games/{gid}/actions", {"action": {"type": "end_round"}})
            for page in (referee, phones["A"], phones["B"]):
                expect(page.locator(".round-moment")).to_contain_text(words["early"])
                expect(page.locator(".round-moment")).not_to_contain_text(words["time"])
            phones["A"].screenshot(path=str(SHOTS / f"{lang}-team-referee-ended.png"))
        finally:
            browser.close()
    assert not errors, errors
