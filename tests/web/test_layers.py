"""The layers keep to their imports: read from the sources (AST), nothing is imported.

- the store and the play service import no web code, and the play service no Flask;
- the web layer's shared modules reach a game mode only through the registry (no mode's rules
  package by name);
- no import circle anywhere in `referee/`, function-local imports counted;
- function-local imports only where they buy start-up time or keep an optional package optional.

(The rules core's own purity, standard library only and no clock, is tests/rules/test_purity.py.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "referee"

# Every mode's rules: each package of referee/rules/ (the engine's shared modules are files).
MODES = tuple(f"referee.rules.{p.name}" for p in sorted((PACKAGE / "rules").iterdir()) if (p / "__init__.py").is_file())

# (module, imported) pairs allowed inside a function, and why.
LOCAL_IMPORTS_ALLOWED = {
    "referee.cli": None,  # any (and in referee.cli.*): each command imports only what it runs (start-up time)
    "referee.store.engine": {"alembic", "alembic.config"},  # a restart whose schema is current skips Alembic
    "referee.web": {"referee.web"},  # the app factory imports its blueprints, as flaskr's create_app does
    "referee.realtime.queue": {"redis.backoff", "redis.retry"},  # redis is optional (the scale-out extra)
    "referee.web.socketio_app": {"referee.realtime.queue"},  # the Redis queue, only when REDIS_URL is set
    "referee.web.precompress": {"brotli"},  # Brotli only when present
    "referee.web.api.exports": {"brotli"},  # Brotli only when a client takes it
}


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


MODULES = modules()
# The web modules that belong to a mode (web/modes/<mode>), and the one that lists every mode's
# paths for the API's description. Every other web module is shared, and names no mode.
MODE_WEB = {m for m in MODULES if m.startswith("referee.web.modes.")} | {"referee.web.api.openapi"}


def imports(name: str) -> list[tuple[str, bool]]:
    """Return (imported module, inside a function) for every import of a module."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    local = {
        id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(f)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, id(node) in local) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            base = (
                ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
                if node.level
                else node.module or ""
            )
            subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES]
            found += [(m, id(node) in local) for m in (subs if len(subs) == len(node.names) else [base, *subs])]
    return found


def test_the_store_and_the_play_service_import_no_web_code() -> None:
    for name in ("referee.play", *(m for m in MODULES if m == "referee.store" or m.startswith("referee.store."))):
        web = [m for m, _ in imports(name) if m.startswith(("referee.web", "flask"))]
        assert not web, f"{name} imports {web}"


def test_the_shared_web_layer_names_no_mode() -> None:
    assert len(MODES) >= 3 and set(MODULES) >= MODE_WEB, (MODES, MODE_WEB - set(MODULES))
    for name in (m for m in MODULES if m.startswith("referee.web.") and m not in MODE_WEB):
        named = [m for m, _ in imports(name) if m.startswith(MODES)]
        assert not named, f"{name} reaches a mode by name, not through the registry: {named}"


def test_no_import_circle() -> None:
    graph = {
        name: {m for m, _ in imports(name) if m in MODULES and m != name and not m.startswith(name + ".")}
        for name in MODULES
    }
    # Tarjan's strongly connected components: any with two or more modules is a circle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert not circles, circles


def test_function_local_imports_are_only_where_they_buy_something() -> None:
    wrong = []
    for name in MODULES:
        allowed = LOCAL_IMPORTS_ALLOWED.get("referee.cli" if name.startswith("referee.cli.") else name, set())
        for module, local in imports(name):
            if local and allowed is not None and not any(module == a or module.startswith(a + ".") for a in allowed):
                wrong.append(f"{name}: {module}")
    assert not wrong, wrong


def test_the_checks_see_what_they_check() -> None:
    """The import reader finds real imports (so the tests above cannot pass by reading nothing)."""
    assert ("referee.play", False) in imports("referee.web.api.acting")
    assert any(m == "alembic" and local for m, local in imports("referee.store.engine"))
    assert len(MODULES) > 40


# A role written out by hand ("team:" + x), cut apart (role.split(":")) or tested by its prefix:
# each is a second parser of `Role`, which is the only one.
HAND_MADE_ROLE = re.compile(
    r"""f["'](?:team|pilot|player|referee):\{|startswith\(\(?["'](?:team|pilot|player)|role\.split\(|\.split\(["']:["']\)\[1\]"""
)


def test_roles_are_role_values_everywhere() -> None:
    sources = [*(ROOT / "referee").rglob("*.py"), *(ROOT / "templates").rglob("*.html")]
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sources
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if HAND_MADE_ROLE.search(line)
    ]
    assert not found, "roles are made with Role(kind, subject) and read with .kind / .subject:\n" + "\n".join(found)
    assert HAND_MADE_ROLE.search('role = f"team:{team}"') and HAND_MADE_ROLE.search("if role.startswith('pilot')")
