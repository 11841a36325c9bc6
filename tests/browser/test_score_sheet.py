"""The score sheet in Chromium: a short game played to its round limit, then its sheet on a laptop, a
phone, paper (print media and an A4 PDF) and the projector, in English and in Czech.

Screenshots: test-artifacts/screenshots/game-night/sheet-*.png.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ..airraid_helpers import RULESET_PATH
from ..live_server import ROOT, Server, post_json
from ..web.test_score_sheet_web import scripted_round
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "game-night"
REFEREE_SCREEN = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
MOST_PAGES = 3  # the whole sheet of a one-round game on A4
WORDS = {
    "en": {"won": "Eagles won", "limit": "The limit of 1 round was reached."},
    "cs": {"won": "Vítězí Eagles", "limit": "1"},
}


def one_round_ruleset() -> str:
    """Return the shipped ruleset's text with a limit of one round: the end of round 1 ends the game."""
    text = RULESET_PATH.read_text(encoding="utf-8")
    limited, count = re.subn(r"(?m)^limit = 0\b", "limit = 1", text)
    assert count == 1, "the shipped ruleset's [rounds] limit line"
    return limited


def play_a_short_game(browser: Any, server: Server) -> str:
    """Create a game with a round limit of 1 and play its round through the API; return its id."""
    referee = browser.new_context()
    referee.set_default_timeout(WAIT)
    page = referee.new_page()
    page.goto(server.link)
    contexts = {"referee": referee}

    def post(ctx: Any, path: str, body: dict[str, Any]) -> Any:
        return post_json(ctx, server.base + path, body)

    made = post(
        referee,
        "/api/games",
        {
            "teams": [
                {"name": "Eagles", "players": ["Ann", "Ada", "Abe", "Amy"]},
                {"name": "Sharks", "players": ["Bob", "Bea", "Ben", "Bo"]},
            ],
            "ruleset_toml": one_round_ruleset(),
        },
    )
    gid = str(made["game"])
    for team in "AB":
        ctx = browser.new_context()
        ctx.new_page().goto(made["links"]["join"][team])
        contexts[team] = ctx
    scripted_round(lambda who, action: post(contexts[who], f"/api/games/{gid}/actions", {"action": action}))
    state = referee.request.get(f"{server.base}/api/games/{gid}/view").json()
    assert state["phase"] == "over" and state["outcome"]["reason"] == "round_limit", state["outcome"]
    for ctx in contexts.values():
        ctx.close()
    return gid


def overflow(page: Any, width: int) -> int:
    """Return by how many pixels the page is wider than the screen (tables scroll inside their own box).

    A phone zooms out to show a page that is too wide, and then its window is as wide as the page:
    the screen's own width is the measure, not `innerWidth`.
    """
    return int(page.evaluate("() => document.scrollingElement.scrollWidth")) - width


def pdf_pages(path: Path) -> int:
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", path.read_bytes()))


@pytest.mark.browser
def test_the_score_sheet_on_screen_paper_and_projector(playwright_api: Any, server: Server) -> None:  # noqa: F811
    sync_playwright = playwright_api.sync_playwright
    expect = playwright_api.expect
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            gid = play_a_short_game(browser, server)
            for lang in ("en", "cs"):
                words = WORDS[lang]
                # A stranger's browser: the game is over, so the sheet is everyone's now.
                for size, screen in (("desk", REFEREE_SCREEN), ("phone", PHONE)):
                    phone = size == "phone"
                    ctx = browser.new_context(
                        viewport=screen,
                        is_mobile=phone,
                        has_touch=phone,
                        extra_http_headers={"Accept-Language": lang},
                    )
                    ctx.set_default_timeout(WAIT)
                    page = ctx.new_page()
                    page.on("pageerror", lambda exc: errors.append(str(exc)))
                    page.goto(f"{server.base}/g/{gid}/sheet")
                    expect(page.locator("html")).to_have_attribute("lang", lang)
                    expect(page.locator("#sheet-headline")).to_contain_text(words["won"])
                    expect(page.locator(".sheet-how").first).to_contain_text(words["limit"])
                    for table in ("sheet-teams", "sheet-pilots", "sheet-rounds", "sheet-moments"):
                        expect(page.locator(f"table.{table}")).to_be_visible()
                    assert page.locator("svg.sheet-sea:not(.sheet-heat)").count() == 2
                    assert page.locator("svg.sheet-heat").count() == 2
                    box = page.locator("svg.sheet-heat").first.bounding_box()
                    assert box and box["width"] > 100, "the heat map is drawn at a readable size"
                    assert overflow(page, screen["width"]) <= 0, f"{lang} {size}: the page scrolls sideways"
                    page.screenshot(path=str(SHOTS / f"sheet-{lang}-{size}.png"), full_page=True)
                    if not phone:
                        page.emulate_media(media="print")
                        expect(page.locator(".sheet-actions")).to_be_hidden()
                        expect(page.locator(".app-header")).to_be_hidden()
                        page.screenshot(path=str(SHOTS / f"sheet-{lang}-print.png"), full_page=True)
                        pdf = Path(f"/tmp/sheet-{lang}.pdf")
                        page.pdf(path=str(pdf), format="A4", print_background=True)
                        pages = pdf_pages(pdf)
                        assert 1 <= pages <= MOST_PAGES, f"{lang}: {pages} A4 pages"
                        # The projector's timeline, from the projector view's own link, on a screen of its own.
                        page = ctx.new_page()
                        page.on("pageerror", lambda exc: errors.append(str(exc)))
                        page.goto(f"{server.base}/g/{gid}/watch")
                        link = page.locator(f'a[href="/g/{gid}/sheet?view=timeline"]')
                        expect(link).to_be_visible()
                        link.click()
                        expect(page.locator(".proj-moment")).to_have_count(7)
                        page.wait_for_load_state("load")  # its stylesheet too, before sizes are read
                        size_px = page.evaluate(
                            "() => parseFloat(getComputedStyle(document.querySelector('.proj-moment')).fontSize)"
                        )
                        assert size_px >= 32, f"{size_px}px is too small to read from the back of the room"
                        assert overflow(page, screen["width"]) <= 0
                        page.screenshot(path=str(SHOTS / f"sheet-{lang}-timeline.png"))
                    ctx.close()
        finally:
            browser.close()
    assert not errors, errors
