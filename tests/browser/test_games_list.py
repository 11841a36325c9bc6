"""A way back to a game: the referee who closed the dashboard finds it again on the home page.

Three games (one flying, one being set up, one over) on a referee's phone at 360×740 and on the
laptop at 1366×768, in English and Czech: the running game is listed first with where it stands,
each entry fits the screen, and a tap opens that game's dashboard.
Screenshots: test-artifacts/screenshots/game-night/games-list-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..live_server import ROOT, Server, post_json
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "game-night"
SCREENS = {"phone": {"width": 360, "height": 740}, "laptop": {"width": 1366, "height": 768}}
PLAYERS = {"A": ["Ann", "Ada", "Abe", "Amy"], "B": ["Bob", "Bea", "Ben", "Bo"]}
WORDS = {
    "en": {
        "flying": "Round 1 · In the air",
        "setup": "Setting up",
        "over": "Game over",
        "title": "Referee",
        "archive": "Archive",
        "archived": "Archived games (1)",
        "back": "Put back on the list",
    },
    "cs": {
        "flying": "Kolo 1 · Ve vzduchu",
        "setup": "Příprava",
        "over": "Konec hry",
        "title": "Rozhodčí",
        "archive": "Archivovat",
        "archived": "Archivované hry (1)",
        "back": "Vrátit do seznamu",
    },
}


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
@pytest.mark.parametrize("screen", ["phone", "laptop"])
def test_the_home_page_leads_back_to_every_game(playwright_api: Any, server: Server, lang: str, screen: str) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    words = WORDS[lang]
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            phone = screen == "phone"
            ctx = browser.new_context(
                viewport=SCREENS[screen], is_mobile=phone, has_touch=phone, extra_http_headers={"Accept-Language": lang}
            )
            ctx.set_default_timeout(WAIT)
            page = ctx.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(server.link)

            def post(path: str, body: dict[str, Any]) -> Any:
                return post_json(ctx, server.base + path, body)

            def new_game(a: str, b: str) -> str:
                teams = [{"name": a, "players": PLAYERS["A"]}, {"name": b, "players": PLAYERS["B"]}]
                return str(post("/api/games", {"teams": teams})["game"])

            def act(gid: str, action: dict[str, Any]) -> None:
                post(f"/api/games/{gid}/actions", {"action": action})

            over = new_game("Owls", "Rays")
            act(over, {"type": "forfeit", "team": "B", "reason": "went home"})
            new_game("Foxes", "Hares")
            flying = new_game("Orli", "Sokoli")
            for team in "AB":
                ships = post(f"/api/games/{flying}/sea/random", {"team": team})["ships"]
                act(flying, {"type": "lock_sea", "team": team, "ships": ships})
            act(flying, {"type": "start_game"})
            act(flying, {"type": "set_defender", "team": "A", "pilot": "Amy"})
            act(flying, {"type": "set_defender", "team": "B", "pilot": "Bo"})
            act(flying, {"type": "start_round"})

            # The referee closed the dashboard and is on the home page.
            page.goto(server.base + "/")
            rows = page.locator(".game-list li")
            expect(rows).to_have_count(3)
            expect(rows.nth(0)).to_contain_text("Orli – Sokoli")
            expect(rows.nth(0)).to_contain_text(words["flying"])
            expect(rows.nth(1)).to_contain_text("Foxes – Hares")
            expect(rows.nth(1)).to_contain_text(words["setup"])
            expect(rows.nth(2)).to_contain_text("Owls – Rays")
            expect(rows.nth(2)).to_contain_text(words["over"])
            width = page.viewport_size["width"]
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width, (
                "the list is wider than the screen"
            )
            for i in range(3):
                box = rows.nth(i).locator("a").first.bounding_box()
                assert box is not None and box["height"] >= 44, f"entry {i} is not a comfortable tap target: {box}"
            page.screenshot(path=str(SHOTS / f"games-list-{screen}-{lang}.png"), full_page=True)

            # The game that is over goes to the archive, and comes back.
            rows.nth(2).get_by_role("button", name=words["archive"]).click()
            page.wait_for_url(server.base + "/")
            expect(page.locator("section.home > ul.game-list > li")).to_have_count(2)
            shelf = page.locator(".archived-games")
            expect(shelf.locator("summary")).to_have_text(words["archived"])
            shelf.locator("summary").click()
            expect(shelf.locator("li")).to_contain_text("Owls – Rays")
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(SHOTS / f"games-list-archived-{screen}-{lang}.png"), full_page=True)
            shelf.get_by_role("button", name=words["back"]).click()
            page.wait_for_url(server.base + "/")
            expect(rows).to_have_count(3)
            expect(page.locator(".archived-games")).to_have_count(0)

            rows.nth(0).locator("a").first.click()
            page.wait_for_url(f"**/g/{flying}/referee")
            expect(page.locator("#round-phase")).not_to_be_empty()
        finally:
            browser.close()
    assert not errors, errors
