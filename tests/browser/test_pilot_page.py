"""The pilot's page (/s/<slip>) and the scan page (/scan).

- test client: a slip opens its order; a tampered slip, a slip of an unknown game and a
  removed order are refused with a clear page; a used slip (a past round's) says so;
- Node: the page script's pure parts (the dogfight taps → throws, reports in words,
  the timer's seconds → ms, scanned text → slip path);
- browser (Playwright + Debian's Chromium): on a live server, two pilots' phones report
  and confirm a dogfight in at most three taps, and the referee's view holds the result.
  Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, render_template
from flask.testing import FlaskClient

from referee.web.access import issue_server_referee_token, make_slip
from referee.web.extensions import engine_of

from ..airraid_helpers import PLAYERS, SEA_7, ships_json
from ..web.test_static import scan_template

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# --------------------------------------------------------------------- a game


def english(app: Flask) -> FlaskClient:
    """A phone that reads English (the home language, Czech, is the default)."""
    client = app.test_client()
    client.set_cookie("lang", "en")
    return client


def referee_client(app: Flask) -> FlaskClient:
    client = english(app)
    with app.app_context():
        token = issue_server_referee_token(engine_of(app))
    assert client.get(f"/?token={token}").status_code == 303
    return client


class Api:
    """A referee driving a game through the JSON API (the referee may act for both teams)."""

    def __init__(self, post: Any, get: Any) -> None:
        self._post = post
        self._get = get
        self.game = ""

    def act(self, **action: Any) -> dict[str, Any]:
        status, body = self._post(f"/api/games/{self.game}/actions", {"action": action})
        assert status == 200, (action, status, body)
        return body  # type: ignore[no-any-return]

    def view(self) -> dict[str, Any]:
        return self._get(f"/api/games/{self.game}/view")  # type: ignore[no-any-return]

    def setup(self, orders: list[dict[str, Any]], *, start: bool = True) -> dict[str, dict[str, Any]]:
        """Create a game, lock both seas, plan the orders, start the round; return the slips by label."""
        status, created = self._post(
            "/api/games",
            {"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]},
        )
        assert status == 201, created
        self.game = created["game"]
        for team in "AB":
            self.act(type="lock_sea", team=team, ships=ships_json(SEA_7))
        self.act(type="start_game")
        self.act(type="set_defender", team="A", pilot="Amy")
        self.act(type="set_defender", team="B", pilot="Bo")
        for order in orders:
            self.act(type="add_order", **order)
        if start:
            self.act(type="start_round")
        return self.slips()

    def slips(self, rnd: int = 1) -> dict[str, dict[str, Any]]:
        slips = self._get(f"/api/games/{self.game}/slips?round={rnd}")["slips"]
        return {s["label"]: s for s in slips}


FIGHTER_A = {"team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper", "position": 1}
BOMBER_B = {
    "team": "B",
    "pilot": "Bob",
    "kind": "bomber",
    "ship": "A",
    "corridor": "upper",
    "position": 1,
    "target": "C4",
}


def client_api(app: Flask) -> Api:
    referee = referee_client(app)

    def post(path: str, body: dict[str, Any]) -> tuple[int, Any]:
        r = referee.post(path, json=body)
        return r.status_code, r.get_json()

    def get(path: str) -> Any:
        r = referee.get(path)
        assert r.status_code == 200, (path, r.status_code, r.get_data(as_text=True)[:300])
        return r.get_json()

    return Api(post, get)


def slip_path(url: str) -> str:
    return "/s/" + url.rsplit("/s/", 1)[1]


def text_of(html: str, element_id: str) -> str:
    """The text inside the element with this id (tags stripped, spaces squeezed)."""
    match = re.search(r'<(\w+)[^>]*\bid="' + re.escape(element_id) + r'"[^>]*>(.*?)</\1>', html, re.S)
    assert match, f"no #{element_id}"
    return " ".join(re.sub(r"<[^>]+>", " ", match.group(2)).split())


def page_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.S)
    assert match, "no page-data block"
    return json.loads(match.group(1))  # type: ignore[no-any-return]


# ------------------------------------------------------------ test client


def test_a_slip_opens_its_order_with_the_next_dogfight(app: Flask) -> None:
    api = client_api(app)
    slips = api.setup([FIGHTER_A, BOMBER_B])
    phone = english(app)  # any phone, no role cookie: the slip is the key
    response = phone.get(slip_path(slips["B1"]["url"]))
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "Bob" in html and ">C4<" in html  # the pilot and the target, big
    assert text_of(html, "pilot-headline") == "You meet A1 (fighter)"  # the next action, before the script runs
    assert "upper" in html.lower() and "no. 1 in line" in html
    data = page_data(html)
    assert data["role"] == f"pilot:{slips['B1']['order']}" and data["slip"] and data["game"] == api.game
    assert data["view"]["next"]["status"] == "due" and data["seq"] == data["view"]["version"]
    assert "js/airraid/pilot.js" in html and "socket.io.min.js" in html
    assert '"pilot.won"' in html and '"pilot.confirm"' in html  # the script's strings come translated
    assert not scan_template(html), scan_template(html)  # CSP: no inline code, no style=""
    # The fighter's page names its opponent too.
    other = phone.get(slip_path(slips["A1"]["url"])).get_data(as_text=True)
    assert text_of(other, "pilot-headline") == "You meet B1 (bomber)" and "Ann" in other


def test_a_planned_order_waits_for_take_off(app: Flask) -> None:
    api = client_api(app)
    slips = api.setup([FIGHTER_A, BOMBER_B], start=False)
    html = english(app).get(slip_path(slips["A1"]["url"])).get_data(as_text=True)
    assert text_of(html, "pilot-headline") == "Waiting for take-off"
    assert re.search(r'id="pilot-banner"[^>]*\shidden', html)


def test_a_tampered_slip_is_refused_with_a_clear_page(app: Flask) -> None:
    api = client_api(app)
    slips = api.setup([FIGHTER_A, BOMBER_B])
    path = slip_path(slips["A1"]["url"])
    tampered = path[:-4] + ("AAAA" if not path.endswith("AAAA") else "BBBB")
    response = english(app).get(tampered)
    assert response.status_code in (403, 404)
    html = response.get_data(as_text=True)
    assert "not a genuine order slip" in html
    assert 'id="page-data"' not in html and "pilot.js" not in html
    # A genuine signature of a game that does not exist.
    with app.test_request_context():
        ghost = make_slip("nosuchgame", "1A1")
    response = english(app).get(f"/s/{ghost}")
    assert response.status_code == 404 and "pilot.js" not in response.get_data(as_text=True)


def test_a_used_slip_says_so(app: Flask) -> None:
    api = client_api(app)
    slips = api.setup([FIGHTER_A, BOMBER_B])
    api.act(type="end_round")
    response = english(app).get(slip_path(slips["B1"]["url"]))
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert not re.search(r'id="pilot-banner"[^>]*\shidden', html)
    assert text_of(html, "pilot-banner-text").startswith("Used slip: this order was for round 1, which is over.")
    assert page_data(html)["view"]["current"] is False
    # The round's end sent the plane home: its last state, not a dogfight to report.
    assert text_of(html, "pilot-headline") == "Landed on ship A"


def test_a_removed_order_says_so(app: Flask) -> None:
    api = client_api(app)
    slips = api.setup([FIGHTER_A, BOMBER_B], start=False)
    api.act(type="remove_order", order=slips["A1"]["order"])
    response = english(app).get(slip_path(slips["A1"]["url"]))
    assert response.status_code in (404, 409, 410)
    html = response.get_data(as_text=True)
    assert "removed or voided" in html and "pilot.js" not in html


def test_pilot_template_without_a_view_shows_the_notice(app: Flask) -> None:
    """The server may render the page itself for a gone order (view None + notice)."""
    with app.test_request_context("/s/x", headers={"Accept-Language": "en"}):
        html = render_template(
            "games/pilot.html",
            view=None,
            notice="This order was voided by the referee.",
            slip="x",
            game_id="g",
            role="public",
            seq=0,
            page_data={},
        )
    assert "This order was voided by the referee." in html and "pilot.js" not in html
    assert not scan_template(html)


def test_scan_template_offers_typing_the_code(app: Flask) -> None:
    with app.test_request_context("/scan", headers={"Accept-Language": "en"}):
        html = render_template("games/scan.html", code=None, error=None)
    assert 'id="scan-code"' in html and 'name="code"' in html and 'action="/scan"' in html
    assert 'id="scan-video"' in html and "js/airraid/scan-page.js" in html
    assert "camera app" in html  # why the camera may be missing, and what to do instead
    assert not scan_template(html)


def test_scan_route(client: FlaskClient) -> None:
    response = client.get("/scan")
    if response.status_code == 404:
        pytest.skip(
            "the /scan route is not registered yet (referee/web/modes/airraid/pages.py renders games/scan.html)"
        )
    assert response.status_code == 200 and 'id="scan-code"' in response.get_data(as_text=True)


# ------------------------------------------------------------------ Node


NODE_CHECKS = r"""
import assert from 'node:assert/strict';
const js = process.argv[1];
const { setStrings } = await import(js + '/lib/i18n.js');
const P = await import(js + '/airraid/pilot.js');
const S = await import(js + '/airraid/scan-page.js');
setStrings(JSON.parse(process.argv[2]));

