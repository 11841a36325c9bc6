"""Every `referee` command, given a user's mistake: one clear line, a non-zero exit, no traceback.

Each case runs the real command in a subprocess (`serve` re-executes itself under gevent, so it
cannot run inside pytest), from a folder of its own, with no REFEREE_* setting of the caller's.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from ..live_server import ROOT, Server, free_port


def referee(args: list[str], cwd: Path, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def said(result: subprocess.CompletedProcess[str]) -> str:
    """What the user reads, less the log lines of a first migration."""
    lines = (result.stdout + result.stderr).splitlines()
    return "\n".join(line for line in lines if " INFO alembic." not in line)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A working folder with an instance made by a first `serve` (its database and secret key)."""
    (tmp_path / "bad.toml").write_text('name = "x"\nmode = ', encoding="utf-8")
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    return tmp_path


CASES: list[tuple[str, list[str], int, str]] = [
    (
        "serve, port out of range",
        ["serve", "--port", "70000", "--instance-path", "inst"],
        2,
        "not in the range 1<=x<=65535",
    ),
    ("serve, port zero", ["serve", "--port", "0", "--instance-path", "inst"], 2, "not in the range"),
    (
        "serve, no such host",
        ["serve", "--host", "nosuchhost.invalid", "--instance-path", "inst"],
        1,
        "cannot listen on 'nosuchhost.invalid': no such address here",
    ),
    (
        "serve, not this machine's address",
        ["serve", "--host", "192.0.2.1", "--instance-path", "inst"],
        1,
        "192.0.2.1 is not an address of this machine",
    ),
    (
        "serve, a database URL SQLAlchemy does not know",
        ["serve", "--database-url", "nonsense://x", "--instance-path", "inst"],
        1,
        "the database URL is not one referee can open",
    ),
    (
        "serve, an unparsable database URL",
        ["serve", "--database-url", "not a url", "--instance-path", "inst"],
        1,
        "the database URL is not one referee can open",
    ),
    (
        "serve, PostgreSQL unreachable",
        [
            "serve",
            "--database-url",
            "postgresql+psycopg://referee:s3cret@127.0.0.1:{port}/referee",
            "--instance-path",
            "i",
        ],
        1,
        "cannot open the database postgresql+psycopg://referee:***@127.0.0.1:{port}/referee: connection failed",
    ),
    (
        "serve, Redis unreachable",
        ["serve", "--redis-url", "redis://127.0.0.1:{port}/0", "--instance-path", "inst"],
        1,
        "cannot reach the message queue redis://127.0.0.1:{port}/0",
    ),
    ("serve, not a Redis URL", ["serve", "--redis-url", "amqp://x", "--instance-path", "inst"], 2, "a Redis URL"),
    (
        "serve, an instance folder inside a file",
        ["serve", "--instance-path", "a-file/instance"],
        1,
        "cannot use the instance folder",
    ),
    ("link, a mistyped instance folder", ["link", "--instance-path", "typo"], 1, "there is no instance folder"),
    ("games, a mistyped instance folder", ["games", "--instance-path", "typo"], 1, "there is no instance folder"),
    ("tokens list, a mistyped instance folder", ["tokens", "list", "--instance-path", "typo"], 1, "no instance folder"),
    (
        "tokens revoke, a mistyped instance folder",
        ["tokens", "revoke", "--all-referee", "--instance-path", "typo"],
        1,
        "there is no instance folder",
    ),
    ("tokens revoke, no id", ["tokens", "revoke", "--instance-path", "inst"], 2, "name the token ids to revoke"),
    ("tokens revoke, an unknown id", ["tokens", "revoke", "999", "--instance-path", "inst"], 2, "no referee token"),
    ("link, port out of range", ["link", "--port", "-1", "--instance-path", "inst"], 2, "not in the range"),
    ("rules check, a malformed ruleset", ["rules", "check", "bad.toml"], 1, "bad.toml: -: not valid TOML"),
    ("rules check, no such file", ["rules", "check", "none.toml"], 1, "none.toml: -: No such file or directory"),
    ("play, no such ruleset", ["play", "nosuch", "bad.toml"], 1, "nosuch: no such ruleset file"),
    ("play, no such actions file", ["play", "zeeslag", "none.jsonl"], 1, "none.jsonl: No such file or directory"),
    ("map check, a malformed map", ["map", "check", "bad.toml"], 1, "bad.toml: -: not valid TOML"),
    ("sea place, a malformed ruleset", ["sea", "place", "bad.toml"], 1, "bad.toml: -: not valid TOML"),
    ("a log level that is none", ["--log-level", "loud", "games"], 2, "log level must be one of"),
    ("no such command", ["serv"], 2, "No such command 'serv'"),
]


@pytest.mark.parametrize(("args", "status", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_mistake_is_one_clear_line_and_a_non_zero_exit(
    folder: Path, args: list[str], status: int, message: str
) -> None:
    port = str(free_port())  # nothing listens there
    args = [a.replace("{port}", port) for a in args]
    message = message.replace("{port}", port)
    if "inst" in args and args[0] != "serve":
        (folder / "inst").mkdir()  # as `referee serve` leaves it: the command fills it in
    result = referee(args, folder)
    text = said(result)
    assert result.returncode == status, text
    assert message in text, text
    assert "Traceback" not in text and "s3cret" not in text, text
    assert len(text.splitlines()) <= 4, text  # at most click's usage error: usage, hint, blank, the error
    assert "token=" not in text  # no link was printed, nor any old one revoked
    assert not (folder / "typo").exists()  # a mistyped instance folder is not made


def test_a_taken_port_leaves_the_running_server_and_its_link_alone(tmp_path: Path) -> None:
    running = Server(tmp_path / "instance")
    running.start()
    try:
        result = referee(
            ["serve", "--host", "127.0.0.1", "--port", str(running.port), "--instance-path", str(running.instance)],
            tmp_path,
        )
        text = said(result)
        assert result.returncode == 1, text
        assert f"port {running.port} is taken: is referee serving there already?" in text
        assert "token=" not in text and "Traceback" not in text
        # The link the running server printed still makes a browser the referee.
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        opener.open(running.link, timeout=10).close()
        with opener.open(f"{running.base}/games/new", timeout=10) as answer:
            assert answer.status == 200
    finally:
        running.stop()


def test_a_port_in_use_by_another_program_is_named(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = referee(["serve", "--host", "127.0.0.1", "--port", str(port)], tmp_path)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}: port {port} is taken" in said(result)
