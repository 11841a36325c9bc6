"""A whole short air-raid game played through the pages, as the people at a club night would.

The real `referee serve` runs as a subprocess (tests/live_server.py); Debian's Chromium plays
every role in its own browser context (own cookies): the referee on a laptop (1280×800), the two
team bases and two pilots on phones (390×844), and the projector. The ruleset uploaded in the
New game form gives each team ONE ship-two, so two hits end the game:

 1. the referee opens the printed link, New game, two teams of four, the changed ruleset;
 2. both teams join by the links the dashboard shows and land on the Sea tab;
 3. team A locks a Random fleet, team B places its ship-two by hand at B2–C2 and locks;
 4. the referee starts the game; the defenders are chosen; A orders two bombers (upper → B2,
    middle → C2), B one fighter (upper);
 5. A's slips page shows both pilots, their targets and a QR code per slip;
 6. the referee starts the round: the countdown runs on the dashboard and on a team phone;
 7. the upper dogfight is reported on the bomber's slip page and confirmed on the fighter's;
 8. team B's defender types the first bomber's target: FIGHT, "Bomber won", HIT;
 9. the second bomber (picked from the list) sinks the ship-two;
10. team A wins: the dashboard, both team pages and the projector say so.

Every step asserts what the pages show and leaves a screenshot in test-artifacts/e2e/NN-name.png.
Skipped, with the reason, without /usr/bin/chromium or Playwright (REFEREE_REQUIRE_BROWSER=1: fail).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..live_server import ROOT, Server

if TYPE_CHECKING:
    from playwright.sync_api import Page

ARTIFACTS = ROOT / "test-artifacts" / "e2e"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PLAYERS = {"A": ["Ann", "Ada", "Abe", "Amy"], "B": ["Bob", "Bea", "Ben", "Bo"]}
WAIT = 15_000  # ms: the longest a socket push may take on a busy machine


def _missing(reason: str) -> None:
    if os.environ.get("REFEREE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (REFEREE_REQUIRE_BROWSER=1)")
    pytest.skip(reason)


def one_ship_ruleset(folder: Path) -> Path:
    """A copy of the standard ruleset where every sea size's fleet is one ship-two."""
    text = (ROOT / "config" / "rulesets" / "airraid.toml").read_text(encoding="utf-8")
    changed, n = re.subn(r"(?m)^fleet = \{[^}]*\}$", "fleet = { two = 1 }", text)
    assert n == 4, "the standard ruleset has four sea sizes"
    path = folder / "one-ship-two.toml"
    path.write_text(changed, encoding="utf-8")
    return path


def clock_seconds(text: str) -> int:
    match = re.fullmatch(r"(\d+):(\d\d)", text.strip())
    assert match, f"not a countdown: {text!r}"
    return int(match.group(1)) * 60 + int(match.group(2))