const { dogfightStep: step } = P;
// same kinds: one tap, "I won" means my team won the throw
assert.deepEqual(step('fighter', 'fighter', 'A', ['won']), { done: true, throws: [{ winner: 'A' }], choice: null });
assert.deepEqual(step('fighter', 'fighter', 'B', ['won']), { done: true, throws: [{ winner: 'B' }], choice: null });
assert.deepEqual(step('bomber', 'bomber', 'B', ['lost']), { done: true, throws: [{ winner: 'A' }], choice: null });
// two bombers may pass without a throw
assert.deepEqual(step('bomber', 'bomber', 'A', []), { ask: 'first', bombers: true });
assert.deepEqual(step('bomber', 'bomber', 'A', ['both_pass']), { done: true, throws: [], choice: 'pass' });
assert.deepEqual(step('fighter', 'bomber', 'A', []), { ask: 'first', bombers: false });
// fighter (me) vs bomber
assert.deepEqual(step('fighter', 'bomber', 'A', ['won']), { done: true, throws: [{ winner: 'A' }], choice: null });
assert.deepEqual(step('fighter', 'bomber', 'A', ['lost']), { ask: 'choice', chooser: 'me' });
assert.deepEqual(step('fighter', 'bomber', 'A', ['lost', 'pass']), { done: true, throws: [{ winner: 'B' }], choice: 'pass' });
assert.deepEqual(step('fighter', 'bomber', 'A', ['lost', 'continue']), { ask: 'second' });
assert.deepEqual(step('fighter', 'bomber', 'A', ['lost', 'continue', 'won']), { done: true, throws: [{ winner: 'B' }, { winner: 'A' }], choice: 'continue' });
// bomber (me) vs fighter: the fighter's pilot chooses, the bomber's pilot reports it
assert.deepEqual(step('bomber', 'fighter', 'B', ['lost']), { done: true, throws: [{ winner: 'A' }], choice: null });
assert.deepEqual(step('bomber', 'fighter', 'B', ['won']), { ask: 'choice', chooser: 'them' });
assert.deepEqual(step('bomber', 'fighter', 'B', ['won', 'continue', 'lost']), { done: true, throws: [{ winner: 'B' }, { winner: 'A' }], choice: 'continue' });
// never more than three taps
for (const mine of ['fighter', 'bomber']) for (const theirs of ['fighter', 'bomber']) {
  const walk = (picks) => {
    const s = step(mine, theirs, 'A', picks);
    if (s.done) { assert.ok(picks.length <= 3, `${mine}/${theirs}: ${picks}`); return; }
    const options = s.ask === 'choice' ? ['pass', 'continue'] : ['won', 'lost', ...(s.bombers ? ['both_pass'] : [])];
    for (const o of options) walk([...picks, o]);
  };
  walk([]);
}

