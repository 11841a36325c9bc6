"""Issue 9's security review: redirects, hostile input, socket junk, log redaction, file modes, hosts."""

from __future__ import annotations

import io
import logging
import os
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Response

from referee.push import sockets as push_sockets
from referee.web import create_app, security
from referee.web.access import issue_server_referee_token, make_slip
from referee.web.extensions import engine_of, socketio, store_of
from referee.web.logs import REDACTED

from .test_games_web import create, referee_client

SECRET = "test-" + "0" * 40


# --- 8. Open redirect ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "/%09/evil.example",
        "/%0a/evil.example",
        "/%0d%0a/evil.example",
        "%09//evil.example",
        "/%00/evil.example",
        "/%5C/evil.example",
        "%20//evil.example",
        "/%09%5Cevil.example",
        "http:%09//evil.example",
        "/%7F/evil.example",
    ],
)
def test_language_redirect_never_leaves_the_site(client: FlaskClient, target: str) -> None:
    """Browsers drop tabs and newlines from a URL: `/\\t/evil.example` must not become `//evil.example`."""
    response = client.get(f"/lang/en?next={target}")
    assert response.status_code == 303
    assert response.headers["Location"] == "/", response.headers["Location"]


def test_language_redirect_keeps_a_local_path_without_control_characters(client: FlaskClient) -> None:
    """A local `next` survives, cleaned of control characters (no header injection, no 500)."""
    assert client.get("/lang/en?next=/g/abc/watch%3Fx%3D1").headers["Location"] == "/g/abc/watch?x=1"
    cleaned = client.get("/lang/en?next=/somewhere%0d%0aSet-Cookie:%20x=1")
    assert cleaned.status_code == 303 and cleaned.headers["Location"] == "/somewhereSet-Cookie:%20x=1"
    assert "x" not in {c.key for c in client._cookies.values()}  # type: ignore[attr-defined]


def test_language_redirect_never_carries_a_token(client: FlaskClient) -> None:
    """Going back after choosing a language does not put a link token back in the address bar."""
    assert client.get("/lang/en?next=/g/abc/team%3Ft%3Dsecret%26x%3D1").headers["Location"] == "/g/abc/team?x=1"


# --- 9. Hostile input is a 400, never a 500 ---------------------------------------------------------

DEEP = "[" * 50_000 + "]" * 50_000


def test_json_depth_counts_brackets_outside_strings() -> None:
    assert security.json_depth(b'{"a": [1, {"b": "[[[[[["}]}') == 3
    assert security.json_depth(b'"\\"[[[["') == 0
    assert security.json_depth(DEEP.encode()) == 50_000
    assert security.json_depth(b"") == 0


def _json_routes(app: Flask, gid: str) -> list[tuple[str, str]]:
    routes = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) - {"GET", "HEAD", "OPTIONS"}):
            path = rule.rule.replace("<game_id>", gid).replace("<device_id>", "d1").replace("<team>", "A")
            routes.append((method, path))
    return routes


# Deep, and within every route's bound (64 kB): a longer body is refused unread (413), not parsed.
@pytest.mark.parametrize(
    "body", ["[" * 30_000 + "]" * 30_000, '{"action": ' + "[" * 200 + "]" * 200 + "}", "[" * 60_000]
)
def test_deeply_nested_json_is_a_400_on_every_route(app: Flask, body: str, caplog: pytest.LogCaptureFixture) -> None:
    """Every route that takes a body answers 400 JSON to nesting beyond the limit, as any caller."""
    referee = referee_client(app)
    gid = create(app, referee)["game"]
    before = store_of(app).count_events(gid)
    routes = _json_routes(app, gid)
    assert len(routes) >= 10
    for caller in (referee, app.test_client()):
        for method, path in routes:
            response = caller.open(
                path, method=method, data=body, content_type="application/json", headers={"Accept-Language": "en"}
            )
            assert response.status_code == 400, (
                method,
                path,
                response.status_code,
                response.get_data(as_text=True)[:300],
            )
            if path.startswith("/api/"):
                answer = response.get_json()
                assert answer["error"] == "malformed" and "deep" in answer["message"], (method, path, answer)
    assert store_of(app).count_events(gid) == before
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_body_over_its_routes_bound_is_refused_unread(app: Flask) -> None:
    """An action takes 64 kB at most, a new game with its ruleset 256 kB: more is a 413, from Content-Length."""
    referee = referee_client(app)
    gid = create(app, referee)["game"]
    before = store_of(app).count_events(gid)
    megabyte = '{"action": {"type": "set_defender", "team": "A", "pilot": "' + "x" * (1 << 20) + '"}}'
    for caller in (referee, app.test_client()):
        refused = caller.post(f"/api/games/{gid}/actions", data=megabyte, content_type="application/json")
        assert refused.status_code == 413 and refused.get_json()["error"] == "request_entity_too_large"
    # Claimed, not sent: answered from the header alone.
    environ = EnvironBuilder(
        path=f"/api/games/{gid}/actions", method="POST", headers={"Content-Type": "application/json"}
    ).get_environ()
    environ["CONTENT_LENGTH"] = str(1 << 20)
    environ["wsgi.input"] = io.BytesIO(b"")
    assert Response.from_app(app.wsgi_app, environ).status_code == 413
    ruleset = "# a ruleset file with long comments\n" + "#" * 120_000
    assert referee.post("/api/games", json={"teams": [], "ruleset_toml": ruleset}).status_code == 400  # read: too long
    assert store_of(app).count_events(gid) == before


