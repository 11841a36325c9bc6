"""An offline defender still answers the bomber at once, from the phone's own sea.

Team B's phone (390×844) mid-round, four of A's bombers at its base, goes offline
(`context.set_offline`). The defender announces each bomber and the page answers at once, marked
"from this phone, not yet sent", with no tick beside "offline" anywhere:
  1. a typed water square: WATER;
  2. a bomber picked by its chip (the phone cannot see its target, so it asks for the square),
     a ship square: FIGHT; "Bomber won" queues the throws with a provisional HIT?;
  3. a typed square no bomber aims at: WATER from the phone, which the server will refuse;
  4. a bomber picked by its chip whose pilot names water while its order names a ship square;
  5. the square of step 2 again: ALREADY HIT? (unsure: step 2's hit is not sent yet).
Back online every queued entry lands once, in order; the server's answers replace the phone's
(the card says where the server refused or disagreed: steps 3 and 4, whose FIGHT then follows),
and the referee's dashboard shows the bombings. In English and Czech; screenshots in
test-artifacts/screenshots/game-night/offline-defender-<lang>-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..live_server import ROOT, Server, post_json
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "game-night"
PHONE = {"width": 390, "height": 844}
REFEREE_SCREEN = {"width": 1366, "height": 768}
TEAMS = [
    {"name": "Eagles", "players": ["Ann", "Ada", "Abe", "Avi", "Amy"]},
    {"name": "Sharks", "players": ["Bob", "Bea", "Ben", "Bo"]},
]
# Words the catalogues already translate (the page's own new words are checked by attribute).
WORDS = {
    "en": {"water": "WATER", "fight": "FIGHT", "already": "ALREADY HIT", "hit": "HIT", "upper": "upper"},
    "cs": {"water": "VODA", "fight": "BOJ", "already": "UŽ ZASAŽENO", "hit": "ZÁSAH", "upper": "horní"},
}

# Every visible ✓ on the page: in a pseudo-element's content or in an element's own text.
TICKS = """() => {
  const out = [];
  for (const n of document.querySelectorAll('body *')) {
    if (!n.getClientRects().length || getComputedStyle(n).visibility === 'hidden') continue;
    for (const p of ['::before', '::after', '::marker']) {
      if ((getComputedStyle(n, p).content || '').includes('✓')) out.push(`${n.id || n.className || n.tagName}${p}`);
    }
    for (const c of n.childNodes) if (c.nodeType === 3 && c.textContent.includes('✓')) out.push(n.id || n.tagName);
  }
  return out;
}"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_an_offline_defender_answers_from_the_phone_and_the_server_settles_it(
    playwright_api: Any,  # noqa: F811
    server: Server,
    lang: str,
) -> None:
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    words = WORDS[lang]
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []

    def shot(page: Any, name: str) -> None:
        page.screenshot(path=str(SHOTS / f"offline-defender-{lang}-{name}.png"))

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            referee_ctx = browser.new_context(viewport=REFEREE_SCREEN, extra_http_headers={"Accept-Language": lang})
            referee_ctx.set_default_timeout(WAIT)
            referee = referee_ctx.new_page()
            referee.on("pageerror", lambda exc: errors.append(str(exc)))
            referee.goto(server.link)

            def post(path: str, body: dict[str, Any]) -> Any:
                return post_json(referee_ctx, server.base + path, body)

            def get(path: str) -> Any:
                answer = referee_ctx.request.get(server.base + path)
                assert answer.status == 200, (path, answer.status)
                return answer.json()

            made = post("/api/games", {"teams": TEAMS, "round_seconds": 600})
            gid = made["game"]

            def act(action: dict[str, Any]) -> None:
                post(f"/api/games/{gid}/actions", {"action": action})

            fleets = {}
            for team in "AB":
                fleets[team] = post(f"/api/games/{gid}/sea/random", {"team": team})["ships"]
                act({"type": "lock_sea", "team": team, "ships": fleets[team]})
            ship_squares = {sq for ship in fleets["B"] for sq in ship["squares"]}
            s1, s2 = fleets["B"][0]["squares"][0], fleets["B"][1]["squares"][0]
            water = [f"{c}{r}" for r in range(1, 7) for c in "ABCDEF" if f"{c}{r}" not in ship_squares]
            w, x = water[0], water[1]
            act({"type": "start_game"})
            act({"type": "set_defender", "team": "A", "pilot": "Amy"})
            act({"type": "set_defender", "team": "B", "pilot": "Bo"})
            targets = {"Ann": ("upper", s1), "Ada": ("upper", s2), "Abe": ("middle", w), "Avi": ("lower", s1)}
            for pilot, (corridor, target) in targets.items():
                legal = get(f"/api/games/{gid}/view")["legal"]
                ships = next(a["options"]["ships"] for a in legal if a["type"] == "add_order" and a["team"] == "A")
                ship = next(s["ship"] for s in ships if s["bomber"] > 0)
                act(
                    {
                        "type": "add_order",
                        "team": "A",
                        "pilot": pilot,
                        "kind": "bomber",
                        "ship": ship,
                        "corridor": corridor,
                        "target": target,
                    }
                )
            act({"type": "start_round"})

            phone_ctx = browser.new_context(
                viewport=PHONE,
                is_mobile=True,
                has_touch=True,
                locale=lang,
                extra_http_headers={"Accept-Language": lang},
            )
            phone_ctx.set_default_timeout(WAIT)
            phone = phone_ctx.new_page()
            phone.on("pageerror", lambda exc: errors.append(str(exc)))
            phone.goto(made["links"]["join"]["B"])
            badge = phone.locator("#conn-badge")
            expect(badge).to_have_attribute("data-state", "synced")
            chips = phone.locator("#bomber-chips button")
            expect(chips).to_have_count(4)
            waiting = phone.evaluate("() => window.teamPage.view.bombers_at_base")
            by_pilot = {b["pilot"]: b for b in waiting}
            # Each chip: the plane's label and its corridor, no numbering of look-alikes.
            for b in waiting:
                chip = phone.locator(f"[data-key=bomber-{b['order']}]")
                expect(chip).to_contain_text(b["label"])
                expect(chip).not_to_contain_text(f"{b['label']} · 1")
            expect(phone.locator(f"[data-key=bomber-{by_pilot['Ann']['order']}]")).to_contain_text(
                f"{by_pilot['Ann']['label']} · {words['upper']}"
            )

            verdict = phone.locator("#verdict")
            mark = phone.locator("#verdict-mark")
            square = phone.locator("#bomb-square")
            check = phone.locator("#announce-form button[type=submit]")
            ok_next = phone.locator("#bombing-dismiss")

            def queued() -> int:
                return int(phone.evaluate("() => window.teamPage.conn.queued"))

            def no_tick_beside_offline() -> None:
                expect(badge).to_have_attribute("data-state", "offline")
                assert phone.evaluate(TICKS) == [], "a tick shows while the phone is offline"
                assert phone.locator("#result").get_attribute("data-kind") != "ok"

            def announced() -> list[dict[str, Any]]:
                events = get(f"/api/games/{gid}/events?since=0")["events"]
                return [e for e in events if e["kind"] in ("announce_bombing", "report_bombing")]

            phone_ctx.set_offline(True)
            expect(badge).to_have_attribute("data-state", "offline")

            # 1. A typed water square: WATER at once, from this phone.
            square.fill(w.lower())
            check.tap()
            expect(verdict).to_have_attribute("data-kind", "water")
            expect(verdict).to_have_attribute("data-local", "true")
            expect(verdict).to_have_text(words["water"])
            expect(mark).to_be_visible()
            assert queued() == 1
            no_tick_beside_offline()
            shot(phone, "1-water")
            ok_next.tap()

            # 2. A chip: the phone asks for the square the bomber names; a ship square is a FIGHT.
            phone.locator(f"[data-key=bomber-{by_pilot['Ann']['order']}]").tap()
            assert queued() == 2
            expect(verdict).to_be_hidden()
            if lang == "en":
                expect(phone.locator("#result")).to_contain_text("Offline")
            expect(phone.locator("#bombing-later")).to_be_visible()
            square.fill(s1)
            check.tap()
            expect(verdict).to_have_attribute("data-kind", "fight")
            expect(verdict).to_have_attribute("data-local", "true")
            expect(verdict).to_have_text(words["fight"])
            expect(phone.locator("#bombing-text")).to_contain_text(s1)
            phone.locator("[data-throw=bomber]").tap()
            # The throws are queued; the result is provisional, never certain.
            expect(verdict).to_have_attribute("data-kind", "hit")
            expect(verdict).to_have_attribute("data-local", "true")
            expect(verdict).to_have_text(f"{words['hit']}?")
            assert queued() == 3
            no_tick_beside_offline()
            shot(phone, "2-fight-provisional")
            ok_next.tap()

            # 3. A typed square that no bomber aims at: the phone says water, the server will refuse.
            square.fill(x)
            check.tap()
            expect(verdict).to_have_attribute("data-kind", "water")
            ok_next.tap()

            # 4. Ada's pilot names water, while her order names a ship square.
            phone.locator(f"[data-key=bomber-{by_pilot['Ada']['order']}]").tap()
            square.fill(w)
            check.tap()
            expect(verdict).to_have_attribute("data-kind", "water")
            expect(verdict).to_have_attribute("data-local", "true")
            ok_next.tap()

            # 5. The square of step 2 again: already hit, unless step 2's hit does not hold.
            square.fill(s1)
            check.tap()
            expect(verdict).to_have_attribute("data-kind", "already_hit")
            expect(verdict).to_have_attribute("data-local", "true")
            expect(verdict).to_have_text(f"{words['already']}?")
            expect(phone.locator("#bombing-queue-list li")).to_have_count(4)
            assert queued() == 6
            no_tick_beside_offline()
            shot(phone, "3-already-hit")
            assert announced() == [], "nothing reached the server while offline"

            # Back online: the entries land in order, and the server's answers replace the phone's.
            phone_ctx.set_offline(False)
            phone.wait_for_function("() => window.teamPage.conn.queued === 0")
            expect(badge).to_have_attribute("data-state", "synced")
            notices = phone.locator("#notice-list li")
            expect(notices).to_have_count(2)
            expect(notices.nth(0)).to_contain_text(x)
            expect(notices.nth(1)).to_contain_text(s2)
            expect(notices.nth(1)).to_contain_text(w)
            # Ada's bombing is the server's FIGHT now, not the phone's WATER: its throws follow.
            expect(verdict).to_have_attribute("data-kind", "fight")
            expect(verdict).not_to_have_attribute("data-local", "true")
            expect(mark).to_be_hidden()
            expect(phone.locator("#bombing-queue")).to_be_hidden()
            expect(phone.locator("#bombing-text")).to_contain_text(s2)
            shot(phone, "4-back-online")
            phone.locator("[data-throw=ship]").tap()
            phone.locator("[data-throw=leave]").tap()
            expect(verdict).to_have_attribute("data-kind", "left")
            expect(verdict).not_to_have_attribute("data-local", "true")

            entries = announced()
            kinds = [(e["kind"], e["data"].get("target") or e["data"].get("order")) for e in entries]
            assert kinds == [
                ("announce_bombing", w),
                ("announce_bombing", by_pilot["Ann"]["order"]),
                ("report_bombing", by_pilot["Ann"]["order"]),
                ("announce_bombing", by_pilot["Ada"]["order"]),
                ("announce_bombing", s1),
                ("report_bombing", by_pilot["Ada"]["order"]),
            ], kinds
            notes = [n for row in get(f"/api/games/{gid}/view")["log"] for n in row.get("notes", [])]
            answers = {n["order"]: n["answer"] for n in notes if n.get("type") == "bombing"}
            assert answers == {
                by_pilot["Abe"]["order"]: "water",
                by_pilot["Ann"]["order"]: "fight",
                by_pilot["Ada"]["order"]: "fight",
                by_pilot["Avi"]["order"]: "already_hit",
            }, answers
            results = {n["order"]: n["result"] for n in notes if n.get("type") == "bombing_result"}
            assert results == {by_pilot["Ann"]["order"]: "hit", by_pilot["Ada"]["order"]: "left"}, results

            # The referee's dashboard shows the bombings.
            referee.goto(f"{server.base}/g/{gid}/referee")
            log = referee.locator("#log")
            for word in (words["water"], words["fight"], words["already"]):
                expect(log).to_contain_text(word)
            expect(log).to_contain_text(s1)
            shot(referee, "5-referee")
        finally:
            browser.close()
    assert not errors, errors


