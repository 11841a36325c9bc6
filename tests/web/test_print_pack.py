"""Paper for the cabins: the referee's print pack, each team's sheets in that team's language."""

from __future__ import annotations

import re

from flask import Flask

from ..airraid_helpers import ships_json
from .test_games_web import act, create, join, referee_client


def sheets_of(html: str, team: str) -> str:
    match = re.search(r'<div class="print-team team-' + team.lower() + r'" lang="(\w+)">(.*?)\n</div>', html, re.S)
    assert match, f"no sheets for team {team}"
    return f"{match.group(1)}|{match.group(2)}"


def test_each_team_gets_its_join_card_sea_and_grids_in_its_language(app: Flask) -> None:
    referee = referee_client(app)
    created = create(app, referee)
    gid = created["game"]
    act(referee, gid, {"type": "lock_sea", "team": "A", "ships": ships_json()})
    html = referee.get(f"/g/{gid}/print?lang_A=cs&lang_B=en").get_data(as_text=True)
    a, b = sheets_of(html, "A"), sheets_of(html, "B")
    assert a.startswith("cs|") and "Základna vašeho týmu" in a and "Your team" not in a
    assert b.startswith("en|") and "Your team's base" in b
    # Each team's join link, the one the dashboard shows; its QR code beside it.
    for team, sheets in (("A", a), ("B", b)):
        link = created["links"]["join"][team]
        assert link in sheets and "<svg" in sheets
    # A's sea is locked: its ships' letters on the grid, for the physical board; B's is not yet.
    assert a.count('class="is-ship"') == sum(len(s["squares"]) for s in ships_json())
    assert "not locked yet" in b and 'class="is-ship"' not in b
    # The teams' secrets stay on their own sheets: B's pages show nothing of A's sea.
    assert "Eagles" in b  # (the enemy's name, on the blank grid of its sea)


def test_only_the_referee_prints_and_a_bad_language_falls_back(app: Flask) -> None:
    referee = referee_client(app)
    created = create(app, referee)
    gid = created["game"]
    phone = join(app, created["links"]["join"]["A"])
    assert phone.get(f"/g/{gid}/print").status_code == 403
    assert app.test_client().get(f"/g/{gid}/print").status_code == 403
    assert app.test_client().get("/g/nosuchgame/print").status_code == 404
    html = referee.get(f"/g/{gid}/print?lang_A=xx&lang_B=<script>", headers={"Accept-Language": "en"}).get_data(
        as_text=True
    )
    assert sheets_of(html, "A").startswith("en|") and sheets_of(html, "B").startswith("en|")
    assert html.count('value="en" selected') == 2  # the language asked for is refused, not echoed
