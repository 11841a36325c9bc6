"""The real `referee serve` in a subprocess, for tests that need a live server.

`Server(instance).start()` runs `python -m referee.cli serve` on a free port of 127.0.0.1 with its
own instance folder, reads the referee link the terminal shows (rewritten to 127.0.0.1), and waits
until /api/health answers. The working tree's code is served (cwd and PYTHONPATH are the repo),
never an older installed copy. The server's output is read by a thread (a full pipe would stall
the server) and kept in `output` for failure messages.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A `referee serve` process on a free port with its own instance folder."""

    def __init__(
        self,
        instance: Path,
        *,
        database_url: str | None = None,
        redis_url: str | None = None,
        env: dict[str, str] | None = None,
        port: int | None = None,
        args: list[str] | None = None,
    ) -> None:
        self.instance = instance
        self.port = port or free_port()
        # Scale-out: several servers share one database and message queue (and the instance
        # folder, for one secret key); `env` adds REFEREE_* settings such as REFEREE_PROXY_FIX.
        self.database_url = database_url
        self.redis_url = redis_url
        self.extra_env = dict(env or {})
        self.extra_args = list(args or [])  # e.g. ["--server", "gunicorn"]; the default is gevent
        self.proc: subprocess.Popen[str] | None = None
        self.link = ""
        self.output: list[str] = []
        self._reader: threading.Thread | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> None:  # a loaded 2-core machine can take 30 s
        env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
        env["PYTHONUNBUFFERED"] = "1"
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        env.update(self.extra_env)
        args = ["serve", "--host", "127.0.0.1", "--port", str(self.port), "--instance-path", str(self.instance)]
        if self.database_url:
            args += ["--database-url", self.database_url]
        if self.redis_url:
            args += ["--redis-url", self.redis_url]
        args += self.extra_args
        self.link = ""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=ROOT,
            # Its own process group: with --server gunicorn, the worker (the process that writes)
            # dies with the master. (The default gevent server re-executes itself: the same pid.)
            start_new_session=True,
        )
        found = threading.Event()
        proc = self.proc

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                self.output.append(line)
                if not self.link:
                    match = re.search(r"(http://\S+\?token=\S+)", line)
                    if match:
                        self.link = re.sub(r"^http://[^/]+", self.base, match.group(1))
                        found.set()

        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()
        deadline = time.time() + timeout
        if not found.wait(timeout):
            self.stop()
            raise AssertionError("the server printed no referee link:\n" + self.tail())
        while time.time() < deadline:
            if proc.poll() is not None:
                raise AssertionError("the server stopped:\n" + self.tail())
            try:
                urllib.request.urlopen(f"{self.base}/api/health", timeout=2)
                return
            except OSError:  # URLError, refused or reset, or a read timeout while it is busy
                time.sleep(0.1)
        self.stop()
        raise AssertionError("the server did not answer:\n" + self.tail())

    def tail(self, lines: int = 40) -> str:
        return "".join(self.output[-lines:])

    def kill(self) -> None:
        """SIGKILL to the whole process group: neither gunicorn's master nor its worker tidies up.

        Killing only the master would leave the worker to notice, finish its requests and exit
        gracefully: that is not a crash.
        """
        assert self.proc is not None
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)
        if self._reader:
            self._reader.join(5)

    def stop(self) -> None:
        """Terminate politely (SIGTERM), then kill if it lingers."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()
        if self._reader:
            self._reader.join(5)


def post_json(ctx: Any, url: str, body: dict[str, Any]) -> Any:
    """POST a JSON body through a Playwright context (its cookies are the caller's role); return the answer's JSON."""
    answer = ctx.request.post(url, data=json.dumps(body), headers={"Content-Type": "application/json"})
    assert answer.status < 300, (url, answer.status, answer.text()[:300])
    return answer.json()
