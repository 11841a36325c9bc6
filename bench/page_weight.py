"""Compressed bytes of the team and pilot pages with everything they load, as the server sends them.

    .venv/bin/python bench/page_weight.py

Creates a game in a temporary instance, joins team A, writes one order, then fetches each page
with `Accept-Encoding: gzip, deflate, br, zstd` (as Chromium asks) and follows its stylesheets,
scripts, ES-module imports and the scripts static/js/lib/boot.js loads (data-module, data-socketio,
data-preload).
Every page is fetched twice: the first time makes the server's kept Brotli copies of the static
files (referee/web/precompress.py), the second is measured, as a phone after the first would see.
Goal (issue 4): the team page < 80,000 bytes compressed in total.
"""

from __future__ import annotations

import argparse
import posixpath
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flask.testing import FlaskClient  # noqa: E402

from referee.web import create_app, precompress  # noqa: E402
from referee.web.access import issue_server_referee_token  # noqa: E402
from referee.web.extensions import engine_of  # noqa: E402
from tests.airraid_helpers import PLAYERS, ships_json  # noqa: E402

GOAL_BYTES = 80_000  # issue 4: the team page with everything it loads, compressed
ASSET = re.compile(
    r"""(?:src|href|data-module|data-socketio)="(/static/[^"]+)"|from\s+['"](\.{1,2}/[^'"]+|/static/[^'"]+)['"]|import\(['"]([^'"]+)['"]\)"""
)


def decode(body: bytes, encoding: str) -> bytes:
    """Undo a response's content encoding."""
    import gzip
    import zlib

    import brotli  # type: ignore[import-untyped]

    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "br":
        return bytes(brotli.decompress(body))
    if encoding == "deflate":
        return zlib.decompress(body)
    if encoding == "zstd":
        from backports import zstd  # type: ignore[import-not-found]

        return bytes(zstd.decompress(body))
    return body


def weigh(client: FlaskClient, path: str) -> list[tuple[str, int, int]]:
    """Return (url, compressed bytes, raw bytes) of a page and everything it loads."""
    seen: dict[str, tuple[int, int]] = {}
    todo = [path]
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        response = client.get(url, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})  # as Chromium asks
        assert response.status_code == 200, (url, response.status_code)
        body = response.get_data()
        raw = decode(body, response.headers.get("Content-Encoding", ""))
        seen[url] = (len(body), len(raw))
        text = raw.decode("utf-8", errors="replace")
        if url.endswith((".js", ".css")) or url == path:
            for match in ASSET.finditer(text):
                ref = next(g for g in match.groups() if g)
                if ref.startswith("."):
                    ref = posixpath.normpath(posixpath.join(posixpath.dirname(url), ref))  # ../lib/x.js from airraid/
                if ref.startswith("/static/") and not ref.endswith(".map"):
                    todo.append(ref.split("?")[0])
    return [(u, c, r) for u, (c, r) in seen.items()]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3", "SECRET_KEY": "x" * 40}, instance_path=tmp
        )
        ref = app.test_client()
        with app.app_context():
            ref.get(f"/?token={issue_server_referee_token(engine_of(app))}")
        created = ref.post(
            "/api/games",
            json={"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]},
        ).get_json()
        gid = created["game"]
        team = app.test_client()
        team.get(created["links"]["join"]["A"].split("localhost", 1)[1])
        for t in "AB":
            ref.post(
                f"/api/games/{gid}/actions", json={"action": {"type": "lock_sea", "team": t, "ships": ships_json()}}
            )
        ref.post(f"/api/games/{gid}/actions", json={"action": {"type": "start_game"}})
        team.post(
            f"/api/games/{gid}/actions",
            json={
                "action": {
                    "type": "add_order",
                    "team": "A",
                    "pilot": "Ann",
                    "kind": "fighter",
                    "ship": "A",
                    "corridor": "upper",
                }
            },
        )
        slip = team.get(f"/api/games/{gid}/slips").get_json()["slips"][0]["url"].split("localhost", 1)[1]
        pages = (("team page", team, f"/g/{gid}/team"), ("pilot page", app.test_client(), slip))
        for _name, client, path in pages:
            weigh(client, path)  # static files are compressed in the background after a first request
        precompress.wait_until_compressed()
        for name, client, path in pages:
            rows = weigh(client, path)
            total_c = sum(c for _, c, _ in rows)
            total_r = sum(r for _, _, r in rows)
            verdict = (
                f"; goal < {GOAL_BYTES} bytes: {'met' if total_c < GOAL_BYTES else 'MISSED'}"
                if name == "team page"
                else ""
            )
            print(
                f"{name}: {total_c} bytes = {total_c / 1024:.1f} KiB compressed ({total_r / 1024:.1f} KiB raw) "
                f"in {len(rows)} files{verdict}"
            )
            for url, c, r in sorted(rows, key=lambda x: -x[1]):
                print(f"  {c:>7} {r:>7}  {url if not url.startswith('/s/') else '/s/<slip>'}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