@pytest.fixture
def playwright_api() -> Any:
    """Playwright's sync API, once Chromium and Playwright are known to be here (else skip or fail)."""
    if not CHROMIUM.exists():
        _missing(f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests")
    try:
        from playwright import sync_api
    except ImportError:
        _missing("Playwright for Python is not installed (pip install '.[test]')")
    return sync_api


@pytest.mark.browser
def test_a_whole_game_through_the_pages(playwright_api: Any, server: Server, tmp_path: Path) -> None:
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    ruleset = one_ship_ruleset(tmp_path)
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

                def watch_page(page: Page) -> None:
                    page.on("pageerror", lambda exc: errors.append(f"{label} {page.url}: {exc}"))
                    page.on(
                        "console",
                        lambda msg: (
                            errors.append(f"{label} {page.url} console: {msg.text}") if msg.type == "error" else None
                        ),
                    )

                ctx.on("page", watch_page)
                return ctx

            def shot(page: Page, number: int, name: str, focus: Any = None, whole: bool | None = None) -> None:
                """A phone: the screen as its holder sees it (scrolled to `focus`); a laptop: the whole page."""
                page.evaluate("window.scrollTo(0, 0)")
                if focus is not None:
                    focus.scroll_into_view_if_needed()
                narrow = (page.viewport_size or LAPTOP)["width"] < 600
                if narrow:
                    assert page.evaluate(
                        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
                    ), f"{name}: sideways scroll"
                if whole is None:
                    whole = not narrow
                page.screenshot(path=str(ARTIFACTS / f"{number:02d}-{name}.png"), full_page=whole)

            def synced(page: Page) -> None:
                expect(page.locator("#conn-badge")).to_have_attribute("data-state", "synced")

            # ------------------------------------------------ 1. the referee makes a game
            ref = context("referee", LAPTOP, phone=False).new_page()
            ref.goto(server.link)
            new_game = ref.get_by_role("link", name="New game")
            expect(new_game).to_be_visible()
            shot(ref, 1, "referee-home")
            new_game.click()
            expect(ref).to_have_url(re.compile(r"/games/new$"))
            expect(ref.get_by_role("heading", name="New air-raid game")).to_be_visible()
            for key, name, team in (("team1", "Eagles", "A"), ("team2", "Sharks", "B")):
                ref.locator(f"#{key}_name").fill(name)
                ref.locator(f"#{key}_players").fill("\n".join(PLAYERS[team]))
                expect(ref.locator(f'[data-count-for="{key}_players"]')).to_have_text("4 players")
            ref.get_by_text("Changed rules (optional)").click()
            ref.locator("#ruleset_file").set_input_files(str(ruleset))
            shot(ref, 1, "referee-new-game")
            ref.get_by_role("button", name="Create game").click()
            expect(ref).to_have_url(re.compile(r"/g/[^/]+/referee$"))
            gid = ref.url.rstrip("/").split("/")[-2]
            synced(ref)
            expect(ref.locator("#round-phase")).to_have_text("Setting up: teams place their ships")
            expect(ref.locator("#main-action")).to_have_text("Start game")
            expect(ref.locator("#main-action")).to_be_disabled()
            expect(ref.locator("#main-why")).to_have_text("Waiting for the sea of Eagles and Sharks.")
            shot(ref, 1, "referee-dashboard")

            # ------------------------------------------------ 2. both teams join
            phones: dict[str, Page] = {}
            for team in "AB":
                link = ref.locator(f"#join-url-{team}").inner_text().strip()
                assert f"/g/{gid}/team?t=" in link, link
                assert ref.locator(f"#join-qr-{team} svg").count() == 1
                page = context(f"team {team}", PHONE, phone=True).new_page()
                page.goto(link)
                expect(page).to_have_url(re.compile(rf"/g/{gid}/team"))
                synced(page)
                expect(page.locator("#tab-sea")).to_have_attribute("aria-selected", "true")
                expect(page.locator("#panel-sea")).to_be_visible()
                # The uploaded ruleset took: one ship to place, a ship-two.
                expect(page.locator(".tray-ship")).to_have_count(1)
                expect(page.locator(".tray-ship[data-kind=two]")).to_contain_text("ship-two")
                phones[team] = page
            team_a, team_b = phones["A"], phones["B"]
            expect(team_a.locator(".app-title")).to_contain_text("Eagles")
            expect(team_b.locator(".app-title")).to_contain_text("Sharks")
            shot(team_a, 2, "team-a-joined")
            shot(team_b, 2, "team-b-joined")

            # ------------------------------------------------ 3. the fleets
            team_a.get_by_role("button", name="Random").tap()
            expect(team_a.locator("#sea-editor .sea-cell.is-ship")).to_have_count(2)
            expect(team_a.locator("#result")).to_contain_text("The sea is legal")
            expect(team_a.locator("#lock-sea")).to_have_attribute("aria-disabled", "false")
            team_a.get_by_role("button", name="Lock sea").tap()
            expect(team_a.locator("#sea-locked")).to_be_visible()
            expect(team_a.locator("#sea-locked")).to_contain_text("Locked — waiting for the referee to start the game")

            team_b.locator(".tray-ship[data-kind=two]").tap()
            expect(team_b.locator(".tray-ship[data-kind=two]")).to_have_attribute("aria-pressed", "true")
            expect(team_b.locator(".editor-hint")).to_contain_text("Now tap the square for the front of the ship-two")
            team_b.locator("#sea-editor .sea-cell[data-square=B2]").tap()
            for square in ("B2", "C2"):
                expect(team_b.locator(f"#sea-editor .sea-cell[data-square={square}]")).to_have_class(
                    re.compile(r"\bis-ship\b")
                )
            expect(team_b.locator("#sea-editor .sea-cell.is-ship")).to_have_count(2)
            expect(team_b.locator(".tray-done")).to_have_text("All ships are on the sea.")
            expect(team_b.locator("#result")).to_contain_text("The sea is legal")
            expect(team_b.locator("#lock-sea")).to_have_attribute("aria-disabled", "false")
            shot(team_b, 3, "team-b-placed-by-hand")
            team_b.get_by_role("button", name="Lock sea").tap()
            expect(team_b.locator("#sea-locked")).to_be_visible()
            for square in ("B2", "C2"):
                expect(team_b.locator(f"#locked-grid .sea-cell[data-square={square}]")).to_have_class(
                    re.compile(r"\bis-ship\b")
                )
            shot(team_a, 3, "team-a-locked-random")
            shot(team_b, 3, "team-b-locked")
            for team in "AB":
                expect(ref.locator(f'[data-lock="{team}"]')).to_contain_text("sea locked")
            expect(ref.locator("#main-action")).to_be_enabled()
            expect(ref.locator("#main-why")).to_have_text("")
            shot(ref, 3, "referee-both-locked")

            # ------------------------------------------------ 4. start; defenders and orders
            ref.locator("#main-action").click()
            expect(ref.locator("#round-phase")).to_have_text("Planning: defenders and orders")
            expect(ref.locator("#round-number")).to_have_text("Round 1")
            expect(ref.locator("#main-action")).to_have_text("Start round 1")
            expect(ref.locator("#main-why")).to_have_text("Each team needs a defender first: Eagles and Sharks.")
            for page in (team_a, team_b):
                expect(page.locator("#tab-orders")).to_have_attribute("aria-selected", "true")
                expect(page.locator("#defender-card")).to_be_visible()

            def choose_defender(page: Page, name: str) -> None:
                page.locator("#defender-chips").get_by_role("button", name=name, exact=True).tap()
                expect(page.locator("#defender-name")).to_have_text(name)
                expect(page.locator("#result")).to_contain_text(f"{name} defends the base this round")

            def add_order(page: Page, pilot: str, plane: str, corridor: str, target: str | None) -> None:
                page.locator("#pilot-chips").get_by_role("button", name=pilot, exact=True).tap()
                page.locator(f'[data-key="plane-{plane}"]').tap()
                page.locator(f'[data-key="corr-{corridor}"]').tap()
                if target:
                    page.locator(f"#target-grid .sea-cell[data-square={target}]").tap()
                    expect(page.locator("#target-picked")).to_have_text(target)
                summary = page.locator("#order-summary")
                expect(summary).to_have_attribute("data-ready", "true")
                expect(summary).to_contain_text(f"{pilot} · {plane.split('-')[1]}")
                expect(summary).to_contain_text(f"{corridor} 1")
                page.locator("#add-order").tap()
                expect(page.locator("#result")).to_contain_text(f"Order added for {pilot}")
                expect(page.locator("#order-list")).to_contain_text(pilot)

            choose_defender(team_b, "Bo")
            choose_defender(team_a, "Amy")
            expect(ref.locator("#main-why")).to_have_text("")
            add_order(team_a, "Ann", "A-bomber", "upper", "B2")
            add_order(team_a, "Ada", "A-bomber", "middle", "C2")
            add_order(team_b, "Bob", "A-fighter", "upper", None)
            orders_a = team_a.locator("#order-list .order-item")
            expect(orders_a).to_have_count(2)
            expect(orders_a.filter(has_text="Ann")).to_contain_text("B2")
            expect(orders_a.filter(has_text="Ada")).to_contain_text("C2")
            expect(team_b.locator("#order-list .order-item")).to_have_count(1)
            shot(team_a, 4, "team-a-orders", focus=team_a.locator("#list-card"))
            shot(team_b, 4, "team-b-orders", focus=team_b.locator("#list-card"))
            expect(ref.locator("#corridors")).to_contain_text("Ann")
            expect(ref.locator("#corridors")).to_contain_text("Bob")
            expect(ref.locator("#main-action")).to_be_enabled()
            shot(ref, 4, "referee-planned")

            # ------------------------------------------------ 5. the slips
            def open_slips(page: Page) -> Page:
                with page.context.expect_page() as opened:
                    page.get_by_role("link", name="Print slips").tap()
                slips = opened.value
                slips.wait_for_load_state()
                expect(slips).to_have_url(re.compile(rf"/g/{gid}/slips\?round=1$"))
                return slips

            def slip_url(slips: Page, pilot: str) -> str:
                url = (
                    slips.locator(".slip").filter(has_text=f"Pilot: {pilot}").locator(".slip-url").inner_text().strip()
                )
                assert re.fullmatch(rf"{re.escape(server.base)}/s/\S+", url), url
                return url

            slips_a = open_slips(team_a)
            expect(slips_a.get_by_role("heading", name="Order slips · Round 1")).to_be_visible()
            expect(slips_a.locator(".slip")).to_have_count(2)
            expect(slips_a.locator(".slip-qr svg")).to_have_count(2)
            ann_slip = slips_a.locator(".slip").filter(has_text="Pilot: Ann")
            expect(ann_slip.locator(".slip-target")).to_contain_text("B2")
            expect(ann_slip.locator(".slip-corridor")).to_have_text("upper")
            ada_slip = slips_a.locator(".slip").filter(has_text="Pilot: Ada")
            expect(ada_slip.locator(".slip-target")).to_contain_text("C2")
            expect(ada_slip.locator(".slip-corridor")).to_have_text("middle")
            expect(slips_a.locator(".slip")).not_to_contain_text(["Bob"])  # B's orders stay secret
            bomber_url = slip_url(slips_a, "Ann")
            shot(slips_a, 5, "team-a-slips", whole=True)
            slips_b = open_slips(team_b)
            expect(slips_b.locator(".slip")).to_have_count(1)
            expect(slips_b.locator(".slip-qr svg")).to_have_count(1)
            expect(slips_b.locator(".slip-target")).to_contain_text("no target")
            fighter_url = slip_url(slips_b, "Bob")
            shot(slips_b, 5, "team-b-slips", whole=True)
            slips_a.close()
            slips_b.close()

            # ------------------------------------------------ 6. the round starts; the clock runs
            ref.get_by_role("button", name="Start round 1").click()
            expect(ref.locator("#round-phase")).to_have_text("In the air")
            expect(team_a.locator("#tab-live")).to_have_attribute("aria-selected", "true")
            expect(team_a.locator("#round-head")).to_have_text("Round 1: in the air")
            for page, name in ((ref, "referee"), (team_a, "team A")):
                timer = page.locator("#timer")
                expect(timer).to_have_text(re.compile(r"^[45]:\d\d$"))
                first = timer.inner_text()
                expect(timer).not_to_have_text(first)  # a second later
                second = timer.inner_text()
                assert clock_seconds(second) < clock_seconds(first), (name, first, second)
            # The middle bomber met nobody: it waits at B's base already.
            expect(team_b.locator("#tab-live")).to_have_attribute("aria-selected", "true")
            expect(team_b.locator("#bombing-card")).to_be_visible()
            expect(team_b.locator("#bombing-text")).to_have_text("1 enemy bomber at our base")
            shot(ref, 6, "referee-round-running")
            shot(team_a, 6, "team-a-live")

            # ------------------------------------------------ 7. a dogfight, reported by the pilots
            bomber = context("pilot Ann", PHONE, phone=True).new_page()
            bomber.goto(bomber_url)
            fighter = context("pilot Bob", PHONE, phone=True).new_page()
            fighter.goto(fighter_url)
            for page in (bomber, fighter):
                synced(page)
            expect(bomber.locator("#pilot-headline")).to_have_text("You meet B1 (fighter)")
            expect(bomber.locator("#pilot-target")).to_have_text("B2")
            expect(fighter.locator("#pilot-headline")).to_have_text("You meet A1 (bomber)")
            shot(bomber, 7, "pilot-bomber-meets")
            # The bomber won the first throw; the fighter's pilot chose to pass.
            bomber.locator("[data-pick=won]").tap()
            expect(bomber.locator("#pilot-action .pilot-ask")).to_have_text("B1 lost the throw. What did B1 choose?")
            bomber.locator("[data-pick=pass]").tap()
            expect(bomber.locator("#pilot-action")).to_contain_text("You reported: B1 passed — both fly on")
            shot(bomber, 7, "pilot-bomber-reported")
            report = fighter.locator("#pilot-action .pilot-their-report")
            expect(report).to_contain_text("A1 reports: you passed — both fly on")
            expect(report).to_contain_text("first throw: A1 won · you passed")
            shot(fighter, 7, "pilot-fighter-confirms")
            # A person reads before tapping: the page ignores taps on buttons that changed <0.7 s ago.
            fighter.wait_for_timeout(800)
            fighter.get_by_role("button", name="Confirm").tap()
            expect(fighter.locator("#pilot-result")).to_have_text("Dogfight with A1 decided: you fly on.")
            expect(fighter.locator("#pilot-headline")).to_have_text("Flown through — fly home")
            expect(bomber.locator("#pilot-headline")).to_have_text("Flown through — go bomb B2")
            expect(bomber.locator("#pilot-result")).to_have_text("Dogfight with B1 decided: you fly on.")
            decided = ref.locator('#corridors td.meet[data-status="done"]')
            expect(decided).to_have_count(1)
            expect(decided).to_contain_text("passed each other")
            expect(ref.locator("#log")).to_contain_text(
                "Dogfight in the upper corridor, A1 (Ann) vs B1 (Bob): passed each other"
            )
            expect(ref.locator("#attention .attn-dogfight")).to_have_count(0)
            shot(fighter, 7, "pilot-fighter-decided")
            shot(ref, 7, "referee-dogfight-decided")

            # ------------------------------------------------ 8. the first bombing: typed square, FIGHT, HIT
            expect(team_b.locator("#bombing-text")).to_have_text("2 enemy bombers at our base")
            expect(team_b.locator("#bomber-chips button")).to_have_count(2)
            shot(team_b, 8, "team-b-bombers-waiting")
            team_b.locator("#bomb-square").fill("b2")
            team_b.get_by_role("button", name="Check square").tap()
            expect(team_b.locator("#verdict")).to_have_text("FIGHT")
            expect(team_b.locator("#bombing-text")).to_contain_text("bombs B2")
            expect(bomber.locator("#pilot-headline")).to_have_text("FIGHT at B2")
            shot(team_b, 8, "team-b-fight")
            team_b.get_by_role("button", name="Bomber won").tap()
            expect(team_b.locator("#verdict")).to_have_text("HIT")
            expect(team_b.locator("#bombing-text")).to_contain_text("is hit at B2")
            expect(team_b.locator("#play-grid .sea-cell[data-square=B2]")).to_have_class(re.compile(r"\bis-hit\b"))
            expect(bomber.locator("#pilot-headline")).to_have_text("Hit at B2! Fly home")
            expect(ref.locator("#log")).to_contain_text("Hit! Sharks at B2")
            shot(team_b, 8, "team-b-hit")
            shot(bomber, 8, "pilot-bomber-hit")

            # ------------------------------------------------ 9. the second bombing sinks the ship-two
            team_b.get_by_role("button", name="OK, next").tap()
            expect(team_b.locator("#bombing-text")).to_have_text("1 enemy bomber at our base")
            chips = team_b.locator("#bomber-chips button")
            expect(chips).to_have_count(1)
            expect(chips).to_have_text(re.compile(r"^A\d+ · middle$"))  # the label and its corridor
            chips.first.tap()
            expect(team_b.locator("#verdict")).to_have_text("FIGHT")
            expect(team_b.locator("#bombing-text")).to_contain_text("bombs C2")
            team_b.get_by_role("button", name="Bomber won").tap()
            expect(team_b.locator("#verdict")).to_have_text("SUNK")
            expect(team_b.locator("#bombing-text")).to_contain_text("is sunk")
            for square in ("B2", "C2"):
                expect(team_b.locator(f"#play-grid .sea-cell[data-square={square}]")).to_have_class(
                    re.compile(r"\bis-sunk\b")
                )
            shot(team_b, 9, "team-b-sunk")

            # ------------------------------------------------ 10. the winner, everywhere
            expect(ref.locator("#round-phase")).to_contain_text("Eagles won")
            expect(ref.locator("#round-phase")).to_contain_text("Sharks has no ship afloat")
            expect(ref.locator("#log")).to_contain_text("Game over: Eagles won")
            for page, sub, result in ((team_a, "Well flown!", "win"), (team_b, "Better luck next game.", "loss")):
                card = page.locator("#outcome-card")
                expect(card).to_be_visible()
                expect(card).to_have_attribute("data-result", result)
                expect(page.locator("#outcome-title")).to_have_text("Winner: Eagles")
                expect(page.locator("#outcome-sub")).to_have_text(sub)
            watch = context("projector", LAPTOP, phone=False).new_page()
            watch.goto(f"{server.base}/g/{gid}/watch")
            synced(watch)
            expect(watch.locator("#winner")).to_be_visible()
            expect(watch.locator("#winner-name")).to_contain_text("Eagles won")
            expect(watch.locator("[data-sunk=B]")).to_have_text("Sunk: ship-two")
            expect(bomber.locator("#pilot-banner")).to_contain_text("The game is over.")
            shot(ref, 10, "referee-winner")
            shot(team_a, 10, "team-a-winner")
            shot(team_b, 10, "team-b-winner")
            shot(watch, 10, "projector-winner")
            shot(bomber, 10, "pilot-bomber-game-over")
            assert not errors, errors
        finally:
            browser.close()
