"""Security review, issue 9: a Battleship friend's seat, and anonymous games that cost the server.

Finding 2: the host must not be able to take the friend's seat. The invite is single-use, shown
only while player B has no device, and re-made only by an explicit "new invite" that cuts B's old
phone off. Finding 6: games per client address are limited, abandoned games expire, and the round
clock looks only at games that have a deadline.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, cast

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import Table, insert, select, text

from referee.push import clock as push_clock
from referee.store import Store, make_engine, migrate
from referee.store.models import Game, Token
from referee.web.extensions import db, engine_of, socketio

from .test_battleship_web import FLEET_A, FLEET_B, act, create, ok, ships
from .test_games_web import create as create_airraid
from .test_games_web import join, play_to_airborne, referee_client, ruleset_text

games_t = cast(Table, Game.__table__)
tokens_t = cast(Table, Token.__table__)

INVITE = re.compile(r"/b/[\w-]+\?t=[\w-]+")
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def path_of(url: str) -> str:
    return url.split("localhost", 1)[1]


def invites_in(page: str) -> list[str]:
    """Every join link in a page, hidden or not."""
    return sorted(set(INVITE.findall(page)))


def opens(client: FlaskClient, link: str) -> int:
    """The status a browser ends on after opening a link (a refused link is redirected, then refused)."""
    return int(client.get(link, follow_redirects=True).status_code)


def role_of(client: FlaskClient, gid: str) -> str:
    return str(ok(client.get(f"/api/games/{gid}/view"))["role"])


def new_invite(client: FlaskClient, gid: str) -> Any:
    """Post "new invite" with this browser's CSRF token, as its own page's form would."""
    token = CSRF.search(client.get("/battleship").get_data(as_text=True))
    assert token
    return client.post(f"/b/{gid}/invite", data={"csrf_token": token.group(1)})


@pytest.fixture
def duel(app: Flask) -> dict[str, Any]:
    eva = app.test_client()
    made = create(eva, opponent="friend", name="Eva", opponent_name="Bo")
    return {"id": made["game"], "A": eva, "link": made["links"]["join"]["B"]}


# --- Finding 2: the friend's seat --------------------------------------------------------------


def test_the_invite_makes_one_phone_player_b_and_is_then_spent(app: Flask, duel: dict[str, Any]) -> None:
    gid = duel["id"]
    bo = join(app, duel["link"])
    assert role_of(bo, gid) == "player:B"
    # A second browser with the same link (a photo of the QR code, the host's other phone): refused.
    second = app.test_client()
    assert opens(second, path_of(duel["link"])) == 403
    assert role_of(second, gid) == "public"
    ok(act(bo, gid, {"type": "place_fleet", "player": "B", "ships": ships(FLEET_B)}))
    assert act(second, gid, {"type": "fire", "player": "B", "squares": ["A1"]}).status_code == 403
    assert "ships" not in ok(second.get(f"/api/games/{gid}/view"))["boards"]["B"]
    # Bo's own browser opening the spent link again is refused too, and stays player B.
    assert opens(bo, path_of(duel["link"])) == 403
    assert role_of(bo, gid) == "player:B"


def test_the_hosts_page_holds_no_invite_once_b_has_a_phone(app: Flask, duel: dict[str, Any]) -> None:
    gid, eva = duel["id"], duel["A"]
    # Before Bo joins, Eva's page shows the same invite on every reload (she may need it again).
    first = invites_in(eva.get(f"/b/{gid}").get_data(as_text=True))
    assert first and first == invites_in(eva.get(f"/b/{gid}").get_data(as_text=True))
    bo = join(app, duel["link"])
    placing = eva.get(f"/b/{gid}").get_data(as_text=True)
    assert invites_in(placing) == []
    ok(act(eva, gid, {"type": "place_fleet", "player": "A", "ships": ships(FLEET_A)}))
    ok(act(bo, gid, {"type": "place_fleet", "player": "B", "ships": ships(FLEET_B)}))
    # The review's attack: reload as A after both fleets are placed, open what the page holds.
    page = eva.get(f"/b/{gid}").get_data(as_text=True)
    assert invites_in(page) == [], "A's page still holds an invite for B"
    assert "?t=" not in page
    for link in invites_in(placing + page):
        assert opens(app.test_client(), link) == 403
    # What the page offers instead, and says plainly.
    assert f'action="/b/{gid}/invite"' in page
    english = eva.get(f"/b/{gid}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "their old phone is cut off" in english


def test_a_new_invite_cuts_b_off_and_works_once(app: Flask, duel: dict[str, Any]) -> None:
    gid, eva = duel["id"], duel["A"]
    bo = join(app, duel["link"])
    sock = socketio.test_client(app, flask_test_client=bo)
    assert sock.emit("resync", {"game": gid, "seq": 0}, callback=True)["view"]["role"] == "player:B"
    # Nobody but player A may do it: not B, not a spectator, not the referee, not a forged form.
    for other in (bo, app.test_client(), referee_client(app)):
        assert new_invite(other, gid).status_code == 403
    assert eva.post(f"/b/{gid}/invite", data={}).status_code == 403  # no CSRF token: a cross-site form
    assert sock.is_connected() and role_of(bo, gid) == "player:B"

    done = new_invite(eva, gid)
    assert done.status_code == 303 and done.headers["Location"].endswith(f"/b/{gid}")
    assert not sock.is_connected(), "the revoked phone's socket is still open"
    assert role_of(bo, gid) == "public"
    page = eva.get(f"/b/{gid}").get_data(as_text=True)
    links = invites_in(page)
    assert len(links) == 1 and links[0] != path_of(duel["link"])
    assert opens(app.test_client(), path_of(duel["link"])) == 403  # the old link stays dead
    friend = app.test_client()
    assert opens(friend, links[0]) == 200
    assert role_of(friend, gid) == "player:B"
    assert opens(app.test_client(), links[0]) == 403
    assert invites_in(eva.get(f"/b/{gid}").get_data(as_text=True)) == []


def test_only_a_game_against_a_friend_has_invites(app: Flask) -> None:
    for opponent in ("computer", "hotseat"):
        phone = app.test_client()
        gid = create(phone, opponent=opponent, level="easy")["game"]
        assert invites_in(phone.get(f"/b/{gid}").get_data(as_text=True)) == []
        assert new_invite(phone, gid).status_code == 403


# --- Finding 6: anonymous games ----------------------------------------------------------------


def from_address(client: FlaskClient, address: str) -> FlaskClient:
    client.environ_base["REMOTE_ADDR"] = address
    return client


def count_games(app: Flask) -> int:
    with engine_of(app).connect() as conn:
        return len(conn.execute(select(games_t.c.id)).all())


def test_one_address_may_start_only_so_many_games_a_minute(app: Flask) -> None:
    limit = int(app.config["BATTLESHIP_GAMES_PER_MINUTE"])
    assert 1 <= limit <= 60
    greedy = from_address(app.test_client(), "10.0.0.7")
    for _ in range(limit):
        create(greedy, opponent="computer", level="easy")
    before = count_games(app)
    refused = greedy.post("/api/battleship/games", json={"ruleset": "sjoslag", "opponent": "computer"})
    assert refused.status_code == 429
    assert refused.get_json()["error"] == "too_many_requests"
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    # The lobby's form is the same door.
    lobby = greedy.get("/battleship").get_data(as_text=True)
    form = greedy.post("/battleship", data={"csrf_token": CSRF.search(lobby).group(1), "opponent": "computer"})  # type: ignore[union-attr]
    assert form.status_code == 429 and 0 < int(form.headers["Retry-After"]) <= 60
    assert "<form" in form.get_data(as_text=True)
    assert count_games(app) == before
    # Another phone on the Wi-Fi still starts its game.
    create(from_address(app.test_client(), "10.0.0.8"), opponent="computer", level="easy")


def test_a_game_nobody_plays_expires_and_its_page_says_so(app: Flask, duel: dict[str, Any]) -> None:
    gid, eva = duel["id"], duel["A"]
    hours = float(app.config["BATTLESHIP_IDLE_HOURS"])
    fresh = create(app.test_client(), opponent="computer", level="easy")["game"]
    over = create(app.test_client(), opponent="computer", level="easy")
    ok(act(duel["A"], gid, {"type": "place_fleet", "player": "A", "ships": ships(FLEET_A)}))
    ended = app.test_client()
    ended_gid = create(ended, opponent="friend")["game"]
    ok(act(ended, ended_gid, {"type": "forfeit", "player": "A"}))
    now = time.time()
    assert push_clock.expire_idle_games(app, now=now + hours * 3600 - 60) == []
    # `fresh` was touched just now (as seen from the future), the others long ago.
    with app.app_context(), db.engine.begin() as conn:
        conn.execute(games_t.update().where(games_t.c.id == fresh).values(updated_at=now + hours * 3600))
    expired = push_clock.expire_idle_games(app, now=now + hours * 3600 + 60)
    assert sorted(expired) == sorted([gid, over["game"]])
    with app.app_context():
        assert db.store.status_of(gid) == "abandoned"
        assert db.store.status_of(ended_gid) == "over" and db.store.status_of(fresh) == "placing"
        events = db.store.count_events(gid)
    page = eva.get(f"/b/{gid}", headers={"Accept-Language": "en"})
    assert page.status_code == 410 and "expired" in page.get_data(as_text=True)
    assert eva.get(f"/b/{gid}/watch").status_code == 410
    refused = act(eva, gid, {"type": "fire", "player": "A", "squares": ["A1"]})
    assert refused.status_code == 409 and refused.get_json()["error"] == "game_over"
    assert app.test_client().post(f"/api/games/{gid}/sea/random", json={"player": "A"}).status_code == 410
    with app.app_context():
        assert db.store.count_events(gid) == events


def test_the_round_clock_never_loads_a_battleship_game(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    referee = referee_client(app)
    # A round that ends at 0:00 whatever is open (the shipped ruleset waits for the duels due).
    created = create_airraid(app, referee, ruleset_toml=ruleset_text(at_zero="end"))
    game = {
        "id": created["game"],
        "referee": referee,
        "A": join(app, created["links"]["join"]["A"]),
        "B": join(app, created["links"]["join"]["B"]),
    }
    battleships = []
    for _ in range(3):
        phone = app.test_client()
        gid = create(phone, opponent="computer", level="easy")["game"]
        ok(act(phone, gid, {"type": "place_fleet", "player": "A", "ships": ships(FLEET_A)}))
        battleships.append(gid)
    play_to_airborne(game)
    deadline = referee.get(f"/api/games/{game['id']}/view").get_json()["round"]["deadline"]
    loaded: list[str] = []
    real_load = Store.load

    def counting_load(self: Store, game_id: str) -> tuple[Any, int]:
        loaded.append(game_id)
        return real_load(self, game_id)

    monkeypatch.setattr(Store, "load", counting_load)
    with app.app_context():
        assert all(db.store.load(g)[0].phase == "playing" for g in battleships)
    loaded.clear()
    assert push_clock.end_rounds_on_time(app, now=deadline - 1) == []
    assert loaded == [], "the clock loaded games whose deadline is not due"
    assert push_clock.end_rounds_on_time(app, now=deadline + 0.1) == [game["id"]]
    assert set(loaded) == {game["id"]}
    with app.app_context():
        assert all(db.store.status_of(g) == "playing" for g in battleships)
        assert db.store.due_game_ids(deadline + 10_000) == []  # round over: no deadline until the next starts


def test_the_migration_marks_running_games_for_the_clock_and_spends_old_invites(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config

    from referee.store import MIGRATIONS_DIR

    engine = make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        for gid, mode, status in (
            ("air", "airraid", "playing"),
            ("sea", "battleship", "playing"),
            ("old", "airraid", "over"),
        ):
            conn.execute(
                text("INSERT INTO games (id, mode, created_at, seq, status) VALUES (:id, :mode, 1.0, 1, :status)"),
                {"id": gid, "mode": mode, "status": status},
            )
        conn.execute(
            text(
                "INSERT INTO events (game_id, seq, kind, data, at, by, batch_seq) "
                "VALUES ('sea', 1, 'create_game', '{}', 5.0, 'player:A', 1)"
            )
        )
        conn.execute(
            insert(tokens_t).values(
                game_id="sea", role="team_join", subject="B", token_hash="h1", label="nonce:x", created_at=1.0
            )
        )
        conn.execute(
            insert(tokens_t).values(
                game_id="air", role="team_join", subject="B", token_hash="h2", label="nonce:y", created_at=1.0
            )
        )
    migrate(engine)
    with engine.connect() as conn:
        rows = {
            r.id: (r.deadline, r.updated_at) for r in conn.execute(text("SELECT id, deadline, updated_at FROM games"))
        }
        revoked: dict[str, bool] = dict(
            conn.execute(text("SELECT token_hash, revoked_at IS NOT NULL FROM tokens")).all()
        )
    assert rows["air"][0] is not None and rows["sea"][0] is None and rows["old"][0] is None
    assert rows["sea"][1] == 5.0 and rows["air"][1] == 1.0
    assert revoked == {"h1": True, "h2": False}
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def bare_store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A store on each backend, with the Battleship and air-raid modes."""
    from referee.rules import airraid
    from referee.rules import battleship as bs

    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path / 's.sqlite3'}")
    else:
        url, kwargs = request.getfixturevalue("postgres_schema")
        engine = make_engine(url, **kwargs)
    migrate(engine)
    yield Store(engine, modes={bs.MODE: bs.GAME, airraid.MODE: airraid.GAME})
    engine.dispose()


