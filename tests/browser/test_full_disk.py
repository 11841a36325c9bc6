"""A full disk loses no phone's entry, and the referee sees that nothing is saved.

The server's instance folder (its SQLite database) is a small tmpfs of its own. Mid-planning the
disk is filled to the last byte. Team A's phone (360×740) picks its defender: the server cannot
store it and answers "busy". The phone keeps the entry, says that it is not saved yet (never
"refused"), and keeps it across a reload of the page; the referee's dashboard (1366×768) shows a
warning that stays up; the game's view is unchanged. Once space is freed the phone's own retry
stores the entry once, the phone shows the defender, and the warning goes. In English and Czech;
screenshots in test-artifacts/screenshots/full-disk/.

Needs root for the mount (CI runs as root); elsewhere it skips, or fails under
REFEREE_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import errno
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..live_server import ROOT, Server, post_json
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, _missing, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "full-disk"
PHONE = {"width": 360, "height": 740}
REFEREE_SCREEN = {"width": 1366, "height": 768}
TEAMS = [
    {"name": "Eagles", "players": ["Ann", "Ada", "Abe", "Amy"]},
    {"name": "Sharks", "players": ["Bob", "Bea", "Ben", "Bo"]},
]
# The words each language's pages use (the catalogues' own translations).
WORDS = {
    "en": {
        "busy": "could not save this yet",
        "alert": "cannot save anything",
        "waiting": "not saved",
        "saved": "Saved:",
    },
    "cs": {"busy": "zatím nemohl uložit", "alert": "nemůže nic uložit", "waiting": "neuloženo", "saved": "Uloženo:"},
}


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs mounted for this test alone."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        _missing(f"cannot mount a small tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Fill the disk to its last byte with one file; return it."""
    filler = disk / "filler"
    block = b"\0" * 65536
    with filler.open("wb") as f:
        try:
            while True:
                f.write(block)
                f.flush()
        except OSError as e:
            assert e.errno == errno.ENOSPC, e
    # Then the last partial block's bytes.
    try:
        with filler.open("ab") as f:
            while True:
                f.write(b"\0" * 512)
                f.flush()
    except OSError as e:
        assert e.errno == errno.ENOSPC, e
    return filler


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_a_full_disk_keeps_the_phones_entry_and_warns_the_referee(
    playwright_api: Any,  # noqa: F811
    small_disk: Path,
    lang: str,
) -> None:
    expect, sync_playwright = playwright_api.expect, playwright_api.sync_playwright
    words = WORDS[lang]
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    server = Server(small_disk / "instance")
    server.start()

    def shot(page: Any, name: str) -> None:
        page.screenshot(path=str(SHOTS / f"{lang}-{name}.png"))

    try:
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

                def view() -> dict[str, Any]:
                    answer = referee_ctx.request.get(f"{server.base}/api/games/{gid}/view")
                    assert answer.status == 200, answer.status
                    data: dict[str, Any] = answer.json()
                    return data

                made = post("/api/games", {"teams": TEAMS})
                gid = made["game"]
                for team in "AB":
                    ships = post(f"/api/games/{gid}/sea/random", {"team": team})["ships"]
                    post(f"/api/games/{gid}/actions", {"action": {"type": "lock_sea", "team": team, "ships": ships}})
                post(f"/api/games/{gid}/actions", {"action": {"type": "start_game"}})

                referee.goto(f"{server.base}/g/{gid}/referee")
                alert = referee.locator("#store-alert")
                expect(referee.locator("#conn-badge")).to_have_attribute("data-state", "synced")
                expect(alert).to_be_hidden()

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
                phone.goto(made["links"]["join"]["A"])
                badge = phone.locator("#conn-badge")
                expect(badge).to_have_attribute("data-state", "synced")
                expect(phone.locator("#defender-card")).to_be_visible()
                version = view()["version"]

                filler = fill(small_disk)
                phone.locator("#defender-chips").get_by_role("button", name="Amy", exact=True).tap()
                result = phone.locator("#result")
                expect(result).to_contain_text(words["busy"])
                expect(result).to_have_attribute("data-kind", "queued")
                expect(badge).to_contain_text(words["waiting"])
                expect(alert).to_be_visible()
                expect(alert).to_contain_text(words["alert"])
                shot(phone, "phone-waiting")
                shot(referee, "referee-warning")
                assert view()["version"] == version, "nothing was stored"

                # The entry outlives the page: reloaded, the phone sends it again, and still waits.
                phone.reload()
                expect(result).to_contain_text(words["busy"])
                expect(badge).to_contain_text(words["waiting"])
                assert phone.evaluate("() => window.teamPage.conn.outbox.size") == 1
                expect(alert).to_be_visible()
                assert "A" not in view()["defenders"], view()["defenders"]

                filler.unlink()
                expect(phone.locator("#defender-name")).to_have_text("Amy", timeout=30_000)
                expect(badge).to_have_attribute("data-state", "synced")
                expect(result).to_contain_text(words["saved"])
                expect(result).to_have_attribute("data-kind", "ok")
                expect(alert).to_be_hidden()
                assert phone.evaluate("() => window.teamPage.conn.outbox.size") == 0
                after = view()
                assert after["version"] == version + 1, "stored once"
                assert after["defenders"]["A"] == "Amy", after["defenders"]
                shot(phone, "phone-stored")
                shot(referee, "referee-saving-again")
            finally:
                browser.close()
    finally:
        server.stop()
    assert "Traceback" not in server.tail(400), server.tail(60)
    assert not errors, errors
