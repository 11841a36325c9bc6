"""Battleship's words in Chromium on a phone (390×844), in English, Czech and Norwegian.

Sjøslag against the computer, from the lobby:
 - the tray names the game's own ships beside the page's ("slagskip · battleship"; in Norwegian
   "slagskip" once), and the hints tell the two cruisers apart ("krysser · cruiser 1", "… 2");
 - a half-placed sea whose battleship touches the second cruiser is refused naming that cruiser;
 - after a shot into water the big line is the player's own result and the computer's answer the
   small line under it;
 - the computer is "Počítač" on the Czech pages: the player's page, the end, the projector, the scores.

Screenshots: test-artifacts/screenshots/game-night/battleship-*.png.
Skipped, with the reason, without /usr/bin/chromium or Playwright (REFEREE_REQUIRE_BROWSER=1: fail).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, LAPTOP, PHONE, WAIT, playwright_api  # noqa: F401

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

SHOTS = ROOT / "test-artifacts" / "screenshots" / "game-night"
LOCALES = {"en": "en-GB", "cs": "cs-CZ", "nb": "nb-NO"}


class Night:
    """One browser: phones and a laptop in a language each, collecting every page error."""

    def __init__(self, browser: Browser, server: Server, expect: Any) -> None:
        self.browser = browser
        self.server = server
        self.expect = expect
        self.errors: list[str] = []
        self.referee = self.context("en", LAPTOP, phone=False).new_page()
        self.referee.goto(server.link)  # the terminal link: the referee's cookie, to know the computer's fleet

    def context(self, lang: str, viewport: dict[str, int], phone: bool = True) -> BrowserContext:
        ctx = self.browser.new_context(
            viewport=viewport,
            locale=LOCALES[lang],
            extra_http_headers={"Accept-Language": lang},
            **({"is_mobile": True, "has_touch": True, "device_scale_factor": 2} if phone else {}),
        )
        ctx.set_default_timeout(WAIT)
        ctx.on(
            "page",
            lambda page: (
                page.on("pageerror", lambda exc: self.errors.append(f"{lang} {page.url}: {exc}")),
                page.on(
                    "console",
                    lambda msg: self.errors.append(f"{lang} console: {msg.text}") if msg.type == "error" else None,
                ),
            ),
        )
        return ctx

    def truth(self, gid: str) -> dict[str, Any]:
        response = self.referee.request.get(f"{self.server.base}/api/games/{gid}/view")
        assert response.ok, response.text()
        return response.json()  # type: ignore[no-any-return]

    def start(self, lang: str, name: str) -> tuple[Page, str]:
        """Start Sjøslag against the easy computer on a phone, the player first; return the page and game."""
        page = self.context(lang, PHONE).new_page()
        page.goto(f"{self.server.base}/battleship")
        for selector in (
            "label.bs-option:has(input[value=sjoslag])",
            "label.bs-option:has(input[value=computer])",
            "label.bs-pill:has(input[value=easy])",
            "label.bs-pill:has(input[value=A])",
        ):
            page.locator(selector).tap()
        page.locator("#bs-name").fill(name)
        page.locator("#bs-start").tap()
        self.expect(page).to_have_url(re.compile(r"/b/[^/]+$"))
        self.expect(page.locator("#conn-badge")).to_have_attribute("data-state", "synced")
        return page, page.url.rstrip("/").rsplit("/", 1)[1]

    def water(self, gid: str) -> str:
        """A square of the computer's sea that holds no ship."""
        ships = {sq for ship in self.truth(gid)["boards"]["B"]["ships"] for sq in ship["squares"]}
        return next(f"{c}{r}" for c in "JIHGFEDCBA" for r in range(10, 0, -1) if f"{c}{r}" not in ships)

    def ready_and_fire_into_water(self, page: Page, gid: str) -> str:
        """Place a random fleet, fire once into water; return when the computer's answer is on the own sea."""
        expect = self.expect
        page.locator("#bs-editor [data-editor=random]").tap()
        expect(page.locator("#bs-ready")).to_have_attribute("aria-disabled", "false")
        page.locator("#bs-ready").tap()
        expect(page.locator("#bs-play")).to_be_visible()
        water = self.water(gid)
        cell = page.locator(f"#bs-enemy-grid .sea-cell[data-square={water}]")
        cell.tap()
        expect(cell).to_have_class(re.compile(r"\bis-miss\b"))
        expect(page.locator("#bs-own-grid .sea-cell.is-miss, #bs-own-grid .sea-cell.is-hit").first).to_be_visible()
        return water

    def resign(self, page: Page) -> None:
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#bs-resign").tap()
        self.expect(page.locator("#bs-end")).to_be_visible()


def shot(page: Page, name: str, whole: bool = False) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), (
        f"{name}: sideways scroll"
    )
    page.bring_to_front()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"battleship-{name}.png"), full_page=whole, timeout=60_000)


