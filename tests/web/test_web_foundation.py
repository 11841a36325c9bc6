"""The web foundation: app factory, config, secret key, headers, errors, CSRF, tokens, i18n, Socket.IO."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, jsonify
from flask.testing import FlaskClient
from sqlalchemy import inspect, select

from referee.store import MODES, Store
from referee.store.models import Device, Token
from referee.web import create_app
from referee.web.access import (
    Access,
    FailureLimiter,
    TokenKind,
    current_roles,
    current_team,
    find_token,
    hash_token,
    issue_server_referee_token,
    issue_token,
    make_slip,
    read_slip,
    reissue_join_token,
    require_referee,
    require_team,
    revoke_device,
    revoke_token,
)
from referee.web.extensions import engine_of, socketio, store_of
from referee.web.socketio_app import same_origin_checker
from tests.store.test_store import CounterMode

# --- App factory and config ------------------------------------------------------------------


def test_factory_uses_test_config(app: Flask, tmp_path: Path) -> None:
    """test_config is applied, the instance folder exists, defaults come from config/referee.toml."""
    assert app.testing
    assert Path(app.instance_path).is_dir()
    assert app.config["DATABASE_URL"].endswith("test.sqlite3")
    assert app.config["SNAPSHOT_EVERY"] == 50
    assert app.config["LANGUAGES"] == ["cs", "en", "nl", "nb", "sv"]
    assert not create_app({"SECRET_KEY": "x" * 40}, instance_path=tmp_path / "other").testing


def test_config_from_instance_file_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without test_config: instance referee.toml, then REFEREE_* env; default DB in the instance folder."""
    instance = tmp_path / "inst"
    instance.mkdir()
    (instance / "referee.toml").write_text('SNAPSHOT_EVERY = 7\nREDIS_URL = ""\n', encoding="utf-8")
    monkeypatch.setenv("REFEREE_INSTANCE_PATH", str(instance))
    monkeypatch.setenv("REFEREE_TOKEN_FAILURES_PER_MINUTE", "5")
    app = create_app()
    try:
        assert app.instance_path == str(instance.resolve())
        assert app.config["SNAPSHOT_EVERY"] == 7
        assert app.config["TOKEN_FAILURES_PER_MINUTE"] == 5
        assert app.config["DATABASE_URL"] == f"sqlite:///{instance.resolve() / 'referee.sqlite3'}"
        assert (instance / "referee.sqlite3").is_file()
    finally:
        engine_of(app).dispose()


def test_secret_key_created_once_and_kept(tmp_path: Path) -> None:
    """The secret key is generated on first start, stored 0600, and reused by the next start."""
    instance = tmp_path / "inst"
    cfg = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    first = create_app(cfg, instance_path=instance)
    second = create_app(cfg, instance_path=instance)
    key = first.config["SECRET_KEY"]
    assert isinstance(key, str) and len(key) == 64 and int(key, 16) >= 0
    assert second.config["SECRET_KEY"] == key
    key_file = instance / "secret_key"
    assert key_file.read_text().strip() == key
    if os.name == "posix":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    third = create_app(cfg, instance_path=tmp_path / "elsewhere")
    assert third.config["SECRET_KEY"] != key
    for a in (first, second, third):
        engine_of(a).dispose()


def test_migrations_run_at_start(app: Flask) -> None:
    """create_app migrates: every table exists."""
    names = set(inspect(engine_of(app)).get_table_names())
    assert {"games", "events", "snapshots", "tokens", "devices", "alembic_version"} <= names


# --- Headers and errors ----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/api/health", "/no-such-page", "/api/no-such-thing"])
def test_security_headers(client: FlaskClient, path: str) -> None:
    """Every response carries the CSP and the other security headers."""
    response = client.get(path)
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp and "connect-src 'self' ws: wss:" in csp
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "camera=(self)" in response.headers["Permissions-Policy"]


def test_health(client: FlaskClient) -> None:
    """The health endpoint answers ok with the version."""
    response = client.get("/api/health")
    assert response.status_code == 200
    assert response.json == {"ok": True, "version": "0.1.0"}


