"""A whole Sjøslag game on a phone (390×844) against the computer, from the lobby to the rematch.

The real `referee serve` runs as a subprocess; Debian's Chromium plays Eva on a touch phone, and
a laptop context holds the referee's cookie. To keep the game short the test asks the server,
as the referee, where the computer's ships are and fires at them; every tap still goes through
the real page:

 1. the front page links to Battleship; the lobby starts Sjøslag against the easy computer;
 2. one ship placed by hand (tap the tray, tap the square, tap to rotate), then Random, Ready;
 3. a first shot into water: "Water at …", the computer answers on Eva's own sea;
 4. shots at every square of the computer's fleet: "Hit at …", "Sunk at …", rings marked;
 5. the projector (laptop) shows both seas with shots only, and the referee's forfeit buttons;
 6. Eva wins: the end screen, both fleets revealed; the scores of the evening count her win;
 7. Rematch: a new game, same players, the computer starts this time.

A second test plays pass-and-play on one phone (dark mode): the privacy screen between turns.

Screenshots of each step go to test-artifacts/battleship/NN-name.png.
Skipped, with the reason, without /usr/bin/chromium or Playwright (REFEREE_REQUIRE_BROWSER=1: fail).
"""

from __future__ import annotations

import json
import re
import urllib.request
from typing import TYPE_CHECKING, Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, LAPTOP, PHONE, WAIT, playwright_api  # noqa: F401

if TYPE_CHECKING:
    from playwright.sync_api import Page

ARTIFACTS = ROOT / "test-artifacts" / "battleship"