def test_broken_json_is_a_specific_400(app: Flask) -> None:
    """Invalid JSON (and a 5,000-digit number) is refused with a message naming the problem."""
    referee = referee_client(app)
    for body in ('{"teams": [', '{"teams": ' + "9" * 5000 + "}", "\xff\xfe"):
        response = referee.post("/api/games", data=body, content_type="application/json")
        assert response.status_code == 400, body[:20]
        answer = response.get_json()
        assert answer["error"] == "malformed" and "JSON" in answer["message"], answer


def test_normal_json_still_works(app: Flask) -> None:
    referee = referee_client(app)
    gid = create(app, referee)["game"]
    assert referee.post(f"/api/games/{gid}/sea/random", json={"team": "A"}).status_code == 200


def test_non_ascii_slip_and_csrf_token_are_refusals_not_500s(app: Flask, caplog: pytest.LogCaptureFixture) -> None:
    """hmac.compare_digest raises on non-ASCII text: such a slip or CSRF token is just wrong."""
    referee = referee_client(app)
    gid = create(app, referee)["game"]
    with app.app_context():
        slip = make_slip(gid, "1A1")
    forged = slip[:-1] + "é"
    page = app.test_client().get(f"/s/{forged}")
    assert page.status_code in (403, 404)  # as for any slip that is not genuine
    api = app.test_client().get(f"/api/games/{gid}/view?slip={forged}")
    assert api.status_code == 403 and api.get_json()["error"] == "forbidden"
    for token in ("é", "\u2603" * 40):
        refused = app.test_client().post("/_none", data={"csrf_token": token}, headers={"X-CSRF-Token": token})
        assert refused.status_code == 403
    cross = app.test_client().post(
        "/api/games", json={}, headers={"X-CSRF-Token": "é", "Origin": "http://evil.example"}
    )
    assert cross.status_code == 403 and cross.get_json()["error"] == "forbidden"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


# --- 9/10. Socket.IO payloads ----------------------------------------------------------------------------


@pytest.fixture
def sock(app: Flask) -> Iterator[Any]:
    client = socketio.test_client(app)
    yield client
    client.disconnect()


@pytest.mark.parametrize("event", ["action", "resync", "time_ping"])
def test_an_event_without_a_payload_is_answered(sock: Any, event: str, caplog: pytest.LogCaptureFixture) -> None:
    """`42["action"]` used to raise a TypeError in the handler and get no ack."""
    ack = sock.emit(event, callback=True)
    assert isinstance(ack, dict), ack
    if event != "time_ping":
        assert ack["ok"] is False and ack["error"] == "malformed", ack
    ack = sock.emit(event, {"game": "x"}, "extra", 3, callback=True)
    assert ack["ok"] is False and ack["error"] == "malformed", ack
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_an_unknown_event_is_answered(sock: Any) -> None:
    ack = sock.emit("launch_missiles", {"game": "x"}, callback=True)
    assert ack["ok"] is False and ack["error"] == "malformed", ack


