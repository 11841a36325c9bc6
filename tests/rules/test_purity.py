"""The rules core stays pure: standard library only, and no clock reads.

Why: referee/rules decides every game outcome. It must behave the same in a
test, on the referee's laptop and in a replay of the event log, so time always
comes in as an argument and nothing outside the standard library (no web, no
database) is imported. This test reads the source (AST), it imports nothing.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

RULES_DIR = Path(__file__).resolve().parents[2] / "referee" / "rules"
OWN_PACKAGE = "referee.rules"

# Calls that read the clock, by module or class: time.time(), datetime.now(), ...
CLOCK_ATTRS: dict[str, frozenset[str]] = {
    "time": frozenset(
        {
            "time",
            "time_ns",
            "monotonic",
            "monotonic_ns",
            "perf_counter",
            "perf_counter_ns",
            "process_time",
            "process_time_ns",
            "thread_time",
            "thread_time_ns",
            "clock_gettime",
            "clock_gettime_ns",
            "localtime",
            "gmtime",
            "ctime",
            "asctime",
        }
    ),
    "datetime": frozenset({"now", "utcnow", "today"}),
    "date": frozenset({"today"}),
}
# The same functions imported by name: `from time import monotonic`.
CLOCK_IMPORTS: dict[str, frozenset[str]] = {
    "time": CLOCK_ATTRS["time"],
}
# time.localtime() etc. read the clock only when called with no argument.
CLOCK_ONLY_WITHOUT_ARGS = frozenset({"localtime", "gmtime", "ctime", "asctime"})


def _base_name(node: ast.expr) -> str | None:
    """The last name of a dotted base: `time` for time.x, `datetime` for datetime.datetime.x."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def check_source(source: str, filename: str = "<sample>") -> list[str]:
    """Return the purity violations of one module's source, as readable lines."""
    tree = ast.parse(source, filename=filename)
    problems: list[str] = []
    # Local names bound to the clock modules/classes: `import time as t` -> t: time.
    aliases: dict[str, str] = {}

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if (
                    alias.name != OWN_PACKAGE
                    and not alias.name.startswith(OWN_PACKAGE + ".")
                    and top not in sys.stdlib_module_names
                ):
                    problems.append(f"{filename}:{node.lineno}: imports {alias.name!r}, not in the standard library")
                if alias.name in ("time", "datetime"):
                    aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level > 0:
                continue  # relative: inside referee.rules itself
            module = node.module or ""
            top = module.split(".")[0]
            if (
                module != OWN_PACKAGE
                and not module.startswith(OWN_PACKAGE + ".")
                and top not in sys.stdlib_module_names
            ):
                problems.append(f"{filename}:{node.lineno}: imports from {module!r}, not in the standard library")
            for alias in node.names:
                if alias.name in CLOCK_IMPORTS.get(module, frozenset()):
                    problems.append(f"{filename}:{node.lineno}: imports the clock function {module}.{alias.name}")
                if module == "datetime" and alias.name in ("datetime", "date"):
                    aliases[alias.asname or alias.name] = alias.name

    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        base = _base_name(node.value)
        if base is None:
            continue
        kind = aliases.get(base, base if base in CLOCK_ATTRS else None)
        # datetime.datetime.now / datetime.date.today: the class under the module.
        if (
            isinstance(node.value, ast.Attribute)
            and isinstance(node.value.value, ast.Name)
            and aliases.get(node.value.value.id) == "datetime"
            and node.value.attr in ("datetime", "date")
        ):
            kind = node.value.attr
        if kind is None or node.attr not in CLOCK_ATTRS.get(kind, frozenset()):
            continue
        if node.attr in CLOCK_ONLY_WITHOUT_ARGS:
            parent_calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and c.func is node]
            if parent_calls and all(c.args or c.keywords for c in parent_calls):
                continue  # time.gmtime(ts) converts a given time: no clock read
        problems.append(f"{filename}:{node.lineno}: reads the clock ({kind}.{node.attr})")
    return problems


def rules_files() -> list[Path]:
    return sorted(RULES_DIR.rglob("*.py"))


def test_rules_package_exists() -> None:
    assert RULES_DIR.is_dir(), f"missing {RULES_DIR}"
    assert rules_files(), "referee/rules has no Python files"


@pytest.mark.parametrize("path", rules_files(), ids=lambda p: str(p.relative_to(RULES_DIR)))
def test_rules_module_is_pure(path: Path) -> None:
    problems = check_source(path.read_text(encoding="utf-8"), str(path.relative_to(RULES_DIR.parent.parent)))
    assert not problems, "the rules core must stay pure:\n" + "\n".join(problems)


# ---------------------------------------------------------------- self-test

BAD_SAMPLES = {
    "third-party import": "import flask\n",
    "third-party from-import": "from sqlalchemy import select\n",
    "other project module": "from referee.store import Store\n",
    "project web package": "import referee.web\n",
    "time.time": "import time\nx = time.time()\n",
    "time.monotonic": "import time\nx = time.monotonic()\n",
    "time.perf_counter": "import time\nx = time.perf_counter()\n",
    "aliased time": "import time as t\nx = t.time()\n",
    "from time import": "from time import monotonic\n",
    "datetime.now": "from datetime import datetime\nx = datetime.now()\n",
    "datetime.utcnow": "from datetime import datetime\nx = datetime.utcnow()\n",
    "datetime.datetime.now": "import datetime\nx = datetime.datetime.now()\n",
    "date.today": "from datetime import date\nx = date.today()\n",
    "aliased date": "from datetime import date as D\nx = D.today()\n",
    "clock as default": "import time\ndef f(now=time.time):\n    return now()\n",
    "time.localtime()": "import time\nx = time.localtime()\n",
}

GOOD_SAMPLES = {
    "stdlib only": "import re\nimport string\nfrom dataclasses import dataclass\nfrom typing import Iterable\n",
    "relative import": "from ..errors import RulesError\nfrom .. import grid\n",
    "own package": "from referee.rules.grid import Square\nimport referee.rules.errors\n",
    "time as an argument": "def remaining(deadline: float, now: float) -> float:\n    return deadline - now\n",
    "gmtime of a given time": "import time\nx = time.gmtime(0)\n",
    "datetime arithmetic": "from datetime import datetime, timedelta\nx = datetime(2024, 1, 1) + timedelta(1)\n",
    "a field named now": "class R:\n    def f(self, state):\n        return state.now\n",
}


@pytest.mark.parametrize("name", sorted(BAD_SAMPLES))
def test_checker_catches_bad_sample(name: str) -> None:
    assert check_source(BAD_SAMPLES[name]), f"checker missed: {name}"


@pytest.mark.parametrize("name", sorted(GOOD_SAMPLES))
def test_checker_accepts_good_sample(name: str) -> None:
    assert check_source(GOOD_SAMPLES[name]) == []