// reports in words, from my side
const ctx = { mySide: 'A', myKind: 'fighter', theirKind: 'bomber', label: 'B2' };
const mine = P.reportFromStep(step('fighter', 'bomber', 'A', ['lost', 'continue', 'won']), 'A');
assert.deepEqual(mine, { throws: [{ winner: 'B' }, { winner: 'A' }], choice: 'continue', passed: false, loser: 'them' });
let d = P.describeReport(mine, ctx);
assert.equal(d.what, 'you won — B2 is shot down');
assert.equal(d.detail, 'first throw: B2 won · you fought again · second throw: you won');
d = P.describeReport(P.reportFromDuel({ throws: [{ winner: 'B' }], choice: null, passed: false, shot_down: '1A1' }, '1A1'), { ...ctx, myKind: 'bomber', theirKind: 'bomber' });
assert.equal(d.what, 'B2 won — you are shot down');
d = P.describeReport(P.reportFromDuel({ throws: [{ winner: 'B' }], choice: 'pass', passed: true, shot_down: null }, '1A1'), ctx);
assert.equal(d.what, 'you passed — both fly on');
d = P.describeReport(P.reportFromDuel({ throws: [], choice: 'pass', passed: true, shot_down: null }, '1A1'), { ...ctx, myKind: 'bomber', theirKind: 'bomber' });
assert.equal(d.what, 'you both passed — both fly on');
assert.equal(d.detail, '');