def test_deep_socket_payloads_are_refused_before_parsing(
    app: Flask, sock: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A payload nested past the limit, or with an integer of over 100 digits, is answered `malformed`."""
    server = socketio.server
    eio_sid = sock.eio_sid
    replies: list[Any] = []
    original = server._send_packet

    def keep(sid: str, pkt: Any) -> None:
        replies.append(pkt)
        original(sid, pkt)

    server._send_packet = keep
    try:
        for n, data in enumerate(
            [
                '["action",' + "[" * 50_000 + "]" * 50_000 + "]",
                '["action",{"a":' + "[" * 100 + "]" * 100 + "}]",
                '["action",{"game":"x","version":' + "9" * 101 + "}]",  # Engine.IO's limit on integers
            ]
        ):
            server._handle_eio_message(eio_sid, f"2{n + 1}{data}")  # Socket.IO EVENT with ack id n + 1
    finally:
        server._send_packet = original
    acks = [p for p in replies if p.packet_type == 3]
    assert [p.id for p in acks] == [1, 2, 3]
    assert all(p.data[0]["error"] == "malformed" for p in acks), [p.data for p in acks]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_time_ping_goes_through_the_socket_rate_limit(sock: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A flood of clock pings is answered `rate_limited`, with a retry time, like any other event."""
    monkeypatch.setattr(push_sockets, "RATE_BURST", 5.0)
    monkeypatch.setattr(push_sockets, "RATE_PER_SECOND", 0.5)
    acks = [sock.emit("time_ping", {"t0": 1}, callback=True) for _ in range(10)]
    assert all("server_time" in a for a in acks[:5]), acks
    limited = [a for a in acks if a.get("error") == "rate_limited"]
    assert len(limited) >= 4, acks
    assert all(0 < a["retry_after"] <= 2 and a["message"] for a in limited), limited
    other = sock.emit("resync", {"game": "x"}, callback=True)
    assert other["error"] == "rate_limited" and other["retry_after"] > 0


# --- Tokens in the address bar, Retry-After ----------------------------------------------------------


def test_a_refused_link_token_is_dropped_from_the_address_bar(app: Flask) -> None:
    """A wrong `?t=` is redirected away like a good one; the refusal shows on the clean URL."""
    client = app.test_client()
    response = client.get("/g/abc/watch?x=1&t=WRONGsecretTOKEN", headers={"Accept-Language": "en"})
    assert response.status_code == 303 and response.headers["Location"] == "/g/abc/watch?x=1"
    assert response.headers["Cache-Control"] == "no-store"
    shown = client.get(response.headers["Location"], headers={"Accept-Language": "en"})
    assert shown.status_code == 403 and "not valid any more" in shown.get_data(as_text=True)
    again = client.get("/g/abc/watch?x=1", headers={"Accept-Language": "en"})
    assert again.status_code != 403 or "not valid any more" not in again.get_data(as_text=True)


def test_language_links_never_carry_tokens(app: Flask) -> None:
    """Even a page drawn while the URL holds a token (a POST) links languages without it."""
    response = app.test_client().post("/?token=SECRETtoken&x=1", headers={"Accept-Language": "en"})
    assert response.status_code >= 400
    page = response.get_data(as_text=True)
    assert "/lang/" in page and "SECRETtoken" not in page


def test_every_429_says_when_to_retry(app: Flask) -> None:
    """Past the token-guess limit: 429 with Retry-After (seconds until a failure leaves the window)."""
    client = app.test_client()
    limit = int(app.config["TOKEN_FAILURES_PER_MINUTE"])
    for i in range(limit):
        client.get(f"/?t=wrong{i}")
    blocked = client.get("/?t=wrong-again")
    if blocked.status_code == 303:
        blocked = client.get(blocked.headers["Location"])
    assert blocked.status_code == 429
    assert 0 < int(blocked.headers["Retry-After"]) <= 60
    api = client.get("/api/health?t=wrong-again")
    if api.status_code == 303:
        api = client.get(api.headers["Location"])
    assert (
        api.status_code == 429
        and int(api.headers["Retry-After"]) > 0
        and api.get_json()["error"] == "too_many_requests"
    )


# --- Host allowlist (DNS rebinding) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "localhost:5000",
        "127.0.0.1:5000",
        "192.168.1.5",
        "[::1]:5000",
        "[fe80::1]",
        socket.gethostname(),
        socket.gethostname() + ".local:5000",
    ],
)
def test_hosts_of_this_machine_are_served(client: FlaskClient, host: str) -> None:
    assert client.get("/api/health", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:5000", "localhost.evil.example", "127.0.0.1.evil.example", "x" * 300]
)
def test_unknown_hosts_are_refused(client: FlaskClient, host: str) -> None:
    """A DNS-rebinding page (its own name pointing at us) is refused, even with a matching Origin."""
    response = client.get("/api/health", headers={"Host": host, "Origin": f"http://{host}"})
    assert response.status_code == 400 and response.get_json()["error"] == "unknown_host"
    page = client.get("/", headers={"Host": host})
    assert page.status_code == 400
    handshake = client.get("/socket.io/?EIO=4&transport=polling", headers={"Host": host, "Origin": f"http://{host}"})
    assert handshake.status_code >= 400
    assert client.get("/socket.io/?EIO=4&transport=polling", headers={"Host": "localhost"}).status_code == 200


