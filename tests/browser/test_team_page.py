"""The team base page (/g/<gid>/team): templates/games/team.html, static/js/airraid/team.js and
team/*.js, lib/sea-editor.js.

- test client: a joined phone gets its team's page (the tab that fits the moment, the view in
  page-data, every string the scripts ask for, CSP-clean); a stranger, the referee and a phone
  of another game are refused;
- Node: the pure parts of team.js (timer seconds → ms, the bombing throws, the order form) and
  of the shared sea editor (shapes turned, mirrored, anchored, kept inside the sea);
- browser (Playwright + Debian's Chromium, skipped with the reason when it is missing): on a
  live server, a phone places its fleet by hand (tap the tray, tap a square, rotate), sees a
  touching refusal, fixes it, keeps the draft across a reload and locks the sea; the referee's
  view holds exactly the ships placed. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.web.access import issue_server_referee_token
from referee.web.extensions import engine_of

from ..airraid_helpers import PLAYERS, SEA_7, ships_json
from ..web.test_static import scan_template

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "static" / "js"
TEMPLATE = ROOT / "templates" / "games" / "team.html"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# --------------------------------------------------------------------- helpers


def referee_client(app: Flask) -> FlaskClient:
    client = app.test_client()
    with app.app_context():
        token = issue_server_referee_token(engine_of(app))
    assert client.get(f"/?token={token}").status_code == 303
    return client


def new_game(referee: FlaskClient) -> dict[str, Any]:
    response = referee.post(
        "/api/games",
        json={"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]},
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def join(app: Flask, url: str) -> FlaskClient:
    """A phone that followed a team's join link (the token becomes a device cookie)."""
    phone = app.test_client()
    phone.set_cookie("lang", "en")  # the words asserted below are the English ones
    first = phone.get("/" + url.split("://", 1)[1].split("/", 1)[1])
    assert first.status_code == 303, first.status_code
    return phone


def act(client: FlaskClient, game: str, **action: Any) -> dict[str, Any]:
    response = client.post(f"/api/games/{game}/actions", json={"action": action})
    assert response.status_code == 200, (action, response.get_json())
    return response.get_json()  # type: ignore[no-any-return]


def page_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.S)
    assert match, "no page-data block"
    return json.loads(match.group(1))  # type: ignore[no-any-return]


def script_strings(html: str) -> dict[str, Any]:
    strings: dict[str, Any] = {}
    for block in re.findall(r'<script type="application/json" data-i18n>(.*?)</script>', html, re.S):
        strings.update(json.loads(block))
    return strings


def shown_panel(html: str) -> str:
    """The tab panel not hidden when the page arrives."""
    panels = re.findall(r'<section id="panel-(\w+)"[^>]*?(\shidden)?>', html)
    shown = [name for name, hidden in panels if not hidden]
    assert len(panels) == 3 and len(shown) == 1, panels
    return shown[0]


@pytest.fixture
def game(app: Flask) -> dict[str, Any]:
    referee = referee_client(app)
    created = new_game(referee)
    return {
        "id": created["game"],
        "referee": referee,
        "links": created["links"],
        "A": join(app, created["links"]["join"]["A"]),
        "B": join(app, created["links"]["join"]["B"]),
    }


# ------------------------------------------------------------- test client


def test_a_joined_phone_gets_its_team_page(game: dict[str, Any]) -> None:
    gid = game["id"]
    response = game["A"].get(f"/g/{gid}/team")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    data = page_data(html)
    assert data["game"] == gid and data["role"] == "team:A" and data["seq"] == data["view"]["version"]
    assert data["view"]["team"] == "A" and data["view"]["sea"]["fleet"]  # the fleet to place
    assert data["api"] == f"/api/games/{gid}"
    assert "Eagles" in html and "js/airraid/team.js" in html and "socket.io.min.js" in html
    assert shown_panel(html) == "sea"  # setup: the phone opens on the sea editor
    assert 'id="sea-editor"' in html and 'id="lock-sea"' in html
    assert not scan_template(html), scan_template(html)  # CSP: no inline code, no style=""
    # The other team's phone sees its own team.
    other = page_data(game["B"].get(f"/g/{gid}/team").get_data(as_text=True))
    assert other["role"] == "team:B" and other["view"]["team"] == "B"


