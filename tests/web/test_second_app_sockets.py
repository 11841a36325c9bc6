"""A second app in one process answers Socket.IO events too (in a fresh interpreter).

Flask-SocketIO gives a handler declared after an app's `init_app` to that app's server alone:
if `create_app` imported its events after `init_app`, the first app of a process would answer
and every later one (each test's) would take the event and answer nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TWO_APPS = r"""
import pathlib, tempfile
from referee.web import create_app
from referee.web.extensions import socketio

for n in (1, 2):
    folder = pathlib.Path(tempfile.mkdtemp())
    app = create_app(
        {"TESTING": True, "SECRET_KEY": "t" * 40, "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}"},
        instance_path=folder / "instance",
    )
    client = socketio.test_client(app, flask_test_client=app.test_client())
    ack = client.emit("resync", {"game": "nosuchgame", "seq": 0}, callback=True)
    assert ack and ack["error"] == "not_found", (n, ack)
print("both answered")
"""


def test_every_app_of_a_process_answers_socket_events() -> None:
    done = subprocess.run([sys.executable, "-c", TWO_APPS], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "both answered" in done.stdout