@pytest.mark.parametrize("host", ["a..b", "x" * 64 + ".example", "a b", "localhost:99999", "[::zz]", "", None])
@pytest.mark.parametrize("path", ["/", "/static/css/app.css", "/api/health", "/socket.io/?EIO=4&transport=polling"])
def test_malformed_hosts_are_refused_before_the_app(app: Flask, host: str | None, path: str) -> None:
    """Every route, pages and static files too, answers a malformed or missing Host with the ready 400."""
    environ = EnvironBuilder(path=path, headers={"Accept-Language": "en"}).get_environ()
    if host is None:
        del environ["HTTP_HOST"]
    else:
        environ["HTTP_HOST"] = host
    response = Response.from_app(app.wsgi_app, environ)
    assert response.status_code == 400
    if path.startswith("/api/"):
        assert response.get_json()["error"] == "unknown_host"
    else:
        assert "Unknown host" in response.get_data(as_text=True)
        assert response.headers["Content-Type"].startswith("text/html")


def test_an_unknown_host_is_told_in_the_browsers_language(client: FlaskClient) -> None:
    czech = client.get("/", headers={"Host": "evil.example", "Accept-Language": "cs,en;q=0.5"})
    assert czech.status_code == 400 and '<html lang="cs">' in czech.get_data(as_text=True)
    assert "Neznámý server" in czech.get_data(as_text=True)


def test_allowed_hosts_from_config(tmp_path: Path) -> None:
    app = create_app(
        {"TESTING": True, "SECRET_KEY": SECRET, "ALLOWED_HOSTS": ["club.example", ".club.lan"]},
        instance_path=tmp_path / "i",
    )
    client = app.test_client()
    try:
        for host in ("club.example", "CLUB.example:8080", "referee.club.lan", "club.lan"):
            assert client.get("/api/health", headers={"Host": host}).status_code == 200, host
        assert client.get("/api/health", headers={"Host": "evil.example"}).status_code == 400
        assert client.get("/socket.io/?EIO=4&transport=polling", headers={"Host": "club.example"}).status_code == 200
    finally:
        engine_of(app).dispose()
    anything = create_app({"TESTING": True, "SECRET_KEY": SECRET, "ALLOWED_HOSTS": ["*"]}, instance_path=tmp_path / "j")
    try:
        assert anything.test_client().get("/api/health", headers={"Host": "evil.example"}).status_code == 200
    finally:
        engine_of(anything).dispose()


# --- 11. Every log line is redacted ---------------------------------------------------------------------


def _capture(logger: logging.Logger) -> tuple[io.StringIO, logging.Handler]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    logger.addHandler(handler)
    return out, handler


def test_the_apps_unhandled_error_line_is_redacted(app: Flask) -> None:
    """`unhandled error on GET /s/<slip>` (and the traceback under it) shows no slip code."""
    slip = "abcdefghijkl.1A1.SIGNATUREsig0123"

    def boom(code: str) -> str:
        raise RuntimeError(f"could not read {code}?t=JOINsecret")

    app.add_url_rule("/s/<code>/boom", "t_boom", boom)
    out, handler = _capture(app.logger)
    try:
        assert app.test_client().get(f"/s/{slip}/boom").status_code == 500
    finally:
        app.logger.removeHandler(handler)
    text = out.getvalue()
    assert "unhandled error on GET /s/" in text and "Traceback" in text and REDACTED in text
    assert "SIGNATUREsig0123" not in text and "JOINsecret" not in text, text


