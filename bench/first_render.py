"""First render of the team and pilot pages on a slow-3G phone: FCP, DOMContentLoaded and load.

    .venv/bin/python bench/first_render.py [--runs 3]

Starts a real `referee serve`, creates a game, joins team A and writes one order (as
bench/page_weight.py does), then opens each page in headless Debian Chromium (Playwright,
/usr/bin/chromium, never a downloaded browser) with a phone viewport, a fresh browser context
per run (cold cache, cache disabled too) and the network throttled through the Chrome DevTools
Protocol (`Network.emulateNetworkConditions`): 400 ms latency, 400 kbit/s down and up, the
"Slow 3G" profile of Lighthouse and the issue. First Contentful Paint comes from the Performance
API (`first-contentful-paint`), DOMContentLoaded and load from the navigation entry, and the
arrival of the last script (after the network goes idle: static/js/lib/boot.js fetches the scripts
only after the first paint, so they may come after `load`), all in ms from the start of
navigation. Baseline in the same run: a one-line HTML page from a bare Python HTTP server on the
same machine under the same throttling (the floor: one request).
A diagnostic row loads the team page with its scripts refused: the floor our HTML and CSS set.
Each page is opened once unthrottled first (not measured), so neither the server's template
compilation nor its one-off Brotli 11 compression of the static files is counted.
Goal (issue 4): FCP < 1.5 s.
"""

from __future__ import annotations

import argparse
import http.server
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402

from tests.airraid_helpers import PLAYERS  # noqa: E402
from tests.live_server import Server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
SLOW_3G = {"offline": False, "latency": 400, "downloadThroughput": 400_000 / 8, "uploadThroughput": 400_000 / 8}
GOAL_MS = 1500.0