def test_others_are_refused_the_team_page(app: Flask, game: dict[str, Any]) -> None:
    gid = game["id"]
    stranger = app.test_client()
    response = stranger.get(f"/g/{gid}/team")
    assert response.status_code == 403
    assert "team.js" not in response.get_data(as_text=True)
    # The referee is not a team base either.
    assert game["referee"].get(f"/g/{gid}/team").status_code == 403
    # A phone of one game is nobody in another.
    second = new_game(game["referee"])
    assert game["A"].get(f"/g/{second['game']}/team").status_code == 403


def test_the_page_opens_on_the_tab_of_the_moment(game: dict[str, Any]) -> None:
    gid, ref, phone = game["id"], game["referee"], game["A"]
    for team in "AB":
        act(ref, gid, type="lock_sea", team=team, ships=ships_json(SEA_7))
    html = phone.get(f"/g/{gid}/team").get_data(as_text=True)
    assert shown_panel(html) == "sea" and "Locked" in html  # locked, waiting for the start
    act(ref, gid, type="start_game")
    html = phone.get(f"/g/{gid}/team").get_data(as_text=True)
    assert shown_panel(html) == "orders"
    options = page_data(html)["view"]["options"]
    assert options["pilots"] == PLAYERS["A"] and len(options["corridors"]) == 3
    act(ref, gid, type="set_defender", team="A", pilot="Amy")
    act(ref, gid, type="set_defender", team="B", pilot="Bo")
    act(ref, gid, type="add_order", team="B", pilot="Bob", kind="bomber", ship="A", corridor="upper", target="C4")
    act(ref, gid, type="start_round")
    html = phone.get(f"/g/{gid}/team").get_data(as_text=True)
    assert shown_panel(html) == "live"  # airborne: the timer and the bomber at our base
    view = page_data(html)["view"]
    assert view["round"]["deadline"] > 1e9  # seconds since the epoch: the script makes ms of it
    assert [b["label"] for b in view["bombers_at_base"]] == ["B1"]
    act(ref, gid, type="surrender", team="B")
    html = phone.get(f"/g/{gid}/team").get_data(as_text=True)
    assert shown_panel(html) == "live" and page_data(html)["view"]["outcome"]["winner"] == "A"


def _keys_used(js: str, prefixes: tuple[str, ...]) -> set[str]:
    alternatives = "|".join(prefixes)
    found = set(re.findall(rf"""\bt[n]?\(\s*['"]((?:{alternatives})\.[a-z_0-9.]+)['"]""", js))
    # t(cond ? 'a' : 'b') and word('team.x', …) name their keys as plain strings too
    found |= {k for k in re.findall(r"""['"]((?:team|editor)\.[a-z_0-9.]+)['"]""", js) if not k.endswith(".")}
    return found


def test_every_string_the_scripts_ask_for_is_in_the_page(game: dict[str, Any]) -> None:
    html = game["A"].get(f"/g/{game['id']}/team").get_data(as_text=True)
    strings = script_strings(html)
    scripts = [JS / "airraid" / "team.js", *sorted((JS / "airraid" / "team").glob("*.js"))]  # the page and its tabs
    team_js = "\n".join(p.read_text(encoding="utf-8") for p in scripts)
    editor_js = (JS / "lib" / "sea-editor.js").read_text(encoding="utf-8")
    wanted = _keys_used(team_js, ("team", "editor")) | _keys_used(editor_js, ("editor",))
    # keys built from names: corridors, plane kinds, verdicts, form steps, bombing answers and results
    wanted |= {f"team.corridor.{c}" for c in ("upper", "middle", "lower")} | {
        f"team.plane.{k}" for k in ("fighter", "bomber")
    }
    wanted |= {f"team.verdict.{v}" for v in ("water", "already_hit", "fight", "hit", "sunk", "left", "shot_down")}
    wanted |= {f"team.need_{s}" for s in ("pilot", "plane", "corridor", "target")}
    wanted |= {f"team.ev.bombing_{a}" for a in ("water", "already_hit", "fight")} | {
        f"team.ev.result_{r}" for r in ("hit", "left", "shot_down")
    }
    # sea-editor.js lists its own keys for every page that uses it
    listed = re.search(r"EDITOR_KEYS = \[(.*?)\];", editor_js, re.S)
    assert listed
    wanted |= set(re.findall(r"'(editor\.[a-z_]+)'", listed.group(1)))
    missing = sorted(k for k in wanted if k not in strings)
    assert not missing, f"team.html's i18n blocks lack {missing}"
    # plural strings carry every Intl.PluralRules category Czech needs
    for key in (
        "editor.left",
        "team.ship_hits",
        "team.free_slots",
        "team.bombers_waiting",
        "team.n_fighters",
        "team.n_bombers",
    ):
        assert set(strings[key]) >= {"one", "few", "other"}, key
        assert "{n}" in strings[key]["other"], key