@pytest.mark.browser
def test_a_whole_sjoslag_game_against_the_computer_on_a_phone(playwright_api: Any, server: Server) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    errors: list[str] = []

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:

            def context(label: str, viewport: dict[str, int], phone: bool) -> Any:
                ctx = browser.new_context(
                    viewport=viewport,
                    locale="en-GB",
                    extra_http_headers={"Accept-Language": "en"},
                    **({"is_mobile": True, "has_touch": True, "device_scale_factor": 2} if phone else {}),
                )
                ctx.set_default_timeout(WAIT)
                ctx.on(
                    "page",
                    lambda page: (
                        page.on("pageerror", lambda exc: errors.append(f"{label} {page.url}: {exc}")),
                        page.on(
                            "console",
                            lambda msg: errors.append(f"{label} console: {msg.text}") if msg.type == "error" else None,
                        ),
                    ),
                )
                return ctx

            def shot(page: Page, number: int, name: str, whole: bool = False) -> None:
                narrow = (page.viewport_size or LAPTOP)["width"] < 600
                if narrow:
                    assert page.evaluate(
                        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
                    ), f"{name}: sideways scroll"
                page.bring_to_front()  # a page behind another tab may not paint
                # A picture is not an assertion: on a loaded machine it may take longer than a click.
                page.screenshot(path=str(ARTIFACTS / f"{number:02d}-{name}.png"), full_page=whole, timeout=60_000)

            laptop = context("referee", LAPTOP, phone=False)
            ref = laptop.new_page()
            ref.goto(server.link)  # the terminal link: the referee cookie

            def truth(gid: str) -> dict[str, Any]:
                """The referee's view (the test knows the computer's fleet this way only)."""
                response = ref.request.get(f"{server.base}/api/games/{gid}/view")
                assert response.ok, response.text()
                return response.json()  # type: ignore[no-any-return]

            # ------------------------------------------------ 1. lobby
            eva = context("eva", PHONE, phone=True).new_page()
            eva.goto(server.base + "/")
            eva.get_by_role("link", name=re.compile("Battleship")).tap()
            expect(eva).to_have_url(re.compile(r"/battleship$"))
            eva.locator("label.bs-option", has_text="Sjøslag").tap()
            eva.locator("label.bs-option", has_text="The computer").tap()
            eva.locator("#bs-name").fill("Eva")
            eva.locator("label.bs-pill", has_text="Easy").tap()
            eva.locator("label.bs-pill", has_text="I do").tap()
            shot(eva, 1, "lobby", whole=True)
            eva.locator("#bs-start").tap()
            expect(eva).to_have_url(re.compile(r"/b/[^/]+$"))
            gid = eva.url.rstrip("/").rsplit("/", 1)[1]
            expect(eva.locator("#conn-badge")).to_have_attribute("data-state", "synced")
            expect(eva.locator("#bs-status")).to_have_text("Place your fleet")
            expect(eva.locator(".tray-ship")).to_have_count(4)  # one chip per kind: the ten ships
            expect(eva.locator(".tray-ship[data-kind=torpedo_boat]")).to_have_attribute("data-count", "4")

            # ------------------------------------------------ 2. placement: by hand, then Random
            eva.locator(".tray-ship[data-kind=battleship]").tap()
            eva.locator("#bs-editor .sea-cell[data-square=B2]").tap()
            for square in ("B2", "C2", "D2", "E2"):
                expect(eva.locator(f"#bs-editor .sea-cell[data-square={square}]")).to_have_class(
                    re.compile(r"\bis-ship\b")
                )
            eva.get_by_role("button", name="Rotate").tap()  # the selected ship turns upright
            expect(eva.locator("#bs-editor .sea-cell.is-ship")).to_have_count(4)
            expect(eva.locator("#result")).to_contain_text("Slagskip · battleship placed at B2")
            shot(eva, 2, "placing-by-hand")
            eva.get_by_role("button", name="Random").tap()
            expect(eva.locator("#bs-editor .sea-cell.is-ship")).to_have_count(20)
            expect(eva.locator("#result")).to_contain_text("The fleet is legal.")
            expect(eva.locator("#bs-ready")).to_have_attribute("aria-disabled", "false")
            shot(eva, 2, "placing-random")
            eva.locator("#bs-ready").tap()
            expect(eva.locator("#bs-play")).to_be_visible()
            expect(eva.locator("#bs-status")).to_have_text("Your turn: tap the enemy sea")

            # ------------------------------------------------ 3. a miss: the computer answers
            fleet = truth(gid)["boards"]["B"]["ships"]
            ship_squares = [sq for ship in fleet for sq in ship["squares"]]
            water = next(f"{c}{r}" for c in "JIHGFEDCBA" for r in range(10, 0, -1) if f"{c}{r}" not in ship_squares)
            eva.locator(f"#bs-enemy-grid .sea-cell[data-square={water}]").tap()
            expect(eva.locator("#result")).to_contain_text(re.compile(rf"Computer fired at|Water at {water}"))
            expect(eva.locator(f"#bs-enemy-grid .sea-cell[data-square={water}]")).to_have_class(
                re.compile(r"\bis-miss\b")
            )
            expect(eva.locator("#bs-status")).to_have_text("Your turn: tap the enemy sea")
            assert truth(gid)["volleys"]["B"], "the computer fired after Eva's miss"
            expect(
                eva.locator(
                    "#bs-own-grid .sea-cell.is-miss, #bs-own-grid .sea-cell.is-hit, #bs-own-grid .sea-cell.is-sunk"
                ).first
            ).to_be_visible()
            # A square already shot cannot be fired at again.
            eva.locator(f"#bs-enemy-grid .sea-cell[data-square={water}]").tap(force=True)  # dimmed: aria-disabled
            expect(eva.locator("#result")).to_contain_text(f"Already shot at {water}")
            shot(eva, 3, "after-a-miss")

            # ------------------------------------------------ 4. at the computer's ships
            watch = laptop.new_page()
            watch.goto(f"{server.base}/b/{gid}/watch")
            for n, square in enumerate(ship_squares):
                view = truth(gid)
                if view["phase"] == "over":
                    break
                if square in {s["square"] for s in view["boards"]["B"]["shots"]}:
                    continue
                cell = eva.locator(f"#bs-enemy-grid .sea-cell[data-square={square}]")
                cell.tap()
                expect(cell).to_have_class(re.compile(r"\bis-(hit|sunk)\b"))
                if n == 4:
                    expect(eva.locator("#result")).to_contain_text(re.compile(r"Hit at|Sunk at"))
                    shot(eva, 4, "hits")
                    expect(
                        watch.locator("#bs-watch-grid-B .sea-cell.is-hit, #bs-watch-grid-B .sea-cell.is-sunk").first
                    ).to_be_visible()
                    # The projector: shots only; no ship square drawn before the end.
                    expect(watch.locator(".bs-watch-boards .sea-cell.is-ship")).to_have_count(0)
                    expect(watch.locator("[data-forfeit]")).to_have_count(2)
                    shot(watch, 5, "projector", whole=True)
            # Sjøslag marks the ring around each sunk ship.
            assert eva.locator("#bs-enemy-grid .sea-cell.is-miss.is-dimmed").count() > 1

            # ------------------------------------------------ 6. the end
            expect(eva.locator("#bs-end")).to_be_visible()
            expect(eva.locator("#bs-end-title")).to_have_text("You won!")
            expect(eva.locator("#bs-enemy-grid .sea-cell.is-sunk")).to_have_count(20)
            eva.locator("#bs-end").scroll_into_view_if_needed()
            shot(eva, 6, "won")
            shot(eva, 6, "won-whole", whole=True)
            expect(watch.locator("#bs-watch-status")).to_contain_text("Eva won")
            shot(watch, 6, "projector-over", whole=True)
            scores = laptop.new_page()
            scores.goto(f"{server.base}/battleship/scores")
            expect(scores.locator(".bs-scores-table")).to_contain_text("Eva")
            shot(scores, 6, "scores", whole=True)
            ranked = json.loads(urllib.request.urlopen(f"{server.base}/api/battleship/scores").read())["scores"]
            assert [(r["name"], r["wins"]) for r in ranked][:1] == [("Eva", 1)]

            # ------------------------------------------------ 7. rematch
            eva.locator("#bs-rematch").tap()
            expect(eva).not_to_have_url(re.compile(rf"/b/{gid}$"))
            expect(eva).to_have_url(re.compile(r"/b/[^/]+$"))
            new_gid = eva.url.rsplit("/", 1)[1]
            expect(eva.locator("#bs-status")).to_have_text("Place your fleet")
            assert truth(new_gid)["first"] == "B" and truth(new_gid)["players"]["A"]["name"] == "Eva"
            shot(eva, 7, "rematch")
        finally:
            browser.close()
    assert not errors, errors


