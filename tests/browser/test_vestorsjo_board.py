"""The Vestorsjø board as players read it: on a tablet (1024×768), a phone (390×844) and the projector (1366×768).

A game against the computer (easy, the server's dice): Scania moves a corvette and ends its drag,
the computer plays Zealand's. Then on each screen:

- no port name overprints another (their boxes are disjoint) nor runs off the board, at the
  page's own zoom and, on the phone, with the whole map in view;
- every port shows the letter of the largest ship it takes, and the six safe ports a ringed U,
  with both in the legend;
- the selected ship has its range rings, numbered 1 to its reach;
- the computer's drag is on the board (a line for each move) and in words beside it;
- on the projector every piece is at least 30 px across.

Screenshots: test-artifacts/screenshots/vestorsjo/board-*.png.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, PHONE, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "vestorsjo"
SCREENS = {"tablet": {"width": 1024, "height": 768}, "phone": PHONE, "projector": {"width": 1366, "height": 768}}

OVERPRINTS = """() => {
  const shown = [...document.querySelectorAll('#vs-labels text[data-port]')].filter((t) => {
    const s = getComputedStyle(t);
    return t.getAttribute('display') !== 'none' && s.display !== 'none' && s.visibility !== 'hidden';
  });
  const boxes = shown.map((t) => [t.dataset.port, t.getBoundingClientRect()]);
  const clashes = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, p] = boxes[i]; const [b, q] = boxes[j];
    const meet = p.left < q.right - 0.5 && q.left < p.right - 0.5 && p.top < q.bottom - 0.5 && q.top < p.bottom - 0.5;
    if (meet) clashes.push(a + ' / ' + b);
  }
  const board = document.getElementById('vs-board').getBoundingClientRect();
  // Cut by the edge of the board's view (a port out of view altogether is no cut name).
  const off = boxes.filter(([, b]) => b.bottom > board.top && b.top < board.bottom
    && ((b.left < board.left - 0.5 && b.right > board.left + 0.5)
      || (b.right > board.right + 0.5 && b.left < board.right - 0.5))).map(([n]) => n);
  return { shown: shown.map((t) => t.dataset.port), clashes, off };
}"""


@pytest.mark.browser
@pytest.mark.parametrize("screen", ["tablet", "phone", "projector"])
def test_the_board_reads_without_a_tap(playwright_api: Any, server: Server, screen: str) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    phone = screen == "phone"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(
                viewport=SCREENS[screen],
                locale="en-GB",
                extra_http_headers={"Accept-Language": "en"},
                **({"is_mobile": True, "has_touch": True, "device_scale_factor": 2} if phone else {}),
            )
            ctx.set_default_timeout(WAIT)
            page = ctx.new_page()
            page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
            page.goto(f"{server.base}/vestorsjo")
            made = page.request.post(
                f"{server.base}/api/vestorsjo/games",
                data=json.dumps({"opponent": "computer", "level": "easy", "dice": "server"}),
                headers={"Content-Type": "application/json"},
            )
            assert made.status == 201, made.text()
            gid = made.json()["game"]
            page.goto(f"{server.base}/v/{gid}")
            expect(page.locator("#conn-badge")).to_have_attribute("data-state", "synced")
            view = page.request.get(f"{server.base}/api/games/{gid}/view").json()
            corvette = next(a for a in view["actions"] if a["type"] == "move" and a["piece"] == "scania.corvette-1")
            moved = page.request.post(
                f"{server.base}/api/games/{gid}/actions",
                data=json.dumps({"action": {"type": "move", "piece": "scania.corvette-1", "to": corvette["to"][-1]}}),
                headers={"Content-Type": "application/json"},
            )
            assert moved.ok, moved.text()
            ended = page.request.post(
                f"{server.base}/api/games/{gid}/actions",
                data=json.dumps({"action": {"type": "end_turn"}}),
                headers={"Content-Type": "application/json"},
            )
            assert ended.ok, ended.text()
            if screen == "projector":
                page.goto(f"{server.base}/v/{gid}/watch")
            # The computer's drag: Scania to move again, Zealand's drag on the board and in words.
            expect(page.locator("#vs-turn-text")).to_contain_text("Scania", timeout=20_000)
            after = page.request.get(f"{server.base}/api/games/{gid}/view").json()
            zealand = after["last_turn"]
            assert zealand, "the computer did nothing"
            moves = [a for a in zealand if a["kind"] == "move"]
            expect(page.locator("#vs-trail .vs-trail.is-last.is-move")).to_have_count(len(moves))
            drags = page.locator("#vs-drags")
            expect(drags.locator(".vs-drag-title").last).to_have_text("● Zealand's last drag")
            expect(drags.locator(".vs-drag").last.locator("li")).to_have_count(len(zealand))
            for a in moves:
                expect(drags).to_contain_text(f"{a['origin']} → {a['to']}")
            # What each port takes, and where submarines are safe.
            ports = after["board"]["ports"]
            expect(page.locator("#vs-portmarks .vs-depth")).to_have_count(len(ports))
            expect(page.locator("#vs-portmarks .vs-safe")).to_have_count(sum(1 for q in ports if q["safe"]))
            assert sum(1 for q in ports if q["safe"]) == 6
            if screen != "phone":
                legend = page.locator(".vs-legend")
                expect(legend).to_contain_text("the largest ship it takes")
                expect(legend).to_contain_text("submarines are safe in this port")
            page.wait_for_timeout(300)  # the names are placed in the next frame
            found = page.evaluate(OVERPRINTS)
            assert not found["clashes"] and not found["off"], found
            if screen != "projector":  # the projector follows the pieces: the north may be out of view
                assert {"Helsingør", "Hælsengbór", "Lanskròna", "København Nord"} <= set(found["shown"]), found
            page.screenshot(path=str(SHOTS / f"board-{screen}-1.png"))
            if screen == "projector":
                sizes = page.evaluate(
                    "() => [...document.querySelectorAll('#vs-pieces .vs-piece:not(.is-sub) .vs-body')]"
                    ".map((b) => b.getBoundingClientRect().width)"
                )
                assert sizes and min(sizes) >= 30, f"pieces of {min(sizes):.1f} px on the projector"
                return
            # The selected ship's range rings, 1 to its reach (the destroyer: 6).
            page.locator('#vs-info [data-select="scania.destroyer"]').click()
            expect(page.locator("#vs-range .vs-range")).to_have_count(6)
            expect(page.locator("#vs-range .vs-range-n")).to_have_text([str(n) for n in range(1, 7)])
            page.screenshot(path=str(SHOTS / f"board-{screen}-2-range.png"))
            if phone:
                page.locator("#vs-zoom-all").click()
                page.wait_for_timeout(300)
                found = page.evaluate(OVERPRINTS)
                assert not found["clashes"] and not found["off"], found
                strategic = {"Helsingør", "Hælsengbór", "København Nord", "Malme Nor", "Dragør"}
                assert strategic <= set(found["shown"]), found
                page.screenshot(path=str(SHOTS / "board-phone-3-whole.png"))
            assert not re.search(r"Traceback", page.content())
        finally:
            browser.close()
    assert not errors, errors