# ------------------------------------------------------------------ Node


NODE_CHECKS = r"""
import assert from 'node:assert/strict';
const js = process.argv[1];
const { setStrings } = await import(js + '/lib/i18n.js');
setStrings(JSON.parse(process.argv[2]));
const T = await import(js + '/airraid/team/helpers.js');
const E = await import(js + '/lib/sea-editor.js');

// the view's clock is in seconds; the countdown wants ms
assert.deepEqual(T.timerState({ round: 2, phase: 'airborne', running: true, deadline: 1700000000.25, left: 30 }), { deadline: 1700000000250 });
assert.deepEqual(T.timerState({ round: 2, phase: 'airborne', running: false, deadline: null, left: 83.5 }), { paused: true, remaining: 83500 });
// planning: the next round's length, as the referee's and the projector's clocks show it
assert.deepEqual(T.timerState({ round: 2, phase: 'planning', running: false, deadline: null, left: 300, seconds: 300 }), { planned: true, remaining: 300000 });
assert.equal(T.timerState({ running: false, left: null, deadline: null }), null);

// the tab of the moment
assert.equal(T.tabForPhase({ phase: 'setup' }), 'sea');
assert.equal(T.tabForPhase({ phase: 'playing', round: { round: 1, phase: 'planning' } }), 'orders');
assert.equal(T.tabForPhase({ phase: 'playing', round: { round: 1, phase: 'airborne' } }), 'live');
assert.equal(T.tabForPhase({ phase: 'over', round: {} }), 'live');
assert.notEqual(T.stageKey({ phase: 'playing', round: { round: 1, phase: 'planning' } }), T.stageKey({ phase: 'playing', round: { round: 1, phase: 'airborne' } }));

// the defender's taps in a bombing fight → report_bombing's throws and choice (at most 3 taps)
assert.deepEqual(T.bombingStep([]), { ask: 'first' });
assert.deepEqual(T.bombingStep(['bomber']), { done: true, throws: [{ winner: 'bomber' }], choice: null });
assert.deepEqual(T.bombingStep(['ship']), { ask: 'choice' });
assert.deepEqual(T.bombingStep(['ship', 'leave']), { done: true, throws: [{ winner: 'ship' }], choice: 'leave' });
assert.deepEqual(T.bombingStep(['ship', 'continue']), { ask: 'second' });
assert.deepEqual(T.bombingStep(['ship', 'continue', 'ship']), { done: true, throws: [{ winner: 'ship' }, { winner: 'ship' }], choice: 'continue' });
assert.deepEqual(T.bombingStep(['ship', 'continue', 'bomber']), { done: true, throws: [{ winner: 'ship' }, { winner: 'bomber' }], choice: 'continue' });

// a typed square
assert.equal(T.cleanSquare(' c 4 ', 7, 7), 'C4');
assert.equal(T.cleanSquare('g7', 7, 7), 'G7');
assert.equal(T.cleanSquare('H1', 7, 7), null);
assert.equal(T.cleanSquare('A8', 7, 7), null);
assert.equal(T.cleanSquare('4C', 7, 7), null);

// a scanned slip names the bomber's order (only a slip of this game)
assert.equal(T.orderFromSlip('http://192.168.1.5:5000/s/g42.1B2.abcDEF-_12', 'g42'), '1B2');
assert.equal(T.orderFromSlip('g42.2B11.sig', 'g42'), '2B11');
assert.equal(T.orderFromSlip('http://x/s/other.1B2.sig', 'g42'), null);
assert.equal(T.orderFromSlip('http://x/g/g42/team?t=abc', 'g42'), null);
assert.equal(T.orderFromSlip('', 'g42'), null);

// the order form keeps only what the options still allow
const options = { pilots: ['Ann', 'Ada'], ships: [{ ship: 'A', fighter: 0, bomber: 2 }], corridors: [{ corridor: 'upper', free: 2, positions: [2, 3] }, { corridor: 'lower', free: 0, positions: [] }] };
let f = T.sanitiseForm({ pilot: 'Abe', ship: 'A', kind: 'fighter', corridor: 'lower', position: 1, target: 'C4' }, options);
assert.deepEqual(f, { pilot: null, ship: null, kind: null, corridor: null, position: null, target: null });
f = T.sanitiseForm({ pilot: 'Ann', ship: 'A', kind: 'bomber', corridor: 'upper', position: 1, target: 'C4' }, options);
assert.deepEqual(f, { pilot: 'Ann', ship: 'A', kind: 'bomber', corridor: 'upper', position: 2, target: 'C4' });
assert.equal(T.missingStep({ pilot: null }), 'pilot');
assert.equal(T.missingStep({ pilot: 'Ann', ship: 'A', kind: 'bomber', corridor: 'upper', target: null }), 'target');
assert.equal(T.missingStep({ pilot: 'Ann', ship: 'A', kind: 'fighter', corridor: 'upper', target: null }), null);

// notes from the log, newest first
const view = { log: [{ seq: 5, notes: [{ type: 'bombing', order: '1B1', answer: 'fight' }] }, { seq: 7, notes: [{ type: 'bombing', order: '1B2', answer: 'water' }, { type: 'landed' }] }] };
assert.equal(T.findNote(view, (n) => n.type === 'bombing').order, '1B2');
assert.equal(T.findNote(view, (n) => n.order === '1B1').answer, 'fight');
assert.equal(T.findNote({}, () => true), null);

// shapes: parsed, turned, mirrored
const carrier = E.parseShape('XXXX/.X..');
assert.deepEqual(carrier, [[0, 0], [1, 0], [2, 0], [3, 0], [1, 1]]);
const turned = E.rotateCells(carrier);   // a quarter turn clockwise: .X / XX / .X / .X
assert.deepEqual(turned, [[1, 0], [0, 1], [1, 1], [1, 2], [1, 3]]);
assert.deepEqual(E.extent(turned), { w: 2, h: 4 });
assert.deepEqual(E.rotateCells(E.rotateCells(E.rotateCells(turned))), carrier);   // four turns: home again
assert.deepEqual(E.mirrorCells(E.mirrorCells(carrier)), carrier);
assert.deepEqual(E.mirrorCells(E.parseShape('XXX/X..')), E.parseShape('XXX/..X'));
// the first square (reading order) goes where the finger is; the ship stays on the sea
assert.deepEqual(E.anchorAt(E.parseShape('XXX'), 6, 0, 7, 7), { cells: [[0, 0], [1, 0], [2, 0]], col: 4, row: 0 });
assert.deepEqual(E.anchorAt(E.parseShape('.X/XX'), 3, 3, 7, 7).col, 2);
const ship = { cells: E.parseShape('XXXX'), col: 1, row: 2 };
const upright = E.transformInPlace(ship, 'rotate', 7, 7);
assert.deepEqual(E.extent(upright.cells), { w: 1, h: 4 });
assert.ok(upright.row >= 0 && upright.row + 4 <= 7 && upright.col >= 1 && upright.col <= 4);   // turned about its middle
assert.deepEqual(E.clampInside({ cells: E.parseShape('XX/XX'), col: 6, row: -1 }, 7, 7), { cells: E.parseShape('XX/XX'), col: 5, row: 0 });
assert.deepEqual(E.coveredSquares({ cells: E.parseShape('XX'), col: 2, row: 3 }), [{ col: 2, row: 3 }, { col: 3, row: 3 }]);
assert.deepEqual(E.fromSquares(['B2', 'C2', 'C3']), { col: 1, row: 1, cells: [[0, 0], [1, 0], [1, 1]] });
// both square conventions: "B6" = column B, row 6 (air raid), or row B, column 6 (Zeeslag)
assert.equal(E.nameSquare(1, 5), 'B6');
assert.equal(E.nameSquare(5, 1, 'rows'), 'B6');
assert.deepEqual(E.readSquare('B6', 'rows'), { col: 5, row: 1 });
assert.deepEqual(E.fromSquares(['B6', 'B7'], 'rows'), { col: 5, row: 1, cells: [[0, 0], [1, 0]] });
assert.deepEqual(E.fleetLabels(['cruiser', 'two', 'two'], { cruiser: { name: 'cruiser' }, two: { name: 'ship-two' } }), ['cruiser', 'ship-two 1', 'ship-two 2']);
console.log('team js ok');
"""  # noqa: E501 - JavaScript for node, one assertion a line


