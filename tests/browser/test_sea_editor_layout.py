"""The sea editor on a phone: squares big enough to tap, the whole window in view, no toolbar
over a square (static/js/lib/sea-editor.js, lib/sea.js; issue 12).

At 360×740, in English and in Czech:

- an air raid of ten players a team (a 10×10 sea) shows a window of squares of at least 44 px
  (48 by design) under the tray, above the action bar, with an overview of the whole sea; the
  fleet is placed by taps only (the overview moves the window), a touching ship is removed
  with the toolbar, the carrier mirrored there, and the sea locked;
- Sjøslag placement (ten ships) has a tray of one row, a chip per kind with its count ("×4"),
  and the same window; the fleet is placed by taps, one ship by the keyboard, one moved by a
  drag, then "Ready".

After every selection the toolbar's box meets no square's box, and every square shown is the
element under its own middle (nothing covers it). A third test: at 390×844 the window is 7×7
of 48 px, and a 7×7 sea at 360 keeps its plain grid. A Node test checks the pure zoom maths.
Screenshots: test-artifacts/screenshots/game-night/sea-editor-*.png.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import TYPE_CHECKING, Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

if TYPE_CHECKING:
    from playwright.sync_api import Page

SHOTS = ROOT / "test-artifacts" / "screenshots" / "game-night"
SMALL_PHONE = {"width": 360, "height": 740}
PHONE = {"width": 390, "height": 844}
MIN_SQUARE = 44
TEN = {
    "A": [f"Ann{i}" for i in range(10)],
    "B": [f"Bob{i}" for i in range(10)],
}
# A legal 10×10 air-raid fleet (no two ships touch, not even at a corner): kind, the square
# tapped (the ship's front), the squares it covers.
AIR_FLEET = [
    ("carrier", "A1", ["A1", "B1", "C1", "D1", "B2"]),
    ("cruiser", "G1", ["G1", "H1", "I1", "J1"]),
    ("tug", "A4", ["A4", "B4", "A5", "B5"]),
    ("three", "H4", ["H4", "I4", "J4"]),
    ("two", "D4", ["D4", "E4"]),
    ("two", "A8", ["A8", "B8"]),
    ("two", "E8", ["E8", "F8"]),
    ("two", "I8", ["I8", "J8"]),
]
# Sjøslag: the battleship is tapped at A1 (A1–D1) and turned upright about its middle (C1–C4).
SEA_FLEET = [
    ("battleship", "A1", ["C1", "C2", "C3", "C4"]),
    ("cruiser", "A6", ["A6", "B6", "C6"]),
    ("cruiser", "E1", ["E1", "F1", "G1"]),
    ("destroyer", "I1", ["I1", "J1"]),
    ("destroyer", "E3", ["E3", "F3"]),
    ("destroyer", "H5", ["H5", "I5"]),
    ("torpedo_boat", "A9", ["A9"]),
    ("torpedo_boat", "C9", ["C9"]),
    ("torpedo_boat", "E9", ["E9"]),
]
KEYED_TORPEDO = "G9"  # the last torpedo boat, placed with the keyboard

# The squares a player sees and can tap: each square's box cut to the window less its edge
# labels (squares scroll under them), and whether it is the element under its own middle.
SHOWN = """(root) => {
  const w = document.querySelector(root + ' .sea-window');
  const wr = w.getBoundingClientRect();
  const zoomed = w.classList.contains('is-zoomed');
  const rowLabel = w.querySelector('.sea-label--row').getBoundingClientRect();
  const colLabel = w.querySelector('.sea-label--col').getBoundingClientRect();
  const area = { left: zoomed ? rowLabel.right : wr.left, top: zoomed ? colLabel.bottom : wr.top,
                 right: wr.right, bottom: wr.bottom };
  const shown = [];
  for (const c of w.querySelectorAll('.sea-cell')) {
    const r = c.getBoundingClientRect();
    const left = Math.max(r.left, area.left), right = Math.min(r.right, area.right);
    const top = Math.max(r.top, area.top), bottom = Math.min(r.bottom, area.bottom);
    if (right - left <= 0.5 || bottom - top <= 0.5) continue;
    const under = document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
    shown.push({ square: c.dataset.square, w: right - left, h: bottom - top,
                 box: { left: r.left, top: r.top, right: r.right, bottom: r.bottom },
                 clear: Boolean(under && under.closest('.sea-cell') === c) });
  }
  const rect = (sel) => { const n = document.querySelector(sel); if (!n || !n.offsetParent) return null;
    const r = n.getBoundingClientRect(); return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
  return { zoomed, view: w.dataset.view || null, shown, window: rect(root + ' .sea-window'),
           tray: rect(root + ' .tray'), tools: rect(root + ' .ship-tools'), map: rect(root + ' .sea-map'),
           bar: rect('.actionbar'), header: rect('.topbar'), scrollY: window.scrollY,
           innerHeight: window.innerHeight,
           sideways: document.documentElement.scrollWidth > document.documentElement.clientWidth };
}"""


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["left"] < b["right"] - 0.5
        and b["left"] < a["right"] - 0.5
        and a["top"] < b["bottom"] - 0.5
        and b["top"] < a["bottom"] - 0.5
    )


def check_layout(page: Page, root: str, *, zoomed: bool = True, in_view: bool = True) -> dict[str, Any]:
    """Assert what a player sees: tappable squares, the grid and tray in view, no toolbar over a square."""
    # Two frames: the editor's resize observers (a grown result line) have had their say.
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    seen: dict[str, Any] = page.evaluate(SHOWN, root)
    assert seen["zoomed"] is zoomed, seen["view"]
    assert not seen["sideways"], "the page scrolls sideways"
    shown = seen["shown"]
    assert shown, "no square in view"
    small = [(s["square"], round(s["w"]), round(s["h"])) for s in shown if s["w"] < MIN_SQUARE or s["h"] < MIN_SQUARE]
    assert not small, f"squares shown under {MIN_SQUARE} px: {small}"
    if seen["tools"] is not None:
        hit = [s["square"] for s in shown if overlaps(seen["tools"], s["box"])]
        assert not hit, f"the toolbar lies over {hit}"
    if not in_view:
        return seen
    covered = [s["square"] for s in shown if not s["clear"]]
    assert not covered, f"squares covered by something else: {covered}"
    win, tray, header, bar = seen["window"], seen["tray"], seen["header"], seen["bar"]
    # The whole window and the tray above it are on the screen together, between the sticky
    # header and the action bar (with its result line).
    assert tray is not None and tray["top"] >= header["bottom"] - 0.5, (tray, header)
    assert tray["bottom"] <= win["top"] + 0.5, (tray, win)
    assert win["bottom"] <= bar["top"] + 0.5, (
        f"the sea's window ends at {win['bottom']}, the bar starts at {bar['top']}"
    )
    return seen


def shown_squares(page: Page, root: str) -> set[str]:
    return {s["square"] for s in page.evaluate(SHOWN, root)["shown"]}


def look_at(page: Page, root: str, square: str, size: int = 10) -> None:
    """Bring a square into the window as a player does: tap the overview where it lies."""
    if square in shown_squares(page, root):
        return
    col = ord(square[0]) - ord("A")
    row = int(square[1:]) - 1
    box = page.locator(f"{root} .sea-map-grid").bounding_box()
    assert box, "no overview to tap"
    page.locator(f"{root} .sea-map").tap(
        position={
            "x": box["x"] - page.locator(f"{root} .sea-map").bounding_box()["x"] + (col + 0.5) * box["width"] / size,
            "y": box["y"] - page.locator(f"{root} .sea-map").bounding_box()["y"] + (row + 0.5) * box["height"] / size,
        }
    )
    assert square in shown_squares(page, root), f"{square} is not in view after a tap on the overview"


def place(page: Page, root: str, kind: str, square: str, expect: Any) -> None:
    chip = page.locator(f"{root} .tray-ship[data-kind={kind}]")
    chip.tap()
    expect(chip).to_have_attribute("aria-pressed", "true")
    look_at(page, root, square)
    page.locator(f"{root} .sea-cell[data-square={square}]").tap()
    expect(page.locator(f"{root} .ship-tools")).to_be_visible()


def ship_squares(page: Page, root: str) -> set[str]:
    return set(page.eval_on_selector_all(f"{root} .sea-cell.is-ship", "(cells) => cells.map((c) => c.dataset.square)"))


def browser_context(browser: Any, viewport: dict[str, int], lang: str) -> Any:
    ctx = browser.new_context(
        viewport=viewport,
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
        extra_http_headers={"Accept-Language": lang},
    )
    ctx.set_default_timeout(WAIT)
    return ctx


def new_air_raid(browser: Any, server: Server, players: dict[str, list[str]]) -> dict[str, Any]:
    referee = browser.new_context()
    referee.set_default_timeout(WAIT)
    referee.new_page().goto(server.link)
    teams = [{"name": "Orli", "players": players["A"]}, {"name": "Sharks", "players": players["B"]}]
    made = referee.request.post(
        server.base + "/api/games", data=json.dumps({"teams": teams}), headers={"Content-Type": "application/json"}
    )
    assert made.status == 201, made.text()
    return {"referee": referee, **made.json()}


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_a_ten_by_ten_air_raid_sea_is_placed_by_taps_on_a_small_phone(
    playwright_api: Any,  # noqa: F811
    server: Server,
    lang: str,
) -> None:
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    root = "#sea-editor"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            game = new_air_raid(browser, server, TEN)
            page = browser_context(browser, SMALL_PHONE, lang).new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(game["links"]["join"]["A"])
            expect(page.locator("#conn-badge")).to_have_attribute("data-state", "synced")
            expect(page.locator(f"{root} .tray-ship")).to_have_count(5)  # five kinds, eight ships
            two = page.locator(f"{root} .tray-ship[data-kind=two]")
            expect(two).to_have_attribute("data-count", "4")
            expect(two).to_contain_text("×4")
            seen = check_layout(page, root)
            assert seen["map"] is not None, "a zoomed sea shows its overview"
            assert len(seen["shown"]) < 100, "a window, not the whole sea"
            # The overview by keyboard: Enter steps to the next part, the arrow keys move a page.
            page.locator(f"{root} .sea-map").focus()
            for key, inside, outside in (
                ("Enter", "J1", "A1"),
                ("ArrowDown", "J10", "J1"),
                ("ArrowLeft", "A10", "J10"),
                ("ArrowUp", "A1", "A10"),
            ):
                page.keyboard.press(key)
                now = shown_squares(page, root)
                assert inside in now and outside not in now, (key, sorted(now))
            expect(page.locator(f"{root} .sea-map")).to_have_attribute("aria-label", re.compile("A1"))

            for n, (kind, square, squares) in enumerate(AIR_FLEET):
                if kind == "three":
                    # First where it touches the cruiser: the warning squares stay free to see and tap.
                    place(page, root, "three", "H2", expect)
                    expect(page.locator(f"{root} .sea-cell.is-touching").first).to_be_visible()
                    expect(page.locator("#result")).to_have_attribute("data-kind", "refused")
                    touching = page.eval_on_selector_all(
                        f"{root} .sea-cell.is-touching", "(cells) => cells.map((c) => c.dataset.square)"
                    )
                    assert len(touching) >= 2 and "H2" in touching, touching
                    seen = check_layout(page, root)
                    assert set(touching) & {s["square"] for s in seen["shown"]}, "the touching squares are in view"
                    page.screenshot(path=str(SHOTS / f"sea-editor-{lang}-airraid-touching.png"))
                    page.locator(f"{root} [data-tool=remove]").tap()
                    expect(page.locator(f"{root} .tray-ship[data-kind=three]")).to_be_visible()
                place(page, root, kind, square, expect)
                assert set(squares) <= ship_squares(page, root), (kind, squares)
                check_layout(page, root)  # with the ship selected: its tools above the sea
                if n == 0:
                    page.screenshot(path=str(SHOTS / f"sea-editor-{lang}-airraid-selected.png"))
                    # The toolbar still turns the ship: mirrored and back.
                    page.locator(f"{root} [data-tool=mirror]").tap()
                    expect(page.locator(f"{root} .sea-cell[data-square=C2]")).to_have_class(re.compile(r"\bis-ship\b"))
                    page.locator(f"{root} [data-tool=mirror]").tap()
                    expect(page.locator(f"{root} .sea-cell[data-square=B2]")).to_have_class(re.compile(r"\bis-ship\b"))
            # A tap on a placed ship selects it again, tools above the sea.
            look_at(page, root, "E8")
            page.locator(f"{root} .sea-cell[data-square=E8]").tap()
            expect(page.locator(f"{root} .ship-tools")).to_be_visible()
            check_layout(page, root)
            page.screenshot(path=str(SHOTS / f"sea-editor-{lang}-airraid-panned.png"))
            expect(page.locator(f"{root} .tray-done")).to_be_visible()
            expect(page.locator("#lock-sea")).to_have_attribute("aria-disabled", "false")
            page.locator("#lock-sea").tap()
            expect(page.locator("#sea-locked")).to_be_visible()
            view = game["referee"].request.get(f"{server.base}/api/games/{game['game']}/view").json()
            stored = sorted(sorted(s["squares"]) for s in view["seas"]["A"]["ships"])
            assert stored == sorted(sorted(sq) for _, _, sq in AIR_FLEET)
        finally:
            browser.close()
    assert not errors, errors


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_sjoslag_placement_fits_a_small_phone(playwright_api: Any, server: Server, lang: str) -> None:  # noqa: F811
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    root = "#bs-editor"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser_context(browser, SMALL_PHONE, lang).new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(server.base + "/battleship")
            made = page.request.post(
                server.base + "/api/battleship/games",
                data=json.dumps({"ruleset": "sjoslag", "opponent": "computer", "name": "Eva", "level": "easy"}),
                headers={"Content-Type": "application/json"},
            )
            assert made.status == 201, made.text()
            page.goto(made.json()["links"]["play"])
            expect(page.locator("#conn-badge")).to_have_attribute("data-state", "synced")
            # Ten ships, four chips in one row: ×1, ×2, ×3, ×4.
            chips = page.locator(f"{root} .tray-ship")
            expect(chips).to_have_count(4)
            counts = chips.evaluate_all("(cs) => cs.map((c) => [c.dataset.kind, Number(c.dataset.count)])")
            assert counts == [["battleship", 1], ["cruiser", 2], ["destroyer", 3], ["torpedo_boat", 4]], counts
            expect(page.locator(f"{root} .tray-ship[data-kind=torpedo_boat]")).to_contain_text("×4")
            tops = chips.evaluate_all("(cs) => cs.map((c) => Math.round(c.getBoundingClientRect().top))")
            assert len(set(tops)) == 1, f"the tray is one row: {tops}"
            seen = check_layout(page, root)
            page.screenshot(path=str(SHOTS / f"sea-editor-{lang}-sjoslag.png"))

            for n, (kind, square, squares) in enumerate(SEA_FLEET):
                place(page, root, kind, square, expect)
                if n == 0:
                    check_layout(page, root)
                    page.locator(f"{root} [data-tool=rotate]").tap()  # A1–D1 turns upright: C1–C4
                    expect(page.locator(f"{root} .sea-cell[data-square=C4]")).to_have_class(re.compile(r"\bis-ship\b"))
                    page.screenshot(path=str(SHOTS / f"sea-editor-{lang}-sjoslag-selected.png"))
                assert set(squares) <= ship_squares(page, root), (kind, squares)
                check_layout(page, root)

            # The keyboard: Enter on the chip, the arrow keys to G9 (the window follows), Enter.
            chip = page.locator(f"{root} .tray-ship[data-kind=torpedo_boat]")
            chip.focus()
            page.keyboard.press("Enter")
            expect(chip).to_have_attribute("aria-pressed", "true")
            page.locator(f"{root} .sea-cell[tabindex='0']").focus()
            for _ in range(12):
                at = page.evaluate("document.activeElement.dataset.square")
                if at == KEYED_TORPEDO:
                    break
                col, row = ord(at[0]) - ord(KEYED_TORPEDO[0]), int(at[1:]) - int(KEYED_TORPEDO[1:])
                page.keyboard.press(
                    "ArrowLeft" if col > 0 else "ArrowRight" if col < 0 else "ArrowUp" if row > 0 else "ArrowDown"
                )
            assert page.evaluate("document.activeElement.dataset.square") == KEYED_TORPEDO
            assert KEYED_TORPEDO in shown_squares(page, root), "the focused square scrolled into view"
            page.keyboard.press("Enter")
            expect(page.locator(f"{root} .sea-cell[data-square={KEYED_TORPEDO}]")).to_have_class(
                re.compile(r"\bis-ship\b")
            )
            check_layout(page, root)

            # A drag moves a ship (the torpedo boat at A9 down to A10).
            look_at(page, root, "A10")
            assert "A9" in shown_squares(page, root)
            # Read in one go: the check's answer redraws the squares at any moment.
            start, end = page.evaluate(
                "([root, squares]) => squares.map((sq) => { const r = document.querySelector("
                "`${root} .sea-cell[data-square=${sq}]`).getBoundingClientRect();"
                " return { x: r.x, y: r.y, width: r.width, height: r.height }; })",
                [root, ["A9", "A10"]],
            )
            page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
            page.mouse.down()
            page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=6)
            page.mouse.up()
            expect(page.locator(f"{root} .sea-cell[data-square=A10]")).to_have_class(re.compile(r"\bis-ship\b"))
            expect(page.locator(f"{root} .sea-cell[data-square=A9]")).not_to_have_class(re.compile(r"\bis-ship\b"))
            check_layout(page, root)

            ready = page.locator("#bs-ready")
            expect(ready).to_have_attribute("aria-disabled", "false")
            ready.tap()
            expect(page.locator("#bs-play")).to_be_visible()
            assert seen["zoomed"]
        finally:
            browser.close()
    assert not errors, errors


@pytest.mark.browser
def test_a_wider_phone_and_a_small_sea(playwright_api: Any, server: Server) -> None:  # noqa: F811
    """390×844: a 7×7 window of 48 px on a 10×10 sea; 360×740: a 7×7 sea keeps its whole grid."""
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    errors: list[str] = []
    root = "#sea-editor"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            big = new_air_raid(browser, server, TEN)
            page = browser_context(browser, PHONE, "en").new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(big["links"]["join"]["A"])
            expect(page.locator("#conn-badge")).to_have_attribute("data-state", "synced")
            place(page, root, "carrier", "C3", expect)
            seen = check_layout(page, root)
            assert seen["view"] == "7x7" and len(seen["shown"]) == 49, seen["view"]
            page.screenshot(path=str(SHOTS / "sea-editor-en-airraid-390.png"))

            small = new_air_raid(browser, server, {t: names[:4] for t, names in TEN.items()})
            page = browser_context(browser, SMALL_PHONE, "en").new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(small["links"]["join"]["A"])
            expect(page.locator("#conn-badge")).to_have_attribute("data-state", "synced")
            place(page, root, "carrier", "C3", expect)
            # The whole 7×7 grid, squares of 44 px and more; its last row may need the page
            # scrolled a little once the result line has grown the action bar.
            seen = check_layout(page, root, zoomed=False, in_view=False)
            assert len(seen["shown"]) == 49 and seen["map"] is None
            page.screenshot(path=str(SHOTS / "sea-editor-en-airraid-7x7.png"))
        finally:
            browser.close()
    assert not errors, errors


NODE_CHECKS = r"""
import assert from 'node:assert/strict';
const E = await import(process.argv[1]);
// a 10×10 sea at 360 px (336 for the editor): a window of 48 px squares or more
const z = E.zoomLayout({ width: 336, height: 300, cols: 10, rows: 10 });
assert.equal(z.zoom, true);
assert.ok(z.cell >= E.ZOOM_CELL && z.viewCols * z.cell + E.LABEL_W <= 336 && z.viewRows * z.cell + E.LABEL_H <= 300);
assert.deepEqual([z.viewCols, z.viewRows], [6, 5]);
// 7×7 at 360 px keeps the whole grid (44.6 px squares); so does 8×8 on a tablet
assert.deepEqual(E.zoomLayout({ width: 336, height: 300, cols: 7, rows: 7 }), { zoom: false });
assert.deepEqual(E.zoomLayout({ width: 600, height: 100, cols: 8, rows: 8 }), { zoom: false });
// never fewer than four rows, however short the screen
assert.equal(E.zoomLayout({ width: 336, height: 60, cols: 10, rows: 10 }).viewRows, 4);
// window stops: pages that end at the sea's edge
assert.deepEqual(E.viewStops(10, 6), [0, 4]);
assert.deepEqual(E.viewStops(10, 5), [0, 5]);
assert.deepEqual(E.viewStops(26, 6), [0, 6, 12, 18, 20]);
assert.deepEqual(E.viewStops(5, 6), [0]);
// Enter on the overview: the next part of the sea in reading order, then the start again
const v = { cols: 6, rows: 5 };
assert.deepEqual(E.nextView(0, 0, v, 10, 10), [4, 0]);
assert.deepEqual(E.nextView(4, 0, v, 10, 10), [0, 5]);
assert.deepEqual(E.nextView(2, 3, v, 10, 10), [0, 5]);   // from where a swipe left it
assert.deepEqual(E.nextView(4, 5, v, 10, 10), [0, 0]);
// the least move that shows a ship whole
assert.equal(E.revealShift(0, 6, 4, 7), 2);
assert.equal(E.revealShift(4, 6, 2, 3), -2);
assert.equal(E.revealShift(2, 6, 3, 5), 0);
assert.equal(E.revealShift(0, 3, 2, 6), 2);   // longer than the window: its front in view
console.log('zoom maths ok');
"""


def test_the_zoom_maths() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js not installed: the sea editor's zoom maths are not checked")
    editor = (ROOT / "static" / "js" / "lib" / "sea-editor.js").as_uri()
    result = subprocess.run(
        [node, "--input-type=module", "-e", NODE_CHECKS, editor], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "zoom maths ok" in result.stdout