# ------------------------------------------------------------------ the phone's own answer (Node)

NODE_CHECKS = r"""
import assert from 'node:assert/strict';
const T = await import(process.argv[1] + '/airraid/team/helpers.js');
const sea = { hits: ['B2'], ships: [
  { id: 'S1', squares: ['B2', 'C2'], sunk: false },
  { id: 'S2', squares: ['E5', 'E6', 'E7'], sunk: false },
  { id: 'S3', squares: ['A7', 'B7'], sunk: true },
] };
// as moves.py _announce_bombing: water, already hit (the square, or a sunk ship), fight
assert.deepEqual(T.localAnswer(sea, 'D4'), { answer: 'water', ship: null, unsure: false });
assert.deepEqual(T.localAnswer(sea, 'B2'), { answer: 'already_hit', ship: 'S1', unsure: false });
assert.deepEqual(T.localAnswer(sea, 'A7'), { answer: 'already_hit', ship: 'S3', unsure: false });
assert.deepEqual(T.localAnswer(sea, 'C2'), { answer: 'fight', ship: 'S1', unsure: false });
assert.deepEqual(T.localAnswer({}, 'C2'), { answer: 'water', ship: null, unsure: false });
// a fight on the same square, not sent yet: its provisional hit makes it already hit, unsure
assert.deepEqual(T.localAnswer(sea, 'E5', [{ square: 'E5', answer: 'fight', result: 'hit' }]), { answer: 'already_hit', ship: 'S2', unsure: true });
assert.deepEqual(T.localAnswer(sea, 'E5', [{ square: 'E5', answer: 'fight', result: null }]), { answer: 'fight', ship: 'S2', unsure: true });
assert.deepEqual(T.localAnswer(sea, 'E5', [{ square: 'E6', answer: 'fight', result: 'hit' }, { square: 'E5', answer: 'water' }]), { answer: 'fight', ship: 'S2', unsure: false });
// as corridors.py judge_bombing
assert.equal(T.fightResult(T.bombingStep(['bomber'])), 'hit');
assert.equal(T.fightResult(T.bombingStep(['ship', 'leave'])), 'left');
assert.equal(T.fightResult(T.bombingStep(['ship', 'continue', 'bomber'])), 'hit');
assert.equal(T.fightResult(T.bombingStep(['ship', 'continue', 'ship'])), 'shot_down');
// a hit sinks the ship when every other square of it is hit, sent or not
assert.equal(T.wouldSink(sea, 'C2'), true);
assert.equal(T.wouldSink(sea, 'E5'), false);
assert.equal(T.wouldSink(sea, 'E5', ['E6', 'E7']), true);
assert.equal(T.wouldSink(sea, 'D4'), false);
console.log('local answers ok');
"""  # noqa: E501 - JavaScript for node, one assertion a line


def test_the_phones_own_answer_is_the_rules_answer() -> None:
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js not installed: the phone's own answers are not checked")
    result = subprocess.run(
        [node, "--input-type=module", "-e", NODE_CHECKS, (ROOT / "static" / "js").as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "local answers ok" in result.stdout
