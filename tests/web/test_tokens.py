"""Referee access can be listed and revoked from the terminal, and idle tokens expire on the server."""

from __future__ import annotations

import time

from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from referee.cli import main
from referee.store.models import Token
from referee.web.access import TokenKind, find_token, hash_token, issue_server_referee_token, list_tokens
from referee.web.extensions import engine_of


def _as_referee(client: FlaskClient, token: str) -> None:
    assert client.get(f"/?token={token}").status_code == 303


def _age(app: Flask, token: str, days: float) -> None:
    """Pretend a token was last used `days` ago."""
    stamp = time.time() - days * 86400
    with engine_of(app).begin() as conn:
        conn.execute(
            update(Token.__table__)
            .where(Token.__table__.c.token_hash == hash_token(token))
            .values(created_at=stamp, last_seen_at=stamp)
        )


def test_idle_token_is_refused_by_the_server(app: Flask, client: FlaskClient) -> None:
    """A referee cookie unused past TOKEN_IDLE_DAYS no longer opens the dashboard; a fresh one does."""
    token = issue_server_referee_token(engine_of(app))
    _as_referee(client, token)
    assert client.get("/games/new").status_code == 200
    _age(app, token, app.config["TOKEN_IDLE_DAYS"] + 1)
    refused = client.get("/games/new")
    assert refused.status_code == 403
    # The stale cookie is cleared, so the browser stops presenting it.
    assert any("referee=" in h and "Expires" in h for h in refused.headers.getlist("Set-Cookie"))


def test_token_used_recently_stays_valid(app: Flask, client: FlaskClient) -> None:
    """A token used within the idle limit keeps working."""
    token = issue_server_referee_token(engine_of(app))
    _as_referee(client, token)
    _age(app, token, app.config["TOKEN_IDLE_DAYS"] - 1)
    assert client.get("/games/new").status_code == 200


def test_idle_link_is_refused_at_exchange(app: Flask, client: FlaskClient) -> None:
    """An old printed referee link is refused with a message, not exchanged for a cookie."""
    token = issue_server_referee_token(engine_of(app))
    _age(app, token, app.config["TOKEN_IDLE_DAYS"] + 1)
    answer = client.get(f"/?token={token}", follow_redirects=True)
    assert answer.status_code == 403
    assert client.get_cookie("referee") is None


def test_find_token_idle_limit_is_optional(app: Flask) -> None:
    """Without max_idle, age does not matter; with it, the last use decides."""
    engine = engine_of(app)
    token = issue_server_referee_token(engine)
    _age(app, token, 400)
    assert find_token(engine, token) is not None
    assert find_token(engine, token, max_idle=86400 * 30) is None


def _cli(app: Flask, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, [*args, "--instance-path", app.instance_path, "--database-url", app.config["DATABASE_URL"]]
    )
    return result.exit_code, result.output


def test_tokens_list_and_revoke_from_the_terminal(app: Flask, client: FlaskClient) -> None:
    """`referee tokens list` shows referee tokens without the secret; `revoke ID` locks that browser out."""
    token = issue_server_referee_token(engine_of(app), label="laptop")
    _as_referee(client, token)
    assert client.get("/games/new").status_code == 200
    code, out = _cli(app, "tokens", "list")
    assert code == 0, out
    assert "laptop" in out and token not in out
    [row] = [r for r in list_tokens(engine_of(app)) if r.label == "laptop"]
    code, out = _cli(app, "tokens", "revoke", str(row.id))
    assert code == 0, out
    assert "Revoked 1 token" in out
    assert client.get("/games/new").status_code == 403


def test_tokens_revoke_all_referee(app: Flask, client: FlaskClient) -> None:
    """--all-referee revokes every server referee token at once (a lost referee phone)."""
    first = issue_server_referee_token(engine_of(app))
    _as_referee(client, first)
    code, out = _cli(app, "tokens", "revoke", "--all-referee")
    assert code == 0, out
    assert "referee link" in out
    assert client.get("/games/new").status_code == 403
    assert list_tokens(engine_of(app), kinds=(TokenKind.REFEREE,)) == []


def test_tokens_revoke_refuses_unknown_ids_and_no_arguments(app: Flask) -> None:
    """A wrong id or no id at all is a clear usage error, and nothing is revoked."""
    token = issue_server_referee_token(engine_of(app))
    code, out = _cli(app, "tokens", "revoke", "99999")
    assert code == 2 and "no referee token with id 99999" in out
    code, out = _cli(app, "tokens", "revoke")
    assert code == 2 and "--all-referee" in out
    assert find_token(engine_of(app), token) is not None