def test_api_errors_are_json(client: FlaskClient) -> None:
    """Under /api/ errors are JSON {"error", "message"}; 405 keeps its Allow header."""
    response = client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.json is not None and response.json["error"] == "not_found" and response.json["message"]
    response = client.post("/api/health", json={})
    assert response.status_code == 405
    assert response.json is not None and response.json["error"] == "method_not_allowed"
    assert "GET" in response.headers["Allow"]


def test_unexpected_errors_show_no_traceback(app: Flask) -> None:
    """An exception in a view gives a plain 500 (JSON under /api/, the error page elsewhere)."""

    def boom() -> Any:
        raise RuntimeError("secret internals")

    app.add_url_rule("/api/_boom", "api_boom", boom)
    app.add_url_rule("/_boom", "boom", boom)
    client = app.test_client()
    api = client.get("/api/_boom")
    assert api.status_code == 500
    assert api.json is not None and api.json["error"] == "internal_server_error"
    assert "secret internals" not in api.get_data(as_text=True)
    page = client.get("/_boom", headers={"Accept-Language": "en"})
    assert page.status_code == 500
    text = page.get_data(as_text=True)
    assert "Traceback" not in text and "secret internals" not in text
    assert "Something went wrong" in text


def test_html_error_page_is_friendly(client: FlaskClient) -> None:
    """A missing page renders the error template, translated."""
    response = client.get("/missing", headers={"Accept-Language": "cs"})
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert "Tato stránka neexistuje." in response.get_data(as_text=True)


def test_rules_errors_become_409_or_400(app: Flask) -> None:
    """A RulesError from a view is answered with the core's error code."""
    from referee.rules.errors import IllegalAction, MalformedAction

    def illegal() -> Any:
        raise IllegalAction("not now")

    def malformed() -> Any:
        raise MalformedAction("bad square")

    app.add_url_rule("/api/_illegal", "illegal", illegal)
    app.add_url_rule("/api/_malformed", "malformed", malformed)
    client = app.test_client()
    assert client.get("/api/_illegal").status_code == 409
    assert client.get("/api/_illegal").json == {"error": "illegal", "message": "not now", "status": 409}
    assert client.get("/api/_malformed").status_code == 400


# --- CSRF ------------------------------------------------------------------------------------


@pytest.fixture
def csrf_app(app: Flask) -> Flask:
    """The app plus a form endpoint, a JSON endpoint and a way to read the session's CSRF token."""
    from referee.web.security import csrf_token

    app.add_url_rule("/_csrf", "t_csrf", lambda: jsonify(token=csrf_token()))
    app.add_url_rule("/_form", "t_form", lambda: "saved", methods=["POST"])
    app.add_url_rule("/api/_act", "t_act", lambda: jsonify(ok=True), methods=["POST"])
    return app


def test_csrf_refuses_form_posts_without_token(csrf_app: Flask) -> None:
    """A form post needs the session's token; a wrong or missing one is refused with 403."""
    client = csrf_app.test_client()
    token = client.get("/_csrf").json["token"]  # type: ignore[index]
    assert client.post("/_form", data={"x": "1"}).status_code == 403
    assert client.post("/_form", data={"x": "1", "csrf_token": "forged"}).status_code == 403
    # Same-origin signals do not excuse a form post: a cross-site form looks the same.
    same = {"Sec-Fetch-Site": "same-origin"}
    assert client.post("/_form", data={"x": "1"}, headers=same).status_code == 403
    assert client.post("/_form", data={"csrf_token": token}).status_code == 200
    assert client.post("/_form", data={"x": "1"}, headers={"X-CSRF-Token": token}).status_code == 200
    # Another session's token is worthless here.
    other = csrf_app.test_client()
    other.get("/_csrf")
    assert other.post("/_form", data={"csrf_token": token}).status_code == 403


