"""Stepping back through the drags on a Vestorsjø board: a phone in Czech (390×844) and a tablet in English (1024×768).

Scania plays three drags against the computer (easy, the server's dice), each moving one
corvette. Then "Earlier drag" shows Scania's third drag and Zealand's second, one at a time,
on the board (a line per move) and in words under the round it was played in; "Later drag"
comes back to the latest, and the buttons stop at the ends. Screenshots:
test-artifacts/screenshots/vestorsjo/history-*.png.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, PHONE, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "vestorsjo"
CASES = {
    "phone-cs": (PHONE, "cs", "kolo {n}"),
    "tablet-en": ({"width": 1024, "height": 768}, "en", "in round {n}"),
}


@pytest.mark.browser
@pytest.mark.parametrize("case", sorted(CASES))
def test_players_step_back_through_the_drags(playwright_api: Any, server: Server, case: str) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    viewport, lang, in_round = CASES[case]
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            phone = case.startswith("phone")
            ctx = browser.new_context(
                viewport=viewport,
                locale=lang,
                extra_http_headers={"Accept-Language": lang},
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

            def act(action: dict[str, Any]) -> None:
                done = page.request.post(
                    f"{server.base}/api/games/{gid}/actions",
                    data=json.dumps({"action": action}),
                    headers={"Content-Type": "application/json"},
                )
                assert done.ok, done.text()

            for n in (1, 2, 3):
                view = page.request.get(f"{server.base}/api/games/{gid}/view").json()
                move = next(a for a in view["actions"] if a["type"] == "move" and "corvette" in a["piece"])
                act({"type": "move", "piece": move["piece"], "to": move["to"][0]})
                act({"type": "end_turn"})
                # The computer's drag follows; Scania is to move again in the next round.
                for _ in range(100):
                    view = page.request.get(f"{server.base}/api/games/{gid}/view").json()
                    if view["turn"] == "scania" and view["round"] == n + 1:
                        break
                    page.wait_for_timeout(100)
                assert view["turn"] == "scania" and view["round"] == n + 1, view["turn"]
            drags = view["drags"]
            assert [(d["side"], d["round"]) for d in drags] == [
                ("scania", 1),
                ("zealand", 1),
                ("scania", 2),
                ("zealand", 2),
                ("scania", 3),
                ("zealand", 3),
            ]
            box = page.locator("#vs-drags")
            earlier, later = page.locator("#vs-drag-earlier"), page.locator("#vs-drag-later")
            expect(box.locator(".vs-drag-title").last).not_to_contain_text(in_round.format(n=3))
            expect(later).to_be_disabled()
            for back, (side, n) in ((1, ("scania", 3)), (2, ("zealand", 2))):
                earlier.click()
                shown = drags[-1 - back]
                expect(box.locator(".vs-drag-title")).to_have_count(1)
                expect(box.locator(".vs-drag-title")).to_contain_text(in_round.format(n=n))
                expect(box.locator(".vs-drag li")).to_have_count(max(1, len(shown["acts"])))
                moves = [a for a in shown["acts"] if a["kind"] == "move"]
                expect(page.locator("#vs-trail .vs-trail.is-move")).to_have_count(len(moves))
                for a in moves:
                    expect(box).to_contain_text(f"{a['origin']} → {a['to']}")
                # The board pans to the drag stepped to: each of its moves is in the map's view.
                page.wait_for_timeout(200)
                outside = page.evaluate(
                    """() => {
                      const b = document.getElementById('vs-board').getBoundingClientRect();
                      return [...document.querySelectorAll('#vs-trail .vs-trail.is-move')].filter((g) => {
                        const r = g.getBoundingClientRect();
                        return r.left < b.left - 1 || r.right > b.right + 1
                          || r.top < b.top - 1 || r.bottom > b.bottom + 1;
                      }).map((g) => g.dataset.trail);
                    }"""
                )
                assert not outside, f"out of the map's view: {outside}"
                if side == "scania":
                    # The map with the card under it (a phone), as a player scrolls to see both.
                    page.evaluate(
                        "() => window.scrollTo(0, document.getElementById('vs-board').getBoundingClientRect().top"
                        " + window.scrollY - 110)"
                    )
                    page.screenshot(path=str(SHOTS / f"history-{case}.png"))
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= viewport["width"], f"the page is {width} px wide"
            later.click()
            later.click()
            expect(later).to_be_disabled()
            expect(box.locator(".vs-drag-title").last).not_to_contain_text(in_round.format(n=3))
            expect(page.locator("#vs-trail .vs-trail.is-last.is-move")).to_have_count(
                sum(1 for a in drags[-1]["acts"] if a["kind"] == "move")
            )
            # Back twice more to the first drag kept: "Earlier" stops there.
            for _ in range(len(drags) - 1):
                earlier.click()
            expect(earlier).to_be_disabled()
            expect(box.locator(".vs-drag-title")).to_contain_text(in_round.format(n=1))
            assert not errors, errors
        finally:
            browser.close()
