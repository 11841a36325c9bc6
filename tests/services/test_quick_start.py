"""The README's Quick start, as a referee types it, and then the other `referee` commands.

A copy of the project is installed into its own `.venv` by the Quick start's first command, read
from README.md (`serve` on a free port of 127.0.0.1, so that it can run beside anything). The server runs
from the project folder, then from another folder; `referee link`, `referee games` and `referee
tokens revoke` run from the other one. All of them must use the one instance folder of that
install: the server's link works, the game started is listed, and a revoked browser is refused.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ..airraid_helpers import PLAYERS
from ..live_server import ROOT, free_port
from .test_restart import Browser

LEFT_OUT = shutil.ignore_patterns(".git", ".venv", "instance", "build", "__pycache__", "*.egg-info", ".*_cache")


def clean_env() -> dict[str, str]:
    """The referee's terminal: no REFEREE_* setting, and nothing on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_") and k != "PYTHONPATH"}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def quick_start() -> list[str]:
    """The README's Quick start, its first command split at `&&`: make .venv, install, serve."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Quick start", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    steps = [step.strip() for step in block.splitlines()[0].split("&&")]
    assert len(steps) == 3 and steps[2] == ".venv/bin/referee serve", steps
    return steps


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the project with `.venv` made by the Quick start's first command, all but `serve`."""
    folder = tmp_path_factory.mktemp("quick-start") / "referee"
    shutil.copytree(ROOT, folder, ignore=LEFT_OUT)
    make, install, _serve = quick_start()
    make = make.replace("python3 ", f"{sys.executable} ", 1)  # the Python the tests run on
    done = subprocess.run(
        f"{make} && {install} --quiet --disable-pip-version-check",
        shell=True,
        cwd=folder,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


class Serving:
    """`referee serve` started in a folder, with the link it printed."""

    def __init__(self, project: Path, cwd: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.output: list[str] = []
        self.proc = subprocess.Popen(
            [str(project / ".venv/bin/referee"), "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=cwd,
            env=clean_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        found = threading.Event()
        self.link = ""

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.output.append(line)
                match = re.search(r"(http://\S+\?token=\S+)", line)
                if match and not self.link:
                    self.link = match.group(1)
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        assert found.wait(120), "".join(self.output)
        for _ in range(200):
            try:
                urllib.request.urlopen(self.base + "/api/health", timeout=2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("".join(self.output))

    def instance(self) -> str:
        line = next(line for line in self.output if "Instance folder:" in line)
        return line.split(":", 1)[1].replace("(new: no games yet)", "").strip()

    def made_a_new_instance(self) -> bool:
        return any("Instance folder:" in line and "(new: no games yet)" in line for line in self.output)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(20)


def referee(project: Path, cwd: Path, *args: str) -> str:
    result = subprocess.run(
        [str(project / ".venv/bin/referee"), *args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def is_referee(browser: Browser) -> bool:
    try:
        browser.get("/games/new")
        return True
    except urllib.error.HTTPError as exc:
        assert exc.code == 403
        return False


def test_every_command_uses_the_servers_instance_from_any_folder(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    server = Serving(project, cwd=project)  # "in this folder", as the Quick start says
    try:
        instance = server.instance()
        assert instance == str(project / ".venv/var/referee-instance"), server.output
        assert server.made_a_new_instance()  # the first start says so
        assert not (project / "instance").exists()  # not the source tree's instance folder

        printed = referee(project, elsewhere, "link", "--host", "127.0.0.1", "--port", str(server.port))
        link = re.search(r"(http://\S+\?token=\S+)", printed)
        assert link, printed
        laptop = Browser(server.base)
        laptop.get(link.group(1).split(str(server.port), 1)[1])
        assert is_referee(laptop)  # the link `referee link` printed is one the server knows

        created = laptop.post(
            "/api/games",
            {"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]},
        )
        listed = referee(project, elsewhere, "games", "--host", "127.0.0.1", "--port", str(server.port))
        assert "Eagles" in listed and created["game"] in listed, listed

        revoked = referee(project, elsewhere, "tokens", "revoke", "--all-referee")
        assert re.search(r"Revoked [1-9]\d* token", revoked), revoked
        assert not is_referee(laptop)  # refused at its next request
    finally:
        server.stop()

    # The same install started from another folder: the same instance, the same game.
    server = Serving(project, cwd=elsewhere)
    try:
        assert server.instance() == instance and not server.made_a_new_instance()
        listed = referee(project, project, "games", "--host", "127.0.0.1", "--port", str(server.port))
        assert created["game"] in listed, listed
        laptop = Browser(server.base)
        laptop.get(server.link.split(str(server.port), 1)[1])
        assert is_referee(laptop)
    finally:
        server.stop()