def test_page_scripts_pure_functions(game: dict[str, Any]) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js not installed: the team page's JS checks are skipped")
    strings = script_strings(game["A"].get(f"/g/{game['id']}/team").get_data(as_text=True))
    result = subprocess.run(
        [node, "--input-type=module", "-e", NODE_CHECKS, JS.as_uri(), json.dumps(strings)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "team js ok" in result.stdout


# --------------------------------------------------------------- browser


@pytest.mark.browser
def test_a_phone_places_its_fleet_by_hand_and_locks_it(live_server: tuple[str, str]) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    base, token = live_server
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as pw:
        referee = pw.request.new_context(base_url=base)
        assert referee.get(f"/?token={token}").ok
        created = referee.post(
            "/api/games",
            data={"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]},
        )
        assert created.status == 201, created.text()
        gid = created.json()["game"]
        join_a = created.json()["links"]["join"]["A"]

        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(
                viewport={"width": 360, "height": 740},
                device_scale_factor=2,
                has_touch=True,
                is_mobile=True,
                locale="en-GB",
            )
            context.add_cookies([{"name": "lang", "value": "en", "url": base}])
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(join_a)  # the join link: cookie, then the team page
            assert page.url.endswith(f"/g/{gid}/team") or f"/g/{gid}/team" in page.url
            page.wait_for_selector("#conn-badge[data-state=synced]", timeout=15000)
            page.wait_for_selector(".tray-ship")
            assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), (
                "sideways scroll at 360 px"
            )
            page.screenshot(path=str(ARTIFACTS / "team-sea-empty-360.png"))

            def place(kind: str, square: str) -> None:
                page.tap(f".tray-ship[data-kind={kind}]")
                assert page.get_attribute(f".tray-ship[data-kind={kind}]", "aria-pressed") == "true"
                page.tap(f"#sea-editor .sea-cell[data-square={square}]")

            def placed() -> dict[str, list[str]]:
                ships = page.evaluate("window.teamPage.editor.ships()")
                return {s["kind"]: s["squares"] for s in ships}

            place("carrier", "A1")
            assert placed()["carrier"] == ["A1", "B1", "C1", "D1", "B2"]
            place("cruiser", "A4")
            # The ship-three goes to the end of row 1 (pushed inside the sea): it touches the carrier.
            place("three", "G1")
            assert placed()["three"] == ["E1", "F1", "G1"]
            page.wait_for_selector("#result[data-kind=refused]")
            refusal = page.text_content("#result") or ""
            assert "touches" in refusal and "D1/E1" in refusal, refusal
            assert page.locator("#sea-editor .sea-cell.is-touching").count() >= 2
            assert "touches" in (page.text_content(".sea-problems") or "")
            assert page.get_attribute("#lock-sea", "aria-disabled") == "true"
            page.screenshot(path=str(ARTIFACTS / "team-sea-touching-360.png"))

            # The fix: the three is still selected; rotate it upright, clear of the carrier.
            page.wait_for_selector(".ship-tools:not([hidden])")
            page.tap("[data-tool=rotate]")
            assert placed()["three"] == ["F1", "F2", "F3"]
            page.locator("#sea-editor .sea-cell.is-touching").first.wait_for(state="detached")
            page.wait_for_selector("#result[data-kind=ok]")
            assert "no ship touches" in (page.text_content("#result") or "")
            place("tug", "A6")
            # The draft survives a reload.
            page.reload()
            page.wait_for_selector("#conn-badge[data-state=synced]", timeout=15000)
            assert sorted(placed()) == ["carrier", "cruiser", "three", "tug"]
            place("two", "E6")
            page.wait_for_selector("#result[data-kind=ok]")
            page.wait_for_selector("#lock-sea[aria-disabled=false]")
            assert "legal" in (page.text_content(".editor-status") or "")
            fleet = placed()
            page.screenshot(path=str(ARTIFACTS / "team-sea-ready-360.png"))

            page.tap("#lock-sea")
            page.wait_for_selector("#sea-locked:not([hidden])")
            assert "Locked" in (page.text_content("#sea-locked") or "")
            assert page.is_visible("#unlock-sea")
            page.screenshot(path=str(ARTIFACTS / "team-sea-locked-360.png"))

            # The server holds exactly the ships placed by hand.
            view = referee.get(f"/api/games/{gid}/view").json()
            assert view["teams"]["A"]["locked"] is True
            stored = {s["kind"]: sorted(s["squares"]) for s in view["seas"]["A"]["ships"]}
            assert stored == {kind: sorted(squares) for kind, squares in fleet.items()}
            assert not errors, errors
        finally:
            browser.close()
