"""A short pass-and-play Vestorsjø game on a tablet (1024×768) and on a phone (390×844).

The real `referee serve` runs as a subprocess; Debian's Chromium plays both sides on one device.
The game is made with Zealand's frigate and corvette within Scania's range (the create_game
`start` override), so a shot is possible in the first turn. Every tap goes through the page:

 1. the new-game page; the game (pass and play, the server's dice) starts;
 2. tap a corvette: its moves light up; tap one: it moves; Undo puts it back; move it again;
 3. tap the destroyer: its targets are ringed with their hit chance; tap the frigate, Fire;
 4. the roll is in the log (who at whom, range, pips, server), the action pips count down;
 5. End turn: Zealand to move, the tablet is handed over;
 6. Surrender (confirmed): the outcome;
 7. the projector (tablet size only) shows the board, the counters and the log.

Screenshots go to test-artifacts/screenshots/vestorsjo/<device>-NN-name.png.
Skipped, with the reason, without /usr/bin/chromium or Playwright (REFEREE_REQUIRE_BROWSER=1: fail).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, PHONE, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "vestorsjo"
TABLET = {"width": 1024, "height": 768}
NEAR = {"zealand.frigate-1": "L21", "zealand.corvette-1": "K21"}


@pytest.mark.browser
@pytest.mark.parametrize("device", ["tablet", "phone"])
def test_a_short_pass_and_play_game(playwright_api: Any, server: Server, device: str) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    for old in SHOTS.glob(f"{device}-*.png"):
        old.unlink()
    errors: list[str] = []
    phone = device == "phone"

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(
                viewport=PHONE if phone else TABLET,
                locale="en-GB",
                extra_http_headers={"Accept-Language": "en"},
                **({"is_mobile": True, "has_touch": True, "device_scale_factor": 2} if phone else {}),
            )
            ctx.set_default_timeout(WAIT)
            page = ctx.new_page()
            page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
            page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)

            def tap(selector: str) -> None:
                target = page.locator(selector).first
                if phone:
                    target.tap()
                else:
                    target.click()

            def shot(number: int, name: str, whole: bool = False) -> None:
                if phone:
                    assert page.evaluate(
                        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
                    ), f"{name}: sideways scroll"
                page.screenshot(path=str(SHOTS / f"{device}-{number:02d}-{name}.png"), full_page=whole, timeout=60_000)

            def truth(gid: str) -> dict[str, Any]:
                response = page.request.get(f"{server.base}/api/games/{gid}/view")
                assert response.ok, response.text()
                return response.json()  # type: ignore[no-any-return]

            def place(gid: str, piece: str) -> str:
                return str(next(q["place"] for q in truth(gid)["pieces"] if q["id"] == piece))

            # ------------------------------------------------ 1. a new game
            page.goto(server.base + "/")
            tap("a[href='/vestorsjo']")
            expect(page).to_have_url(re.compile(r"/vestorsjo$"))
            page.locator("label.vs-option", has_text="Pass and play").click()
            shot(1, "new-game", whole=True)
            made = page.request.post(
                f"{server.base}/api/vestorsjo/games",
                data=json.dumps({"opponent": "hotseat", "dice": "server", "start": NEAR}),
                headers={"Content-Type": "application/json"},
            )
            assert made.status == 201, made.text()
            gid = made.json()["game"]
            page.goto(f"{server.base}/v/{gid}")
            expect(page.locator("#conn-badge")).to_have_attribute("data-state", "synced")
            expect(page.locator("#vs-turn-text")).to_have_text("Scania to move")
            expect(page.locator("#vs-round")).to_have_text("Round 1")
            expect(page.locator("#vs-acts .vs-act:not(.is-used)")).to_have_count(4)
            expect(page.locator(".vs-piece")).to_have_count(18)
            shot(2, "start")

            # ------------------------------------------------ 2. move, undo, move again
            start = place(gid, "scania.corvette-1")
            tap('[data-piece="scania.corvette-1"]')
            expect(page.locator('[data-piece="scania.corvette-1"]')).to_have_class(re.compile(r"\bis-selected\b"))
            expect(page.locator("#vs-moves .vs-move").first).to_be_visible()
            shot(3, "moves")
            tap('#vs-moves [data-to="O19"]')
            expect(page.locator("#result")).to_contain_text("moved to O19")
            expect(page.locator("#vs-acts .vs-act.is-used")).to_have_count(1)  # one of four used
            assert place(gid, "scania.corvette-1") == "O19"
            expect(page.locator("#vs-undo")).to_be_visible()
            tap("#vs-undo")
            expect(page.locator("#result")).to_contain_text("Undone")
            expect(page.locator("#vs-undo")).to_be_hidden()
            assert place(gid, "scania.corvette-1") == start
            # Still selected after the undo: its moves are lit again.
            tap('#vs-moves [data-to="O19"]')
            expect(page.locator("#result")).to_contain_text("moved to O19")

            # ------------------------------------------------ 3. aim and fire
            tap('[data-piece="scania.destroyer"]')
            expect(page.locator('[data-piece="zealand.frigate-1"]')).to_have_class(re.compile(r"\bis-target\b"))
            expect(page.locator('#vs-tags [data-tag="chance-zealand.frigate-1"]')).to_have_text(re.compile(r"\d+\s?%"))
            shot(4, "targets")
            tap('[data-piece="zealand.frigate-1"]')
            expect(page.locator("#vs-aim")).to_be_visible()
            expect(page.locator("#vs-aim-text")).to_contain_text("Scania destroyer fires at Zealand frigate 1")
            expect(page.locator("#vs-strike")).to_have_text(re.compile(r"Fire \(\d+\s?%\)"))
            shot(5, "aim")
            tap("#vs-strike")

            # ------------------------------------------------ 4. the roll in the log
            roll = page.locator("#vs-log .vs-roll").first
            expect(roll).to_contain_text("Scania destroyer fired at Zealand frigate 1")
            expect(roll).to_contain_text(re.compile(r"4 hexes · die [1-6] \(server\)"))
            expect(page.locator("#result")).to_contain_text("fired at Zealand frigate 1")
            expect(page.locator("#vs-acts .vs-act.is-used")).to_have_count(2)
            expect(page.locator("#vs-undo")).to_be_hidden()  # no undo past a roll
            # The table the roll was read from, its row (the range) and its cell (the pips) marked.
            rolled = truth(gid)["rolls"][-1]
            page.locator(".vs-tables-card > summary").click()
            shot_row = page.locator('#vs-tables table[data-table="gunnery"] tr.is-shot')
            expect(shot_row.locator("th")).to_have_attribute("aria-label", "4 hexes")
            cell = shot_row.locator("td.is-rolled")
            expect(cell).to_have_count(1)
            view_rows = truth(gid)["ruleset"]["gunnery"]["destroyer"][rolled["damage"]]
            rolled_row = view_rows[rolled["distance"] - 1].split()
            faces = rolled_row[rolled["pips"] - 1]
            expect(cell).to_have_text("–" if faces == "-" else faces)
            assert page.evaluate(
                "() => { const c = document.querySelector('.vs-tables-card');"
                " return c.scrollWidth <= c.clientWidth + 1; }"
            ), "the tables run out of their card"
            page.screenshot(path=str(SHOTS / f"{device}-06b-tables.png"), full_page=True, timeout=60_000)
            page.locator(".vs-tables-card > summary").click()
            if phone:  # the log is under the board: scroll down to it, and back
                page.locator("#vs-log").scroll_into_view_if_needed()
                shot(6, "roll-in-log")
                page.evaluate("window.scrollTo(0, 0)")
            else:
                shot(6, "roll-in-log")

            # ------------------------------------------------ 5. end the turn: Zealand's
            tap("#vs-end-turn")
            expect(page.locator("#vs-turn-text")).to_have_text("Zealand to move")
            expect(page.locator("#result")).to_contain_text("hand the tablet over")
            expect(page.locator("#vs-acts .vs-act:not(.is-used)")).to_have_count(4)
            expect(page.locator("#vs-info .vs-chip").first).to_be_attached()
            # What Scania did, for Zealand to see: on the board and in words.
            expect(page.locator("#vs-trail .vs-trail.is-last.is-move")).to_have_count(1)
            expect(page.locator("#vs-trail .vs-trail.is-last.is-shot")).to_have_count(1)
            drags = page.locator("#vs-drags")
            expect(drags.locator(".vs-drag-title")).to_have_text("■ Scania's last drag")
            expect(drags.locator("li").first).to_have_text(f"Scania corvette 1: {start} → O19")
            expect(drags.locator("li").nth(1)).to_contain_text("Scania destroyer fired at Zealand frigate 1 · 4 hexes")
            shot(7, "zealand-turn")

            # ------------------------------------------------ 6. surrender
            page.locator("#vs-surrender").scroll_into_view_if_needed()
            tap("#vs-surrender")
            expect(page.locator("#vs-surrender-text")).to_have_text("Surrender? Zealand loses the game.")
            shot(8, "surrender-confirm")
            tap("#vs-surrender-yes")
            expect(page.locator("#vs-end")).to_be_visible()
            expect(page.locator("#vs-end-title")).to_have_text("Scania wins!")
            expect(page.locator("#vs-end-detail")).to_contain_text("surrendered")
            page.evaluate("window.scrollTo(0, 0)")
            shot(9, "outcome")
            assert truth(gid)["outcome"]["winner"] == "scania"

            # ------------------------------------------------ 7. the projector
            if not phone:
                page.set_viewport_size({"width": 1280, "height": 800})
                page.goto(f"{server.base}/v/{gid}/watch")
                expect(page.locator("#vs-log .vs-roll")).to_have_count(1)
                expect(page.locator("#vs-turn-text")).to_have_text("Scania wins!")
                shot(10, "projector")
        finally:
            browser.close()
    assert not errors, errors