TIMINGS_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const resources = performance.getEntriesByType('resource');
  const scripts = resources.filter((r) => r.name.endsWith('.js')).map((r) => r.responseEnd);
  return {fcp: fcp ? fcp.startTime : null, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
          scripts: scripts.length ? Math.max(...scripts) : 0,
          bytes: resources.reduce((s, r) => s + r.transferSize, nav.transferSize)};
}"""


def set_up(server: Server) -> tuple[dict[str, str], str, str]:
    """Create a game with one order; return the team's cookies, the team page and a pilot slip URL."""
    ref = requests.Session()
    ref.get(server.link, allow_redirects=False, timeout=10)
    base = server.base
    created = ref.post(
        f"{base}/api/games",
        json={"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]},
        timeout=10,
    ).json()
    gid = created["game"]
    team = requests.Session()
    team.get(re.sub(r"^https?://[^/]+", base, created["links"]["join"]["A"]), allow_redirects=False, timeout=10)
    for t in "AB":
        ships = ref.post(f"{base}/api/games/{gid}/sea/random", json={"team": t}, timeout=10).json()["ships"]
        assert ref.post(
            f"{base}/api/games/{gid}/actions",
            json={"action": {"type": "lock_sea", "team": t, "ships": ships}},
            timeout=10,
        ).json()["ok"]
    assert ref.post(f"{base}/api/games/{gid}/actions", json={"action": {"type": "start_game"}}, timeout=10).json()["ok"]
    order = {"type": "add_order", "team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"}
    answer = team.post(f"{base}/api/games/{gid}/actions", json={"action": order}, timeout=10)
    assert answer.status_code == 200, answer.text
    slip = team.get(f"{base}/api/games/{gid}/slips", timeout=10).json()["slips"][0]["url"]
    return dict(team.cookies), f"{base}/g/{gid}/team", re.sub(r"^https?://[^/]+", base, slip)


class Baseline(http.server.BaseHTTPRequestHandler):
    """A one-line page: what any page costs on this network before its own bytes."""

    def do_GET(self) -> None:
        body = b"<!doctype html><title>x</title><p>Baseline</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


def measure(browser: Any, url: str, cookies: dict[str, str], block_scripts: bool = False) -> dict[str, float]:
    """Open `url` once in a fresh context on slow 3G (scripts refused if `block_scripts`); return its timings."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-US")
    try:
        if cookies:
            context.add_cookies([{"name": k, "value": v, "url": url} for k, v in cookies.items()])
        page = context.new_page()
        if block_scripts:
            page.route("**/*.js", lambda route: route.abort())
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        cdp.send("Network.emulateNetworkConditions", SLOW_3G)
        response = page.goto(url, wait_until="load", timeout=60_000)
        assert response is not None and response.status == 200, (url, response and response.status)
        page.wait_for_function(
            "() => performance.getEntriesByName('first-contentful-paint').length > 0", timeout=30_000
        )
        page.wait_for_load_state("networkidle", timeout=60_000)  # the scripts boot.js fetches after the paint
        timings: dict[str, float] = page.evaluate(TIMINGS_JS)
        return timings
    finally:
        context.close()


def warm_up(browser: Any, pages: list[tuple[str, dict[str, str]]]) -> None:
    """Open each page once unthrottled, then wait for the server's kept Brotli copies of its files.

    The server's first render compiles templates, and static files are compressed at Brotli 11 in
    the background after their first request (referee/web/precompress.py): neither is a phone's
    cost once the server has served one phone.
    """
    assets: set[str] = set()
    for url, cookies in pages:
        context = browser.new_context()
        try:
            if cookies:
                context.add_cookies([{"name": k, "value": v, "url": url} for k, v in cookies.items()])
            page = context.new_page()
            page.goto(url, wait_until="load", timeout=60_000)
            page.wait_for_load_state("networkidle", timeout=60_000)
            assets.update(page.evaluate("() => performance.getEntriesByType('resource').map((r) => r.name)"))
        finally:
            context.close()
    deadline = time.monotonic() + 30
    for asset in sorted(a for a in assets if "/static/" in a):
        while time.monotonic() < deadline:
            answer = requests.get(asset, headers={"Accept-Encoding": "br"}, timeout=30)
            # The kept copy has a length; an on-the-fly compression is streamed without one.
            if answer.headers.get("Content-Encoding") != "br" or "Content-Length" in answer.headers:
                break
            time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    baseline_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Baseline)
    threading.Thread(target=baseline_server.serve_forever, daemon=True).start()
    baseline_url = f"http://127.0.0.1:{baseline_server.server_address[1]}/"
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "instance")
        server.start()
        try:
            cookies, team_url, pilot_url = set_up(server)
            pages = [
                ("baseline (one-line page)", baseline_url, {}, False),
                ("team page", team_url, cookies, False),
                ("pilot page", pilot_url, {}, False),
                ("team page, scripts refused (HTML + CSS only)", team_url, cookies, True),
            ]
            results: dict[str, list[dict[str, float]]] = {name: [] for name, _, _, _ in pages}
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    warm_up(browser, [(url, jar) for _name, url, jar, block in pages if not block])
                    for _ in range(args.runs):
                        for name, url, jar, block in pages:
                            results[name].append(measure(browser, url, jar, block))
                finally:
                    browser.close()
        finally:
            server.stop()
            baseline_server.shutdown()
    print(f"slow 3G (400 ms latency, 400 kbit/s each way), cold cache, phone viewport; median of {args.runs} runs")
    base_fcp = statistics.median(r["fcp"] for r in results[pages[0][0]])
    for name, _, _, _ in pages:
        runs = results[name]
        fcp = statistics.median(r["fcp"] for r in runs)
        dcl = statistics.median(r["dcl"] for r in runs)
        load = statistics.median(r["load"] for r in runs)
        kib = statistics.median(r["bytes"] for r in runs) / 1024
        scripts = statistics.median(r["scripts"] for r in runs)
        verdict = (
            ""
            if name.startswith("baseline")
            else f"; {fcp / base_fcp:.1f}x baseline; goal FCP < {GOAL_MS:.0f} ms: "
            + ("met" if fcp < GOAL_MS else f"MISSED by {fcp - GOAL_MS:.0f} ms")
        )
        print(
            f"  {name}: FCP {fcp:.0f} ms, DOMContentLoaded {dcl:.0f} ms, load {load:.0f} ms, "
            f"last script in {scripts:.0f} ms, {kib:.1f} KiB transferred{verdict}"
        )


if __name__ == "__main__":
    main()
