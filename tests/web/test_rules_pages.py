"""The rules to show and print: drawn from the ruleset in play, in the page's language."""

from __future__ import annotations

from flask import Flask

from .test_games_web import act, create, join, referee_client


def test_the_cards_read_the_game_in_play(app: Flask) -> None:
    referee = referee_client(app)
    gid = create(app, referee, round_seconds=240)["game"]
    act(referee, gid, {"type": "set_round_length", "seconds": 420})
    pilot = app.test_client().get(f"/rules/pilot?game={gid}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "A round lasts 7:00" in pilot and "(upper, middle, lower)" in pilot
    packaged = app.test_client().get("/rules/pilot", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "A round lasts 5:00" in packaged
    base = app.test_client().get(f"/rules/base?game={gid}", headers={"Accept-Language": "cs"}).get_data(as_text=True)
    assert '<html lang="cs">' in base and "letadlová loď" in base and "nesmějí se dotýkat, ani rohem" in base
    assert "(horní, prostřední, dolní)" in app.test_client().get("/rules", headers={"Accept-Language": "cs"}).get_data(
        as_text=True
    )


def test_a_card_or_game_that_does_not_exist_is_a_404(app: Flask) -> None:
    client = app.test_client()
    for path in ("/rules/captain", "/rules?game=nosuchgame", "/rules/pilot?game=" + "x" * 40):
        response = client.get(path, headers={"Accept-Language": "en"})
        assert response.status_code == 404, path
    assert "pilot, base or referee" in client.get("/rules/captain", headers={"Accept-Language": "en"}).get_data(
        as_text=True
    )


def test_every_role_page_links_its_card(app: Flask) -> None:
    referee = referee_client(app)
    created = create(app, referee)
    gid = created["game"]
    dashboard = referee.get(f"/g/{gid}/referee").get_data(as_text=True)
    assert f"/rules/referee?game={gid}" in dashboard and f"/rules?game={gid}" in dashboard
    team = join(app, created["links"]["join"]["A"]).get(f"/g/{gid}/team").get_data(as_text=True)
    assert f"/rules/base?game={gid}" in team
