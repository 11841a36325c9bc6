"""Three planes at take-off position 1 of three corridors have three labels on every screen (issue 12).

Team A sends Ann, Ada and Abe first into the upper, middle and lower corridor, team B Bob, Bea and
Ben. The team's phone (360×740) lists A1, A2 and A3; the referee's dashboard (1366×768) shows the
six planes in their corridors and the three due dogfights as A1 vs B1, A2 vs B2, A3 vs B3; after
the round, a dashboard opened afresh still names the planes of round 1 so in its log (referee.js
works their labels out from the log, the view no longer lists them). Czech and English.
Screenshots: test-artifacts/screenshots/game-night/labels-*.png.
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
FLIGHTS = {
    "A": [("Ann", "upper", "A"), ("Ada", "middle", "B"), ("Abe", "lower", "C")],
    "B": [("Bob", "upper", "A"), ("Bea", "middle", "B"), ("Ben", "lower", "C")],
}
ORDER_ADDED = {"en": "order {plane} added", "cs": "rozkaz {plane}"}


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_three_corridors_three_labels(playwright_api: Any, server: Server, lang: str) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
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

            def act(ctx: Any, action: dict[str, Any]) -> Any:
                return api(ctx, f"/api/games/{gid}/actions", {"action": action})

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
                act(ctx, {"type": "lock_sea", "team": team, "ships": ships})
                phones[team] = (ctx, page)
            act(referee_ctx, {"type": "start_game"})
            act(referee_ctx, {"type": "set_defender", "team": "A", "pilot": "Amy"})
            act(referee_ctx, {"type": "set_defender", "team": "B", "pilot": "Bo"})
            for team, flights in FLIGHTS.items():
                for pilot, corridor, ship in flights:
                    order = {"team": team, "pilot": pilot, "kind": "fighter", "ship": ship, "corridor": corridor}
                    act(phones[team][0], {"type": "add_order", **order})

            # The team's phone: three orders, each at position 1 of its corridor, three labels.
            phone = phones["A"][1]
            phone.reload()
            items = phone.locator("#order-list .order-item")
            expect(items).to_have_count(3)
            expect(items.locator(".order-label")).to_have_text(["A1", "A2", "A3"])
            expect(items.filter(has_text="Ada").locator(".order-label")).to_have_text("A2")
            for item in items.all():
                assert re.search(r"\s1$", item.locator(".order-line").inner_text().rstrip()), (
                    "position 1 in each corridor"
                )
            expect(phone.locator("#conn-badge")).to_have_attribute("data-state", "synced")
            # The list's top just under the tab bar: all three orders above the Add order bar.
            phone.locator("#list-card").evaluate("(el) => window.scrollBy(0, el.getBoundingClientRect().top - 130)")
            phone.screenshot(path=str(SHOTS / f"labels-{lang}-team.png"))

            # The referee's dashboard in the air: six planes, three due dogfights, no label twice.
            act(referee_ctx, {"type": "start_round"})
            referee.goto(f"{server.base}/g/{gid}/referee")
            planes = referee.locator("#corridors .plane-line strong")
            expect(planes).to_have_count(6)
            expect(planes).to_have_text(["A1", "B1", "A2", "B2", "A3", "B3"])
            duels = referee.locator("#attention .attn-who")
            expect(duels).to_have_count(3)
            shown = sorted(d.inner_text().replace("\n", " ") for d in duels.all())
            for a, b in (("A1", "B1"), ("A2", "B2"), ("A3", "B3")):
                assert any(a in text and b in text for text in shown), (a, b, shown)
            expect(referee.locator("#conn-badge")).to_have_attribute("data-state", "synced")
            referee.screenshot(path=str(SHOTS / f"labels-{lang}-referee.png"))

            # Round 1 over, the dashboard opened again: its log still tells A2 from A1 and A3.
            act(referee_ctx, {"type": "end_round"})
            referee.reload()
            expect(referee.locator("body")).to_have_attribute("data-phase", "planning")
            log = referee.locator("#log")
            for label, pilot in (("A1", "Ann"), ("A2", "Ada"), ("A3", "Abe"), ("B2", "Bea")):
                expect(log).to_contain_text(ORDER_ADDED[lang].format(plane=f"{label} ({pilot})"))
            expect(referee.locator("#conn-badge")).to_have_attribute("data-state", "synced")
            referee.screenshot(path=str(SHOTS / f"labels-{lang}-referee-log.png"))
        finally:
            browser.close()
    assert not errors, errors
