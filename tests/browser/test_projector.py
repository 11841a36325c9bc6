"""The projector at 5 m: big seas, and a "Latest" list that never shows half a line.

A ten-a-side game (10×10 seas) with every plane in the air, dogfights reported and bombers
answered by the referee, watched on a 1366×768 projector in English and Czech (Czech lines are
longer and wrap). Screenshots: test-artifacts/screenshots/game-night/projector-*.png.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "game-night"
PROJECTOR = {"width": 1366, "height": 768}
A = ["Ann", "Ada", "Abe", "Amy", "Al", "Ari", "Ava", "Axel", "Alma", "Arne"]
B = ["Bob", "Bea", "Ben", "Bo", "Bill", "Bert", "Bree", "Boris", "Bella", "Brit"]
CORRIDORS = ["upper", "middle", "lower"]
# Hands that decide a dogfight at the first throw whoever the two planes are.
HANDS = [["rock", "scissors"], ["paper", "rock"], ["scissors", "paper"]]
LINES_INSIDE_CARD = """() => {
  const card = document.querySelector('.watch-events');
  const inner = card.getBoundingClientRect().bottom - parseFloat(getComputedStyle(card).paddingBottom);
  const rows = [...document.querySelectorAll('#w-log > li')];
  return {rows: rows.length, cut: rows.filter((r) => r.getBoundingClientRect().bottom > inner + 0.5).length};
}"""
SQUARE = "() => document.querySelector('#w-sea-A .sea-cell').getBoundingClientRect().width"
ROW_LABEL_FITS = """() => [...document.querySelectorAll('#w-sea-A .sea-label')]
  .every((l) => l.scrollWidth <= l.clientWidth + 1 && l.getBoundingClientRect().height < 60)"""


def play_a_busy_round(ctx: Any, base: str) -> str:
    """Start a ten-a-side game and fly one round's dogfights and bombings as the referee."""

    def post(path: str, body: dict[str, Any], ok: bool = True) -> Any:
        answer = ctx.request.post(base + path, data=json.dumps(body), headers={"Content-Type": "application/json"})
        if ok:
            assert answer.status < 300, (path, answer.status, answer.text()[:300])
        return answer.json()

    made = post("/api/games", {"teams": [{"name": "Orli", "players": A}, {"name": "Sokoli", "players": B}]})
    gid = made["game"]

    def act(action: dict[str, Any], ok: bool = True) -> Any:
        return post(f"/api/games/{gid}/actions", {"action": action}, ok)

    ships = {}
    for team in "AB":
        ships[team] = post(f"/api/games/{gid}/sea/random", {"team": team})["ships"]
        act({"type": "lock_sea", "team": team, "ships": ships[team]})
    act({"type": "start_game"})
    act({"type": "set_defender", "team": "A", "pilot": "Arne"})
    act({"type": "set_defender", "team": "B", "pilot": "Brit"})
    for team, names in (("A", A), ("B", B)):
        enemy = ships["B" if team == "A" else "A"]
        for i, pilot in enumerate(names[:9]):
            order = {"type": "add_order", "team": team, "pilot": pilot, "ship": ships[team][i % 5]["id"]}
            order |= {"corridor": CORRIDORS[i // 3], "kind": "fighter" if i % 3 == 0 else "bomber"}
            if order["kind"] == "bomber":
                order["target"] = enemy[i % len(enemy)]["squares"][0] if i % 2 else "J10"
            act(order)
    act({"type": "start_round"})
    for step in range(60):
        view = ctx.request.get(f"{base}/api/games/{gid}/view").json()
        due = [a for a in view["legal"] if a["type"] in ("report_dogfight", "announce_bombing", "report_bombing")]
        if not due:
            break
        first = due[0]
        if first["type"] == "report_dogfight":
            act({**first, "throws": [{"hands": HANDS[step % len(HANDS)]}]})
        elif first["type"] == "announce_bombing":
            act(first)
        else:
            act({**first, "throws": [{"winner": "bomber"}]})
    else:
        pytest.fail("the round never settled")
    return gid


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_projector_seas_are_big_and_latest_shows_whole_lines(playwright_api: Any, server: Server, lang: str) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(viewport=PROJECTOR, extra_http_headers={"Accept-Language": lang})
            ctx.set_default_timeout(WAIT)
            page = ctx.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(server.link)
            gid = play_a_busy_round(ctx, server.base)
            page.goto(f"{server.base}/g/{gid}/watch")
            expect(page.locator("#w-log > li").first).to_be_visible()
            expect(page.locator("#w-sea-B .sea-cell.is-hit").first).to_be_visible()
            # 10×10 squares of 40 px or more: 20 px squares could not be read from the back of a room.
            assert page.evaluate(SQUARE) >= 38
            assert page.evaluate(ROW_LABEL_FITS), "a row label ('10') wraps or is cut"
            lines = page.evaluate(LINES_INSIDE_CARD)
            assert lines["rows"] >= 3 and lines["cut"] == 0, lines
            assert page.evaluate("() => document.documentElement.scrollHeight <= innerHeight + 1"), (
                "the projector scrolls"
            )
            page.screenshot(path=str(SHOTS / f"projector-{lang}.png"))

            # The end of the game: the winner takes the clock's place, the seas stay as big.
            page.wait_for_timeout(200)
            ctx.request.post(
                f"{server.base}/api/games/{gid}/actions",
                data=json.dumps({"action": {"type": "end_game"}}),
                headers={"Content-Type": "application/json"},
            )
            expect(page.locator("#winner")).to_be_visible()
            page.locator(".round-moment").click()
            lines = page.evaluate(LINES_INSIDE_CARD)
            assert lines["cut"] == 0, lines
            assert page.evaluate(SQUARE) >= 38
            page.screenshot(path=str(SHOTS / f"projector-over-{lang}.png"))
        finally:
            browser.close()
    assert not errors, errors