@pytest.mark.browser
def test_pass_and_play_hides_each_sea_behind_a_privacy_screen(playwright_api: Any, server: Server) -> None:  # noqa: F811
    """One phone, two players: between turns the page shows only "Hand the phone to …"."""
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(
                viewport=PHONE,
                locale="en-GB",
                extra_http_headers={"Accept-Language": "en"},
                is_mobile=True,
                has_touch=True,
                color_scheme="dark",
            )
            ctx.set_default_timeout(WAIT)
            page = ctx.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{server.base}/battleship")
            page.locator("label.bs-option", has_text="Sjøslag").tap()
            page.locator("label.bs-option", has_text="Pass and play").tap()
            page.locator("#bs-name").fill("Eva")
            page.locator("#bs-opponent-name").fill("Bo")
            page.locator("label.bs-pill", has_text="I do").tap()
            page.locator("#bs-start").tap()
            gate = page.locator("#bs-gate")
            expect(gate).to_be_visible()
            expect(page.locator("#bs-gate-title")).to_have_text("Hand the phone to Eva")
            expect(page.locator("#bs-board-area")).to_be_hidden()
            page.locator("#bs-gate-go").tap()
            for player, next_player in (("Eva", "Bo"), ("Bo", "Eva")):
                expect(page.locator("#bs-matchup")).to_contain_text("Eva")
                page.get_by_role("button", name="Random").tap()
                expect(page.locator("#bs-ready")).to_have_attribute("aria-disabled", "false")
                page.locator("#bs-ready").tap()
                page.locator("#bs-handover").tap()
                expect(page.locator("#bs-gate-title")).to_have_text(f"Hand the phone to {next_player}")
                expect(page.locator("#bs-board-area")).to_be_hidden()
                if player == "Eva":
                    page.screenshot(path=str(ARTIFACTS / "08-pass-and-play-gate.png"), timeout=60_000)
                page.locator("#bs-gate-go").tap()
            expect(page.locator("#bs-status")).to_have_text("Your turn: tap the enemy sea")
            expect(page.locator("#bs-enemy-title")).to_have_text("Sea of Bo")
            page.locator("#bs-enemy-grid .sea-cell[data-square=E5]").tap()
            expect(page.locator("#bs-enemy-grid .sea-cell[data-square=E5]")).to_have_class(
                re.compile(r"\bis-(miss|hit|sunk)\b")
            )
            page.screenshot(path=str(ARTIFACTS / "08-pass-and-play-shot.png"), timeout=60_000)
        finally:
            browser.close()
    assert not errors, errors