def test_csrf_on_json_requests(csrf_app: Flask) -> None:
    """JSON posts pass with the header or when same-origin; cross-site ones are refused."""
    client = csrf_app.test_client()
    token = client.get("/_csrf").json["token"]  # type: ignore[index]
    assert client.post("/api/_act", json={}, headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.post("/api/_act", json={}, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    refused = client.post("/api/_act", json={}, headers={"Sec-Fetch-Site": "same-site"})
    assert refused.status_code == 403 and refused.json is not None and refused.json["error"] == "forbidden"
    assert client.post("/api/_act", json={}, headers={"Origin": "http://localhost"}).status_code == 200
    assert client.post("/api/_act", json={}, headers={"Sec-Fetch-Site": "same-origin"}).status_code == 200
    headers = {"Origin": "http://evil.example", "X-CSRF-Token": token}
    assert client.post("/api/_act", json={}, headers=headers).status_code == 200
    # text/plain is sendable cross-site without preflight: treated like a form.
    plain = client.post("/api/_act", data="{}", content_type="text/plain", headers={"Sec-Fetch-Site": "same-origin"})
    assert plain.status_code == 403


# --- Tokens ----------------------------------------------------------------------------------


@pytest.fixture
def game_id(app: Flask, monkeypatch: pytest.MonkeyPatch) -> str:
    """A game of the fake counter mode (tokens need a games row)."""
    monkeypatch.setitem(MODES, "counter", CounterMode())
    store: Store = store_of(app)
    return store.create_game("counter", {}, at=time.time(), by="referee").game_id


def _cookie(response: Any, name: str) -> str | None:
    for header in response.headers.getlist("Set-Cookie"):
        if header.startswith(name + "="):
            return str(header)
    return None


def test_tokens_stored_only_hashed(app: Flask, game_id: str) -> None:
    """Tokens are long random strings; only their sha256 is in the database."""
    issued = issue_token(engine_of(app), TokenKind.PROJECTOR, game_id=game_id)
    assert len(issued.token) >= 32
    with engine_of(app).connect() as conn:
        row = conn.execute(select(Token.__table__).where(Token.id == issued.id)).one()
    assert row.token_hash == hash_token(issued.token) and issued.token not in row
    info = find_token(engine_of(app), issued.token)
    assert info is not None and info.kind is TokenKind.PROJECTOR and info.game_id == game_id
    assert find_token(engine_of(app), issued.token + "x") is None


def test_token_exchange_sets_cookie_and_strips_url(app: Flask, client: FlaskClient) -> None:
    """?token= becomes an HttpOnly SameSite=Lax cookie, and a 303 to the same URL without it."""
    raw = issue_server_referee_token(engine_of(app))
    response = client.get(f"/?lang=x&token={raw}&a=1")
    assert response.status_code == 303
    location = response.headers["Location"]
    assert raw not in location and "token" not in location
    assert location == "/?lang=x&a=1"
    cookie = _cookie(response, "referee")
    assert cookie is not None and raw in cookie
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie and "Secure" not in cookie
    home = client.get("/", headers={"Accept-Language": "en"})
    assert "New game" in home.get_data(as_text=True)
    stranger = app.test_client().get("/", headers={"Accept-Language": "en"})
    assert "New game" not in stranger.get_data(as_text=True)


def test_token_cookie_secure_on_https(app: Flask) -> None:
    """On https the capability cookie is Secure."""
    raw = issue_server_referee_token(engine_of(app))
    response = app.test_client().get(f"/?token={raw}", base_url="https://localhost")
    cookie = _cookie(response, "referee")
    assert cookie is not None and "Secure" in cookie


def test_revoked_token_refused(app: Flask, game_id: str) -> None:
    """A revoked token is refused in the URL, and a revoked cookie grants nothing and is cleared."""
    engine = engine_of(app)
    app.add_url_rule("/_roles/<gid>", "t_roles", lambda gid: jsonify(sorted(current_roles(gid))))
    issued = issue_token(engine, TokenKind.GAME_REFEREE, game_id=game_id)
    client = app.test_client()
    assert client.get(f"/?t={issued.token}").status_code == 303
    assert client.get(f"/_roles/{game_id}").json == ["projector", "referee"]
    with app.test_request_context("/", headers={"Cookie": f"rg_{game_id}={issued.token}"}):
        assert current_roles(game_id) == {Access.REFEREE, Access.PROJECTOR}
    assert revoke_token(engine, issued.id)
    assert client.get(f"/?t={issued.token}", follow_redirects=True).status_code == 403
    with app.test_request_context("/", headers={"Cookie": f"rg_{game_id}={issued.token}"}):
        assert current_roles(game_id) == set()
    response = client.get(f"/_roles/{game_id}")
    assert response.json == []
    cleared = _cookie(response, f"rg_{game_id}")
    assert cleared is not None and "Max-Age=0" in cleared
    assert client.get_cookie(f"rg_{game_id}") is None


def test_cookie_for_another_game_grants_nothing(app: Flask, game_id: str) -> None:
    """A game referee token only works under its own game's cookie name."""
    store: Store = store_of(app)
    other = store.create_game("counter", {}, at=1.0, by="referee").game_id
    issued = issue_token(engine_of(app), TokenKind.GAME_REFEREE, game_id=game_id)
    with app.test_request_context("/", headers={"Cookie": f"rg_{other}={issued.token}"}):
        assert current_roles(other) == set()


def test_server_referee_token_rotation(app: Flask) -> None:
    """Each start prints a new link; unused old links die, used ones (in a cookie) keep working."""
    engine = engine_of(app)
    unused = issue_server_referee_token(engine)
    used = issue_server_referee_token(engine)
    assert app.test_client().get(f"/?token={used}").status_code == 303
    newest = issue_server_referee_token(engine)
    assert find_token(engine, unused) is None
    assert find_token(engine, used) is not None
    assert find_token(engine, newest) is not None


def test_rate_limit_on_token_guessing(app: Flask) -> None:
    """20 wrong tokens per IP per minute are answered 403; then 429, even for a valid one, until the window passes.

    Each refusal is shown after a redirect that drops the token from the address bar.
    """
    now = [1000.0]
    app.extensions["referee.limiter"] = FailureLimiter(limit=20, window=60.0, clock=lambda: now[0])
    client = app.test_client()
    valid = issue_server_referee_token(engine_of(app))
    for i in range(20):
        assert client.get(f"/?t=guess-{i}", follow_redirects=True).status_code == 403
    blocked = client.get(f"/?token={valid}", follow_redirects=True)
    assert blocked.status_code == 429 and blocked.headers["Retry-After"] == "60"
    assert client.get("/api/health?t=guess", follow_redirects=True).status_code == 429
    other_ip = app.test_client().get(f"/?token={valid}", environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert other_ip.status_code == 303
    now[0] += 61
    assert client.get(f"/?token={valid}").status_code == 303


def test_team_join_creates_device(app: Flask, game_id: str) -> None:
    """A join link makes a device with its own cookie token; re-issuing keeps joined devices."""
    engine = engine_of(app)
    join = reissue_join_token(engine, game_id, "A", label="Team A")
    phone = app.test_client()
    response = phone.get(f"/team?t={join.token}")
    assert response.status_code == 303 and response.headers["Location"] == "/team"
    cookie = _cookie(response, f"dv_{game_id}")
    assert cookie is not None and join.token not in cookie
    device_token = cookie.split(";")[0].split("=", 1)[1]
    with engine.connect() as conn:
        devices = conn.execute(select(Device.__table__).where(Device.game_id == game_id)).all()
    assert len(devices) == 1

    def roles(token: str) -> tuple[set[Access], str | None]:
        with app.test_request_context("/", headers={"Cookie": f"dv_{game_id}={token}"}):
            return current_roles(game_id), current_team(game_id)

    assert roles(device_token) == ({Access.TEAM}, "A")
    # Opening the join link again on the same phone does not make a second device.
    assert phone.get(f"/?t={join.token}").status_code == 303
    with engine.connect() as conn:
        assert len(conn.execute(select(Device.id).where(Device.game_id == game_id)).all()) == 1

    new_join = reissue_join_token(engine, game_id, "A")
    assert app.test_client().get(f"/?t={join.token}", follow_redirects=True).status_code == 403
    assert app.test_client().get(f"/?t={new_join.token}").status_code == 303
    assert roles(device_token) == ({Access.TEAM}, "A")

    assert revoke_device(engine, devices[0].id)
    assert roles(device_token) == (set(), None)


def test_guards(app: Flask, game_id: str) -> None:
    """require_referee / require_team abort with 403 unless the cookies grant the role."""
    from werkzeug.exceptions import Forbidden

    engine = engine_of(app)
    referee = issue_server_referee_token(engine)
    join = reissue_join_token(engine, game_id, "B")
    phone = app.test_client()
    phone.get(f"/?t={join.token}")
    device_cookie = phone.get_cookie(f"dv_{game_id}")
    assert device_cookie is not None

    with app.test_request_context("/", headers={"Cookie": f"referee={referee}"}):
        require_referee(game_id)
        require_referee()
        with pytest.raises(Forbidden):
            require_team(game_id)
    with app.test_request_context("/", headers={"Cookie": f"dv_{game_id}={device_cookie.value}"}):
        assert require_team(game_id) == "B"
        with pytest.raises(Forbidden):
            require_referee(game_id)
    with app.test_request_context("/"), pytest.raises(Forbidden):
        require_referee()


def test_pilot_slips_are_signed(app: Flask) -> None:
    """A slip carries game and order; a tampered slip is rejected."""
    with app.app_context():
        slip = make_slip("g1", "1A3")
        assert read_slip(slip) == ("g1", "1A3")
        assert read_slip(slip[:-2] + ("AA" if not slip.endswith("AA") else "BB")) is None
        assert read_slip("garbage") is None


# --- Languages -------------------------------------------------------------------------------


def test_language_from_browser_and_cookie(client: FlaskClient) -> None:
    """Czech by default, English if the browser prefers it, and the lang cookie wins."""
    assert "Rozhodčí" in client.get("/").get_data(as_text=True)
    assert "<h1>Referee</h1>" in client.get("/", headers={"Accept-Language": "en-GB,en;q=0.9"}).get_data(as_text=True)
    response = client.get("/lang/cs?next=/somewhere")
    assert response.status_code == 303 and response.headers["Location"] == "/somewhere"
    assert client.get_cookie("lang") is not None
    assert "Rozhodčí" in client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)


def test_language_redirect_stays_on_site(client: FlaskClient) -> None:
    """/lang never redirects off-site, and an unknown language sets no cookie."""
    assert client.get("/lang/en?next=//evil.example/x").headers["Location"] == "/"
    assert client.get("/lang/en?next=https://evil.example").headers["Location"] == "/"
    fresh = client.application.test_client()
    fresh.get("/lang/xx")
    assert fresh.get_cookie("lang") is None


# --- Socket.IO -------------------------------------------------------------------------------


def test_socketio_settings(app: Flask) -> None:
    """Socket.IO runs threaded, with a small buffer and a non-wildcard origin check."""
    eio = socketio.server.eio
    assert eio.async_mode == "threading"
    assert eio.max_http_buffer_size == 65536
    assert callable(eio.cors_allowed_origins) and eio.cors_allowed_origins != "*"


def test_socketio_refuses_other_origins(client: FlaskClient) -> None:
    """An Engine.IO handshake from another origin is refused; same origin is accepted."""
    url = "/socket.io/?EIO=4&transport=polling"
    assert client.get(url, headers={"Origin": "http://evil.example"}).status_code == 400
    assert client.get(url, headers={"Origin": "http://localhost"}).status_code == 200


def test_same_origin_checker() -> None:
    """The origin check compares scheme and host:port with the request, never X-Forwarded-Host."""
    check = same_origin_checker(["http://projector.local:8080"])
    env = {"HTTP_HOST": "192.168.1.5:5000", "wsgi.url_scheme": "http", "HTTP_X_FORWARDED_HOST": "evil.example"}
    assert check("http://192.168.1.5:5000", env)
    assert not check("https://192.168.1.5:5000", env)
    assert not check("http://192.168.1.5:5001", env)
    assert not check("http://evil.example", env)
    assert check("http://projector.local:8080", env)
    assert check(None, env)


def test_time_ping_answers_with_the_server_clock(app: Flask, client: FlaskClient) -> None:
    """The clock-sync ping is answered to anyone, with the server time in ms."""
    sock = socketio.test_client(app, flask_test_client=client)
    assert sock.emit("time_ping", {"t0": 1}, callback=True)["server_time"] > 1e12
    sock.disconnect()


def test_redis_message_queue(tmp_path: Path, redis_url: str) -> None:
    """With REDIS_URL, Socket.IO emits go through Redis (so several processes share rooms)."""
    import redis

    app = create_app(
        {"SECRET_KEY": "k" * 40, "DATABASE_URL": f"sqlite:///{tmp_path / 'r.sqlite3'}", "REDIS_URL": redis_url},
        instance_path=tmp_path / "inst",
    )
    try:
        pubsub = redis.Redis.from_url(redis_url).pubsub()
        pubsub.subscribe("flask-socketio")
        assert pubsub.get_message(timeout=5)["type"] == "subscribe"  # type: ignore[index]
        socketio.emit("ping_test", {"x": 1}, to="game:none")
        message = pubsub.get_message(timeout=5)
        assert message is not None and message["type"] == "message"
        pubsub.close()
    finally:
        engine_of(app).dispose()


# --- CLI -------------------------------------------------------------------------------------


def test_cli_link_prints_working_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`referee link` prints http://<lan-ip>:<port>/?token=... and a QR code; the token is a referee token."""
    from click.testing import CliRunner

    from referee import cli

    monkeypatch.setattr(cli.links, "lan_ipv4", lambda: "192.168.7.7")
    instance = tmp_path / "inst"
    instance.mkdir()  # only `referee serve` makes an instance folder
    result = CliRunner().invoke(cli.main, ["link", "--port", "5050", "--instance-path", str(instance)])
    assert result.exit_code == 0, result.output
    line = next(word for word in result.output.split() if word.startswith("http://"))
    assert line.startswith("http://192.168.7.7:5050/?token=")
    token = line.split("token=", 1)[1]
    assert "█" in result.output or "##" in result.output
    app = create_app({"DATABASE_URL": f"sqlite:///{instance.resolve() / 'referee.sqlite3'}"}, instance_path=instance)
    try:
        info = find_token(engine_of(app), token)
        assert info is not None and info.kind is TokenKind.REFEREE
    finally:
        engine_of(app).dispose()


def test_a_template_is_compiled_in_a_thread_at_its_first_use(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    # Compiled on the event loop, a page's templates held every screen for up to 80 ms.
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from referee import offload

    compiled: list[str] = []
    real_compile = app.jinja_env.compile

    def compile_and_note(*args: Any, **kwargs: Any) -> Any:
        compiled.append(threading.current_thread().name)
        return real_compile(*args, **kwargs)

    class Pool:
        def apply(self, func: Any, args: tuple[Any, ...] = (), kwds: Any = None) -> Any:
            with ThreadPoolExecutor(1, thread_name_prefix="offload") as pool:
                return pool.submit(func, *args, **(kwds or {})).result()

    monkeypatch.setattr(app.jinja_env, "compile", compile_and_note)
    monkeypatch.setattr(offload, "_pool", Pool())
    client = app.test_client()
    assert client.get("/").status_code == 200
    assert compiled and all(name.startswith("offload") for name in compiled)  # base.html, the home page, ...
    first = len(compiled)
    assert client.get("/").status_code == 200
    assert len(compiled) == first  # compiled once
    assert client.get("/no-such-page").status_code == 404  # the error page too, in a thread
    assert all(name.startswith("offload") for name in compiled)


def test_referee_link_uses_given_host() -> None:
    """A specific host is used as is; IPv6 is bracketed."""
    from referee.cli import referee_link

    assert referee_link("127.0.0.1", 80, "t") == "http://127.0.0.1:80/?token=t"
    assert referee_link("fe80::1", 80, "t") == "http://[fe80::1]:80/?token=t"
