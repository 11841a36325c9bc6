"""docs/deploy.md, run as it is written wherever it can run here, and deploy/referee@.service checked.

The blocks the page marks `<!-- checked -->` run in one bash script, in order: its settings, then
this test's own (temporary folders, free ports, a fresh database name) right after them, so every
later command is the page's own. Only the two numbers a real machine fixes are changed: port 80
(nginx's, in deploy/nginx.conf and `referee link --port 80`) and the upstream ports of the copy of
deploy/nginx.conf. Then clients from 30 loopback addresses go through nginx: each stays on one
process, and none of the three takes more than half of them.

Needs root (the page runs `su postgres`), PostgreSQL with its `postgres` user, Redis and nginx.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from ..conftest import skip_or_fail
from ..live_server import ROOT, free_port
from .test_scale_out import phones_through

pytestmark = pytest.mark.services

PAGE = ROOT / "docs" / "deploy.md"
UNIT = ROOT / "deploy" / "referee@.service"
NGINX = "/usr/sbin/nginx"


def checked_blocks() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    return re.findall(r"<!-- checked -->\n```sh\n(.*?)```", text, flags=re.S)


def test_the_page_marks_its_checked_steps() -> None:
    blocks = checked_blocks()
    assert len(blocks) == 6, blocks  # settings, PostgreSQL, environment file, processes, nginx, link
    assert blocks[0].lstrip().startswith("REFEREE_HOME=")


def test_the_unit_is_valid_and_hardened(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        skip_or_fail("systemd-analyze is not installed")
    # `verify` wants the program to exist: the same unit, pointed at an executable of this machine.
    unit = tmp_path / "referee@.service"
    unit.write_text(UNIT.read_text(encoding="utf-8").replace("/opt/referee/.venv/bin/referee", sys.executable))
    verify = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    problems = [line for line in (verify.stdout + verify.stderr).splitlines() if "referee@" in line]
    assert verify.returncode == 0 and not problems, verify.stdout + verify.stderr
    security = subprocess.run(
        [analyze, "security", "--offline=yes", str(unit)], capture_output=True, text=True, timeout=60
    )
    level = re.search(r"Overall exposure level for \S+: ([\d.]+)", security.stdout)
    assert level, security.stdout + security.stderr
    assert float(level.group(1)) < 5, level.group(0)


def _psql(sql: str) -> None:
    subprocess.run(["su", "postgres", "-c", f'psql -q -c "{sql}"'], capture_output=True, timeout=60)


def test_the_page_makes_a_cluster_that_spreads_a_wi_fi_over_its_processes(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        skip_or_fail("docs/deploy.md runs as root (su postgres)")
    for program in (NGINX, "/usr/bin/psql"):
        if not Path(program).exists():
            skip_or_fail(f"{program} is not installed")
    home, data, prefix = tmp_path / "opt", tmp_path / "data", tmp_path / "nginx"
    data.mkdir(mode=0o700)
    (home / "deploy").mkdir(parents=True)
    (home / ".venv").symlink_to(Path(sys.prefix))  # this environment's `referee`: installed by scripts/test.sh
    ports = [free_port() for _ in range(3)]
    front = free_port()
    conf = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    for port, mine in zip((5001, 5002, 5003), ports, strict=True):
        conf = conf.replace(f"server 127.0.0.1:{port} ", f"server 127.0.0.1:{mine} ")
    conf, listens = re.subn(r"^(\s*)listen 80;", rf"\1listen 127.0.0.1:{front};", conf, flags=re.M)
    assert listens == 1
    (home / "deploy" / "nginx.conf").write_text(conf, encoding="utf-8")
    db = f"referee_deploy_{secrets.token_hex(4)}"
    mine = "\n".join(
        [
            f"REFEREE_HOME={home}",
            f"DATA={data}",
            f"ENV_FILE={tmp_path / 'etc' / 'referee.env'}",
            f"NGINX_PREFIX={prefix}",
            f"DB={db}",
            f'PORTS="{" ".join(map(str, ports))}"',
        ]
    )
    blocks = checked_blocks()
    blocks[-1] = blocks[-1].replace("--port 80", f"--host 127.0.0.1 --port {front}")
    script = "set -euo pipefail\n" + blocks[0] + "\n# the test's own settings\n" + mine + "\n" + "\n".join(blocks[1:])
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_") and k != "PYTHONPATH"}
    run = subprocess.Popen(
        ["bash", "-c", script],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # the processes it starts in the background: one group to stop
    )
    try:
        output, _ = run.communicate(timeout=240)
        assert run.returncode == 0, output
        link = re.search(r"(http://\S+\?token=\S+)", output)
        assert link and link.group(1).startswith(f"http://127.0.0.1:{front}/"), output
        for port in ports:
            _wait(f"http://127.0.0.1:{port}/api/health", data / f"serve-{port}.log")

        # The link `referee link` printed opens the referee's page through nginx.
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        opener.open(link.group(1), timeout=10).close()
        with opener.open(f"http://127.0.0.1:{front}/games/new", timeout=10) as page:
            assert page.status == 200

        load = phones_through(front, prefix / "logs" / "access.log")  # 30 addresses, 3 requests each
        assert len(load) == 3 and max(load.values()) <= 30 // 2, load
    finally:
        pid = prefix / "nginx.pid"
        if pid.exists():
            os.kill(int(pid.read_text().strip()), signal.SIGTERM)
        try:
            os.killpg(run.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        time.sleep(1)
        _psql(f"DROP DATABASE IF EXISTS {db}")
        _psql(f"DROP ROLE IF EXISTS {db}")


def _wait(url: str, log: Path) -> None:
    for _ in range(300):
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(log.read_text(encoding="utf-8") if log.exists() else f"{url} never answered")