// the view's deadline is in seconds; the countdown wants ms
assert.deepEqual(P.timerState({ round: 2, phase: 'airborne', running: true, deadline: 1700000000.5, left: 12 }), { deadline: 1700000000500 });
assert.deepEqual(P.timerState({ round: 2, phase: 'airborne', running: false, deadline: null, left: 83 }), { paused: true, remaining: 83000 });
assert.deepEqual(P.timerState({ round: 2, phase: 'planning', running: false, deadline: null, left: 300, seconds: 300 }), { planned: true, remaining: 300000 });

// the state in words
const base = { role: 'pilot:1A1', current: true, round: { round: 1, phase: 'airborne' }, bombing: null, next: null,
  order: { id: '1A1', label: 'A1', kind: 'bomber', corridor: 'upper', position: 1, target: 'C4', status: 'bombing', landed_on: null, shot_down_by: null } };
assert.equal(P.statusOf(base).headline, 'Flown through — go bomb C4');
assert.equal(P.statusOf({ ...base, order: { ...base.order, status: 'shot_down', shot_down_by: 'Bob' } }).detail, 'Give your plane to Bob as a trophy.');
assert.equal(P.statusOf({ ...base, order: { ...base.order, kind: 'fighter', status: 'landed', landed_on: 'B' } }).headline, 'Flown through — fly home');
assert.equal(P.statusOf({ ...base, order: { ...base.order, status: 'airborne' }, next: { a: '1A1', b: '1B2', status: 'waiting', opponent: { label: 'B2', kind: 'bomber', team: 'B' }, reported_by: [], pending: [] } }).detail,
  'B2 must first finish its earlier dogfight. Wait in the corridor.');

// scanned or typed text → a path of this app
const slip = 'eyJnIjoiZzEiLCJvIjoiMUEyIn0.abcDEF-_12';
assert.equal(S.slipPath(`http://192.168.1.5:5000/s/${slip}`), `/s/${slip}`);
assert.equal(S.slipPath(`/s/${slip}`), `/s/${slip}`);
assert.equal(S.slipPath(` s/${slip} `), `/s/${slip}`);
assert.equal(S.slipPath(slip), `/s/${slip}`);
assert.equal(S.slipPath('http://10.0.0.2/g/g42/join/A?t=tok'), '/g/g42/join/A?t=tok');
assert.equal(S.slipPath('http://evil.example/elsewhere'), null);
assert.equal(S.slipPath('javascript:alert(1)'), null);
assert.equal(S.slipPath(''), null);
console.log('pilot js ok');
"""  # noqa: E501 - JavaScript for node, one assertion a line


def _script_strings(template: str) -> dict[str, Any]:
    """The English strings of a template's i18n block, as the page would carry them."""
    app = Flask(__name__, template_folder=str(ROOT / "templates"), static_folder=str(ROOT / "static"))
    from flask_babel import Babel

    Babel(app)
    with app.test_request_context("/"):
        html = render_template(template, view=None, notice="", code=None, error=None, page_data={})
    strings: dict[str, Any] = {}
    for block in re.findall(r'<script type="application/json" data-i18n>(.*?)</script>', html, re.S):
        strings.update(json.loads(block))
    return strings