@pytest.mark.parametrize(
    "name",
    [
        None,
        "werkzeug",
        "gunicorn.error",
        "gunicorn.access",
        "engineio.server",
        "socketio.server",
        "referee",
        "made.later",  # a logger first made inside the test (its name made unique there)
    ],
)
def test_every_logger_redacts(app: Flask, name: str | None) -> None:
    """Root, the libraries' loggers, the app's and one made after start-up all print `[redacted]`."""
    if name == "made.later":
        # Named here, not in the parameters: pytest-xdist's workers must collect the same test ids.
        name = f"made.later.{time.time_ns()}"
    logger = logging.getLogger(name)
    out, handler = _capture(logger)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        logger.info("GET %s HTTP/1.1", "/g/abc/team?t=JOINsecret&x=1")
        logger.warning("slip /s/abcdefghijkl.1A1.SIGNATUREsig0123 and %(t)s", {"t": "/?token=REFsecret"})
        try:
            raise ValueError("/s/abcdefghijkl.1A2.OTHERsignature99")
        except ValueError:
            logger.exception("failed")
        logger.info('received packet 42["action",{"game":"g","slip":"abcdefghijkl.1A3.THIRDsignature77"}]')
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    text = out.getvalue()
    for secret in ("JOINsecret", "SIGNATUREsig0123", "REFsecret", "OTHERsignature99", "THIRDsignature77"):
        assert secret not in text, text
    assert text.count(REDACTED) >= 5 and "x=1" in text


# --- 12. The database is private to its owner -------------------------------------------------------------


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_instance_folder_and_database_are_private(tmp_path: Path, umask_022: None) -> None:
    """With umask 022: the folder 0700, the SQLite file, its WAL and shared memory 0600."""
    instance = tmp_path / "instance"
    app = create_app({"TESTING": True, "SECRET_KEY": SECRET}, instance_path=instance)
    try:
        with app.app_context():
            issue_server_referee_token(engine_of(app))  # a write: the WAL and -shm exist now
        db = instance / "referee.sqlite3"
        assert _mode(instance) == 0o700
        for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            assert path.exists() and _mode(path) == 0o600, (path, oct(_mode(path)))
    finally:
        engine_of(app).dispose()


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_an_older_install_is_tightened_on_start(tmp_path: Path, umask_022: None) -> None:
    """A 0755 folder and 0644 database files from before are made 0700 / 0600 when the app starts."""
    instance = tmp_path / "instance"
    app = create_app({"TESTING": True, "SECRET_KEY": SECRET}, instance_path=instance)
    with app.app_context():
        issue_server_referee_token(engine_of(app))
    db = instance / "referee.sqlite3"
    wal, shm = Path(f"{db}-wal"), Path(f"{db}-shm")
    for path in (db, wal, shm):
        os.chmod(path, 0o644)
    os.chmod(instance, 0o755)
    again = create_app({"TESTING": True, "SECRET_KEY": SECRET}, instance_path=instance)
    try:
        assert _mode(instance) == 0o700
        for path in (db, wal, shm):
            assert _mode(path) == 0o600, (path, oct(_mode(path)))
    finally:
        engine_of(again).dispose()
        engine_of(app).dispose()


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_a_database_elsewhere_is_private_too(tmp_path: Path, umask_022: None) -> None:
    from referee.store import make_engine

    path = tmp_path / "elsewhere" / "games.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE t (x)")
        assert _mode(path) == 0o600 and _mode(Path(f"{path}-wal")) == 0o600
    finally:
        engine.dispose()


def test_a_429_without_its_own_retry_time_gets_one(app: Flask) -> None:
    """A 429 raised anywhere without retry_after still tells the client when to come back."""
    from flask import abort

    app.add_url_rule("/api/_busy", "t_busy", lambda: abort(429))
    answer = app.test_client().get("/api/_busy")
    assert answer.status_code == 429 and answer.headers["Retry-After"] == "60"