@pytest.mark.browser
def test_sjoslag_words_and_the_answer_line_in_english(playwright_api: Any, server: Server) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            night = Night(browser, server, expect)
            eva, gid = night.start("en", "Eva")
            tray = eva.locator("#bs-editor")
            expect(tray.locator(".tray-ship[data-kind=battleship]")).to_contain_text("slagskip · battleship")
            cruisers = tray.locator(".tray-ship[data-kind=cruiser]")  # one chip for the two
            expect(cruisers).to_contain_text("krysser · cruiser")
            expect(tray.locator(".tray-ship[data-kind=torpedo_boat]")).to_contain_text("torpedobåt · torpedo boat")
            # The battleship on B2–E2, the first cruiser clear of it, the second right under it.
            tray.locator(".tray-ship[data-kind=battleship]").tap()
            tray.locator(".sea-cell[data-square=B2]").tap()
            cruisers.tap()
            expect(tray.locator(".editor-hint")).to_contain_text("krysser · cruiser 1")
            tray.locator(".sea-cell[data-square=B6]").tap()
            expect(eva.locator("#result")).to_contain_text("Krysser · cruiser 1 placed at B6")
            cruisers.tap()
            expect(tray.locator(".editor-hint")).to_contain_text("krysser · cruiser 2")
            tray.locator(".sea-cell[data-square=B3]").tap()
            expect(eva.locator("#result")).to_contain_text("Slagskip · battleship touches krysser · cruiser 2 at")
            expect(eva.locator("#result")).not_to_contain_text("cruiser 1")
            shot(eva, "en-refusal")

            water = night.ready_and_fire_into_water(eva, gid)
            assert night.truth(gid)["volleys"]["B"], "the computer answered the miss"
            # The big line is Eva's own result; the computer's shot is the small one under it.
            expect(eva.locator("#result > span").first).to_have_text(f"Water at {water}")
            expect(eva.locator("#result .detail")).to_contain_text("Computer fired at")
            expect(eva.locator("#bs-enemy-fleet")).to_contain_text("2 × krysser · cruiser")
            shot(eva, "en-answer")
        finally:
            browser.close()
    assert not night.errors, night.errors


@pytest.mark.browser
def test_the_computer_is_pocitac_on_the_czech_pages(playwright_api: Any, server: Server) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            night = Night(browser, server, expect)
            # The game is started on an English phone: the computer's name is no English word stored.
            eva, gid = night.start("en", "Eva")
            jana, jgid = night.start("cs", "Jana")
            expect(jana.locator("#bs-editor .tray-ship[data-kind=battleship]")).to_contain_text(
                "slagskip · bitevní loď"
            )
            expect(jana.locator("#bs-matchup")).to_have_text("Jana – Počítač")
            water = night.ready_and_fire_into_water(jana, jgid)
            expect(jana.locator("#result > span").first).to_have_text(f"Voda na {water}")
            expect(jana.locator("#result .detail")).to_contain_text("Počítač vystřelil na")
            shot(jana, "cs-answer")
            night.resign(jana)
            expect(jana.locator("#bs-end-title")).to_have_text("vyhrál Počítač")
            jana.locator("#bs-end").scroll_into_view_if_needed()
            shot(jana, "cs-lost")

            night.ready_and_fire_into_water(eva, gid)
            night.resign(eva)
            expect(eva.locator("#bs-end-title")).to_have_text("Computer won")
            projector = night.context("cs", LAPTOP, phone=False).new_page()
            projector.goto(f"{server.base}/b/{gid}/watch")
            status = projector.locator("#bs-watch-status")
            expect(status).to_contain_text("vyhrál Počítač")
            expect(status).not_to_contain_text("Computer")
            expect(projector.locator("#bs-name-B")).to_have_text("Počítač")
            shot(projector, "cs-projector-over", whole=True)
            phone_watch = night.context("cs", PHONE).new_page()
            phone_watch.goto(f"{server.base}/b/{gid}/watch")
            expect(phone_watch.locator("#bs-watch-status")).to_contain_text("vyhrál Počítač")
            shot(phone_watch, "cs-watch-phone")

            scores = night.context("cs", PHONE).new_page()
            scores.goto(f"{server.base}/battleship/scores")
            table = scores.locator(".bs-scores-table")
            expect(table.locator("tbody tr")).to_have_count(3)  # Eva, Jana, and the computer once
            expect(table).to_contain_text("Počítač")
            expect(table).not_to_contain_text("Computer")
            expect(table.locator("tbody tr").first.locator("td").nth(2)).to_have_text("2")  # its two wins
            expect(table.locator("th.bs-shots")).to_be_visible()
            shot(scores, "cs-scores", whole=True)
        finally:
            browser.close()
    assert not night.errors, night.errors


@pytest.mark.browser
def test_sjoslag_in_norwegian_says_each_word_once(playwright_api: Any, server: Server) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            night = Night(browser, server, expect)
            ola, _gid = night.start("nb", "Ola")
            tray = ola.locator("#bs-editor")
            expect(tray.locator(".tray-ship[data-kind=battleship] .tray-name")).to_have_text("slagskip")
            expect(tray.locator(".tray-ship[data-kind=cruiser] .tray-name")).to_have_text("krysser")
            expect(tray).not_to_contain_text("·")
            tray.locator(".tray-ship[data-kind=cruiser]").tap()
            expect(tray.locator(".editor-hint")).to_contain_text("krysser 1")
            shot(ola, "nb-tray")
        finally:
            browser.close()
    assert not night.errors, night.errors
