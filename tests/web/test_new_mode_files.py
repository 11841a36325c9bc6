"""A new mode with pages of its own touches one existing file: the registry's line.

In a copy of the project, the coin-flip mode (tests/coinflip) is added as a developer would add
it: its rules package `referee/rules/coinflip/`, its web side `referee/web/modes/coinflip.py`
(a page to start a game and the game's page) and its templates `templates/coinflip/`. The only
existing file edited is `referee/rules/__init__.py` (import and `register(coinflip.GAME)`). Then,
in a fresh interpreter on that copy: the home page shows the referee a button to the new mode,
a referee starts a game there, plays it through the shared JSON API, its page shows the flips,
the OpenAPI document lists its action, and the layer test passes on the copy.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COINFLIP = ROOT / "tests" / "coinflip"
# The bound on existing files a mode with pages touches; this mode needs one.
MOST_TOUCHED = 3

PLAY = r"""
import re, sys, tempfile
from pathlib import Path
from referee.web import create_app
from referee.web.access import issue_server_referee_token
from referee.web.extensions import engine_of

folder = Path(tempfile.mkdtemp())
app = create_app(
    {"TESTING": True, "SECRET_KEY": "t" * 40, "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}"},
    instance_path=folder / "instance",
)
referee = app.test_client()
with app.app_context():
    token = issue_server_referee_token(engine_of(app))
assert referee.get(f"/?token={token}").status_code == 303
home = referee.get("/").get_data(as_text=True)
assert 'href="/coinflip"' in home and "Coin flip" in home, home
assert "Coin flip" not in app.test_client().get("/").get_data(as_text=True)  # the referee's button only
offer = referee.get("/coinflip")
assert offer.status_code == 200, offer.status_code
csrf = re.search(r'name="csrf_token" value="([^"]+)"', offer.get_data(as_text=True)).group(1)
made = referee.post("/coinflip", data={"csrf_token": csrf})
assert made.status_code == 303, made.status_code
game = made.headers["Location"].rsplit("/", 1)[1]
for call in ("heads", "tails"):
    flipped = referee.post(f"/api/games/{game}/actions", json={"action": {"type": "flip", "call": call}})
    assert flipped.status_code == 200, flipped.get_json()
page = referee.get(f"/coinflip/{game}").get_data(as_text=True)
assert '<p id="calls">heads, tails</p>' in page, page
assert app.test_client().post("/coinflip").status_code in (400, 403)  # no referee, no game
spec = referee.get("/api/openapi.json").get_json()
assert "Action_coinflip_flip" in spec["components"]["schemas"], sorted(spec["components"]["schemas"])
print("played", game)
"""


def _copy_project(to: Path) -> None:
    for name in ("referee", "config", "templates", "static", "pyproject.toml"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, to / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, to / name)
    shutil.copytree(ROOT / "tests" / "web", to / "tests" / "web", ignore=shutil.ignore_patterns("__pycache__"))


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True, text=True).stdout


def test_a_mode_with_pages_touches_only_the_registry(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _copy_project(project)
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "before")

    # The new mode's own files.
    (project / "referee" / "rules" / "coinflip").mkdir()
    shutil.copy2(COINFLIP / "__init__.py", project / "referee" / "rules" / "coinflip" / "__init__.py")
    shutil.copy2(COINFLIP / "web.py", project / "referee" / "web" / "modes" / "coinflip.py")
    shutil.copytree(COINFLIP / "templates" / "coinflip", project / "templates" / "coinflip")
    # The one edit of an existing file: the registry.
    registry = project / "referee" / "rules" / "__init__.py"
    text = registry.read_text(encoding="utf-8")
    text = text.replace("from . import airraid,", "from . import airraid, coinflip,", 1)
    text = text.replace("register(vestorsjo.GAME)", "register(vestorsjo.GAME)\nregister(coinflip.GAME)", 1)
    registry.write_text(text, encoding="utf-8")

    _git(project, "add", "-A")
    changed = _git(project, "diff", "--cached", "--name-status").split("\n")
    modified = sorted(line.split("\t")[1] for line in changed if line.startswith("M"))
    added = sorted(line.split("\t")[1] for line in changed if line.startswith("A"))
    assert modified == ["referee/rules/__init__.py"], modified
    assert len(modified) <= MOST_TOUCHED
    assert len(added) == 4, added

    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(project), "PYTHONDONTWRITEBYTECODE": "1"}
    played = subprocess.run(
        [sys.executable, "-c", PLAY], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert played.returncode == 0, played.stderr[-3000:]
    assert played.stdout.startswith("played ")
    layers = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/web/test_layers.py"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert layers.returncode == 0, layers.stdout[-3000:]