def test_the_store_expires_idle_games_in_short_batches_on_each_backend(bare_store: Store) -> None:
    from tests.battleship_helpers import ruleset_raw

    action = {
        "type": "create_game",
        "ruleset": ruleset_raw("zeeslag"),
        "players": {"A": "Eva", "B": "Bo"},
        "first": "A",
    }
    old = [bare_store.create_game("battleship", action, at=100.0, by="player:A").game_id for _ in range(3)]
    new = bare_store.create_game("battleship", action, at=10_000.0, by="player:A").game_id
    assert bare_store.due_game_ids(1e12) == []  # Battleship games have no deadline
    first = bare_store.expire_idle("battleship", before=5_000.0, limit=2)
    second = bare_store.expire_idle("battleship", before=5_000.0, limit=2)
    assert len(first) == 2 and sorted(first + second) == sorted(old)
    assert bare_store.expire_idle("battleship", before=5_000.0) == []
    assert {g: bare_store.status_of(g) for g in old + [new]} == {**dict.fromkeys(old, "abandoned"), new: "placing"}
    with pytest.raises(Exception) as refused:
        bare_store.execute(old[0], {"type": "forfeit", "player": "A"}, at=20_000.0, by="player:A")
    assert getattr(refused.value, "code", None) == "game_over"
    assert bare_store.count_events(old[0]) == 1
    assert bare_store.refresh_deadline(old[0]) is None


def test_phones_opening_the_invite_at_once_get_one_seat(app: Flask, duel: dict[str, Any]) -> None:
    import threading

    phones = [app.test_client() for _ in range(4)]
    barrier = threading.Barrier(len(phones))
    statuses: list[int] = []

    def take(phone: FlaskClient) -> None:
        barrier.wait()
        statuses.append(opens(phone, path_of(duel["link"])))

    threads = [threading.Thread(target=take, args=(p,)) for p in phones]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200, 403, 403, 403]
    assert sorted(role_of(p, duel["id"]) for p in phones) == ["player:B", "public", "public", "public"]