def test_page_scripts_pure_functions() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js not installed: the pilot page's JS checks are skipped")
    strings = _script_strings("games/scan.html")
    # The pilot page's block is written only with an order; read it from the template source instead.
    source = (ROOT / "templates" / "games" / "pilot.html").read_text(encoding="utf-8")
    for key, _quote, text in re.findall(r"'(pilot\.[a-z_0-9.]+)': _\((['\"])(.*?)\2\)", source):
        strings[key] = text
    assert "pilot.won" in strings and "pilot.out.you_won" in strings
    result = subprocess.run(
        [node, "--input-type=module", "-e", NODE_CHECKS, (ROOT / "static" / "js").as_uri(), json.dumps(strings)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "pilot js ok" in result.stdout


def test_every_string_the_pilot_script_asks_for_is_in_the_template() -> None:
    js = (ROOT / "static" / "js" / "airraid" / "pilot.js").read_text(encoding="utf-8")
    template = (ROOT / "templates" / "games" / "pilot.html").read_text(encoding="utf-8")
    wanted = set(re.findall(r"""\bt\(\s*['"](pilot\.[a-z_0-9.]+)['"]""", js))
    # keys built from names: kinds, corridors, bombing results, throws and choices
    wanted |= {f"pilot.kind.{k}" for k in ("fighter", "bomber")} | {
        f"pilot.corridor.{c}" for c in ("upper", "middle", "lower")
    }
    wanted |= {f"pilot.status.bombed_{r}" for r in ("hit", "water", "already_hit", "left")}
    wanted |= {f"pilot.throw{n}_{w}" for n in (1, 2) for w in ("you", "them")}
    wanted |= {f"pilot.chose_{c}_{w}" for c in ("pass", "again") for w in ("you", "them")}
    missing = sorted(k for k in wanted if f"'{k}'" not in template)
    assert not missing, f"pilot.html's i18n block lacks {missing}"
    scan_js = (ROOT / "static" / "js" / "airraid" / "scan-page.js").read_text(encoding="utf-8")
    scan_html = (ROOT / "templates" / "games" / "scan.html").read_text(encoding="utf-8")
    missing = sorted(
        k for k in set(re.findall(r"""\bt\(\s*['"](scan\.[a-z_]+)['"]""", scan_js)) if f"'{k}'" not in scan_html
    )
    assert not missing, f"scan.html's i18n block lacks {missing}"


# --------------------------------------------------------------- browser


@pytest.mark.browser
def test_two_pilots_report_and_confirm_a_dogfight(live_server: tuple[str, str]) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    base, token = live_server
    ARTIFACTS.mkdir(exist_ok=True)

    with sync_api.sync_playwright() as p:
        req = p.request.new_context(base_url=base)
        assert req.get(f"/?token={token}").ok

        def post(path: str, body: dict[str, Any]) -> tuple[int, Any]:
            r = req.post(path, data=body)
            return r.status, r.json()

        def get(path: str) -> Any:
            r = req.get(path)
            assert r.ok, (path, r.status)
            return r.json()

        api = Api(post, get)
        slips = api.setup([FIGHTER_A, BOMBER_B])
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            errors: list[str] = []

            def phone(label: str, width: int = 390, height: int = 844) -> Any:
                ctx = browser.new_context(
                    viewport={"width": width, "height": height},
                    locale="en-GB",
                    extra_http_headers={"Accept-Language": "en"},
                )
                page = ctx.new_page()
                page.on("pageerror", lambda e: errors.append(f"{label}: {e}"))
                page.goto(slips[label]["url"])
                sync_api.expect(page.locator("#conn-badge")).to_have_attribute("data-state", "synced", timeout=15000)
                return page

            fighter = phone("A1")  # Ann, team A
            bomber = phone("B1")  # Bob, team B
            small = phone("B1", 360, 740)
            for page, name in ((fighter, "A1-390"), (bomber, "B1-390"), (small, "B1-360")):
                sync_api.expect(page.locator("#pilot-headline")).to_contain_text("You meet")
                assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"], name
                page.screenshot(path=str(ARTIFACTS / f"pilot-{name}-meet.png"))
            sync_api.expect(bomber.locator("#pilot-headline")).to_have_text("You meet A1 (fighter)")
            sync_api.expect(bomber.locator("#timer")).to_have_text(re.compile(r"^[45]:\d\d$"))

            # The bomber's pilot reports: won the first throw, the fighter fought on, lost the second.
            taps = 0
            bomber.click("[data-pick=won]")
            taps += 1
            sync_api.expect(bomber.locator("#pilot-action .pilot-ask")).to_have_text(
                "A1 lost the throw. What did A1 choose?"
            )
            bomber.screenshot(path=str(ARTIFACTS / "pilot-B1-390-choice.png"))
            bomber.click("[data-pick=continue]")
            taps += 1
            sync_api.expect(bomber.locator("#pilot-action .pilot-ask")).to_have_text("Second throw — who won?")
            bomber.click("[data-pick=lost]")
            taps += 1
            assert taps <= 3
            sync_api.expect(bomber.locator("#pilot-action")).to_contain_text(
                "You reported: A1 won — you are shot down", timeout=10000
            )
            bomber.screenshot(path=str(ARTIFACTS / "pilot-B1-390-reported.png"))

            # The fighter's pilot sees it in words and confirms with one tap.
            report = fighter.locator("#pilot-action .pilot-their-report")
            sync_api.expect(report).to_contain_text("B1 reports: you won — B1 is shot down", timeout=10000)
            sync_api.expect(report).to_contain_text("first throw: B1 won · you fought again · second throw: you won")
            fighter.screenshot(path=str(ARTIFACTS / "pilot-A1-390-confirm.png"))
            fighter.wait_for_timeout(800)  # past the guard against taps on buttons that just changed
            fighter.get_by_role("button", name="Confirm").click()
            sync_api.expect(fighter.locator("#pilot-result")).to_have_text(
                "Dogfight with B1 decided: you fly on.", timeout=10000
            )
            sync_api.expect(fighter.locator("#pilot-headline")).to_have_text("Flown through — fly home")
            sync_api.expect(bomber.locator("#pilot-headline")).to_have_text(
                "Shot down — go back to base", timeout=10000
            )
            sync_api.expect(bomber.locator("#pilot-detail")).to_have_text("Give your plane to Ann as a trophy.")
            fighter.screenshot(path=str(ARTIFACTS / "pilot-A1-390-after.png"))
            bomber.screenshot(path=str(ARTIFACTS / "pilot-B1-390-after.png"))

            # The referee's view holds the decided dogfight.
            duels = api.view()["duels"]
            assert len(duels) == 1
            duel = duels[0]
            assert duel["shot_down"] == slips["B1"]["order"] and duel["choice"] == "continue"
            assert [t["winner"] for t in duel["throws"]] == ["B", "A"]
            assert duel["by"] == f"pilot:{slips['B1']['order']}"

            # The referee voids the confirmation: both bars say so, no stale "decided" stays, and
            # the dogfight is open again: the voided result is not offered for a one-tap Confirm,
            # both pilots report afresh.
            events = get(f"/api/games/{api.game}/events")["events"]
            confirmed = next(e["seq"] for e in reversed(events) if e["kind"] == "confirm_dogfight")
            api.act(type="void", seq=confirmed, reason="the hands were the other way round")
            for page, other in ((bomber, "A1"), (fighter, "B1")):
                sync_api.expect(page.locator("#pilot-result")).to_have_text(
                    f"The referee voided the result of your dogfight with {other}: report it again.", timeout=10000
                )
            for page in (fighter, bomber):
                sync_api.expect(page.get_by_role("button", name="Confirm")).to_have_count(0)
                sync_api.expect(page.get_by_role("button", name="I lost")).to_be_visible()
            sync_api.expect(bomber.locator("#pilot-headline")).not_to_have_text("Shot down — go back to base")
            fighter.screenshot(path=str(ARTIFACTS / "pilot-A1-390-voided.png"))
            assert not errors, errors
        finally:
            browser.close()
