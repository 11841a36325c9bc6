"""The front end works offline and under the Content-Security-Policy.

- every vendored file has its licence (and a VERSION note) beside it;
- templates carry no inline script code, no on* handlers, no style attributes
  (the CSP is script-src 'self', style-src 'self');
- no asset comes from another host (no CDN: the club has no internet);
- static files referenced by templates and ES module imports exist;
- every string key the scripts ask for is in base.html's i18n block;
- the pure functions of the JS modules behave (run with Node when present).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "static"
VENDOR = STATIC / "vendor"
TEMPLATE_DIRS = [ROOT / "templates", ROOT / "referee" / "web" / "templates"]
LICENCE_NAMES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "COPYING")
# XML namespace names are identifiers, not downloads.
ALLOWED_URL_PREFIXES = ("http://www.w3.org/",)
URL_RE = re.compile(r"https?://[^\s\"'<>)]*", re.IGNORECASE)


def templates() -> list[Path]:
    return sorted(p for d in TEMPLATE_DIRS if d.is_dir() for p in d.rglob("*.html"))


def own_static_files() -> list[Path]:
    """Our own static files (not the vendored ones)."""
    return sorted(
        p
        for p in STATIC.rglob("*")
        if p.is_file() and VENDOR not in p.parents and p.suffix in {".js", ".mjs", ".css", ".html", ".svg", ".json"}
    )


def vendored_files() -> list[Path]:
    return sorted(p for p in VENDOR.rglob("*") if p.is_file()) if VENDOR.is_dir() else []


# ------------------------------------------------------------ vendored files


def test_vendor_folder_has_the_pinned_libraries() -> None:
    assert (VENDOR / "socket.io" / "socket.io.min.js").is_file()
    assert (VENDOR / "jsqr" / "jsQR.js").is_file()
    script = (ROOT / "scripts" / "vendor.sh").read_text(encoding="utf-8")
    for name in ("socket.io", "jsqr"):
        version_note = (VENDOR / name / "VERSION").read_text(encoding="utf-8")
        pinned = re.search(r"^\S+ (\S+)$", version_note.splitlines()[0])
        assert pinned, f"{name}/VERSION must start with '<package> <version>'"
        assert pinned.group(1) in script, (
            f"{name}/VERSION {pinned.group(1)} is not the version pinned in scripts/vendor.sh"
        )


def test_socketio_client_speaks_protocol_v5() -> None:
    # socket.io-client 4.x <-> python-socketio 5.x (Socket.IO protocol v5).
    head = (VENDOR / "socket.io" / "socket.io.min.js").read_text(encoding="utf-8")[:200]
    match = re.search(r"Socket\.IO v(\d+)\.(\d+)\.(\d+)", head)
    assert match and match.group(1) == "4", head


@pytest.mark.parametrize("path", vendored_files(), ids=lambda p: str(p.relative_to(VENDOR)))
def test_every_vendored_file_has_its_licence_beside_it(path: Path) -> None:
    folder = path.parent
    # The licence lives in the package's own folder (or a parent inside vendor/).
    candidates = [folder, *[p for p in folder.parents if VENDOR in p.parents]]
    assert any((d / n).is_file() for d in candidates for n in LICENCE_NAMES), f"no licence beside {path}"
    assert any((d / "VERSION").is_file() for d in candidates), f"no VERSION note beside {path}"


# ------------------------------------------------------------ CSP in templates


class _TagScan(HTMLParser):
    """Collect scripts (attributes + body), inline handlers and style attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.problems: list[str] = []
        self._in_script: dict[str, str | None] | None = None
        self._body: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        for name, _value in attrs:
            if name.lower().startswith("on"):
                self.problems.append(f"<{tag} {name}=...> inline handler (blocked by the CSP)")
            if name.lower() == "style":
                self.problems.append(f"<{tag} style=...> inline style (blocked by style-src 'self')")
        if tag == "style":
            self.problems.append("<style> block (blocked by style-src 'self'): put it in static/css/app.css")
        if tag == "script":
            self._in_script = names
            self._body = []

    def handle_data(self, data: str) -> None:
        if self._in_script is not None:
            self._body.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._in_script is not None:
            self.scripts.append((self._in_script, "".join(self._body)))
            self._in_script = None


JINJA_COMMENT_RE = re.compile(r"{#.*?#}", re.S)


def scan_template(text: str) -> list[str]:
    """Return CSP problems in a template's text (Jinja comments ignored)."""
    scan = _TagScan()
    scan.feed(JINJA_COMMENT_RE.sub("", text))
    scan.close()
    problems = list(scan.problems)
    for attrs, body in scan.scripts:
        kind = (attrs.get("type") or "").strip().lower()
        if kind in ("application/json", "application/ld+json"):
            continue  # data, never executed
        if attrs.get("src"):
            if body.strip():
                problems.append("<script src=...> with code inside as well")
            continue
        problems.append(f"inline <script> with code: {body.strip()[:60]!r}")
    return problems


def test_base_template_has_the_promised_pieces() -> None:
    text = (ROOT / "templates" / "base.html").read_text(encoding="utf-8")
    for block in ("title", "head", "header", "content", "actionbar", "scripts"):
        assert re.search(r"{%-?\s*block " + block + r"\b", text), f"base.html lacks block {block}"
    assert 'id="conn-badge"' in text and 'class="badge"' in text
    assert "/lang/" in text
    assert "css/app.css" in text
    assert 'type="application/json" id="i18n"' in text


@pytest.mark.parametrize("path", templates(), ids=lambda p: str(p.relative_to(ROOT)))
def test_template_is_csp_clean(path: Path) -> None:
    problems = scan_template(path.read_text(encoding="utf-8"))
    assert not problems, f"{path.relative_to(ROOT)}:\n" + "\n".join(problems)


def test_csp_scanner_catches_bad_samples() -> None:
    assert scan_template("<script>alert(1)</script>")
    assert scan_template('<script type="module">import "./x.js"</script>')
    assert scan_template('<button onclick="go()">x</button>')
    assert scan_template('<div style="color:red">x</div>')
    assert scan_template("<style>p{}</style>")
    assert not scan_template('<script src="/static/js/x.js"></script>')
    assert not scan_template('<script type="module" src="/static/js/x.js"></script>')
    assert not scan_template('<script type="application/json" id="d">{"a": "<b>"}</script>')


# ------------------------------------------------------------------ no CDN


def _offending_urls(text: str) -> list[str]:
    return [u for u in URL_RE.findall(text) if not u.startswith(ALLOWED_URL_PREFIXES)]


@pytest.mark.parametrize("path", templates() + own_static_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_remote_urls_in_templates_and_own_static(path: Path) -> None:
    """Our own files name no other host at all: every asset is served locally."""
    text = path.read_text(encoding="utf-8")
    assert not _offending_urls(text), f"{path.relative_to(ROOT)} names remote URLs: {_offending_urls(text)}"
    # Protocol-relative asset links (//cdn.example/x.js) count too.
    assert not re.search(r"""(?:src|href)\s*=\s*["']//""", text), f"{path} has a protocol-relative link"
    assert not re.search(r"""url\(\s*["']?//""", text), f"{path} has a protocol-relative url()"


# What would make a vendored library itself load from elsewhere.
REMOTE_LOAD_RE = re.compile(
    r"""(?:importScripts|import|fetch|new\s+Worker)\s*\(\s*["']https?://"""
    r"""|\bfrom\s*["']https?://"""
    r"""|sourceMappingURL=https?://"""
    r"""|@import\s+(?:url\()?["']?https?://""",
    re.IGNORECASE,
)


@pytest.mark.parametrize("path", vendored_files(), ids=lambda p: str(p.relative_to(VENDOR)))
def test_vendored_file_loads_nothing_remote(path: Path) -> None:
    if path.suffix not in {".js", ".css", ".mjs"}:
        return
    text = path.read_text(encoding="utf-8", errors="replace")
    assert not REMOTE_LOAD_RE.search(text), f"{path} loads from a remote host"


def test_no_cdn_check_catches_a_bad_sample() -> None:
    assert _offending_urls('<script src="https://cdn.jsdelivr.net/npm/x"></script>')
    assert _offending_urls("@import url('http://fonts.example/css');")
    assert not _offending_urls('<svg xmlns="http://www.w3.org/2000/svg"></svg>')
    assert REMOTE_LOAD_RE.search("importScripts('https://unpkg.com/jsqr')")


# ------------------------------------------------------- references resolve


STATIC_REF_RE = re.compile(r"""url_for\(\s*['"]static['"]\s*,\s*filename\s*=\s*['"]([^'"]+)['"]""")


@pytest.mark.parametrize("path", templates(), ids=lambda p: str(p.relative_to(ROOT)))
def test_static_files_named_in_templates_exist(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    missing = [ref for ref in STATIC_REF_RE.findall(text) if not (STATIC / ref).is_file()]
    assert not missing, f"{path.relative_to(ROOT)} names missing static files: {missing}"


IMPORT_RE = re.compile(
    r"""(?:^|\s)(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}/[^'"]+)['"]|import\(\s*['"](\.{1,2}/[^'"]+)['"]""", re.M
)
WORKER_RE = re.compile(r"""(?:importScripts|new URL)\(\s*['"](\.{1,2}/[^'"]+)['"]""")


@pytest.mark.parametrize("path", sorted((STATIC / "js").rglob("*.js")), ids=lambda p: str(p.relative_to(STATIC)))
def test_relative_imports_resolve(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    refs = [a or b for a, b in IMPORT_RE.findall(text)] + WORKER_RE.findall(text)
    missing = [r for r in refs if not (path.parent / r).resolve().is_file()]
    assert not missing, f"{path.relative_to(STATIC)} imports missing files: {missing}"


# ------------------------------------------------------------ module layout

JS = STATIC / "js"
# Shared libraries, the server's own pages (the network help), then one folder per game mode.
FOLDERS = {"lib", "help", "airraid", "battleship", "vestorsjo"}
PAGE_SCRIPT_RE = re.compile(r"""m\.(?:module|after_first_paint)\(\s*['"]js/([^'"]+)['"]""")


def imports_of(path: Path) -> set[Path]:
    """The files a module imports (statically or with import()), resolved."""
    text = path.read_text(encoding="utf-8")
    return {(path.parent / (a or b)).resolve() for a, b in IMPORT_RE.findall(text)}


def module_graph(entry: Path) -> set[Path]:
    """Every module `entry` loads, itself included."""
    seen: set[Path] = set()
    todo = [entry.resolve()]
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(imports_of(path))
    return seen


def page_scripts() -> dict[Path, Path]:
    """The page scripts the templates load: {script: template}."""
    found: dict[Path, Path] = {}
    for template in templates():
        for ref in PAGE_SCRIPT_RE.findall(template.read_text(encoding="utf-8")):
            found[(JS / ref).resolve()] = template
    return found


def test_scripts_live_in_lib_or_a_mode_folder() -> None:
    loose = [str(p.relative_to(JS)) for p in JS.rglob("*.js") if p.relative_to(JS).parts[0] not in FOLDERS]
    assert not loose, f"static/js/ holds lib/ and one folder per mode only: {loose}"


def test_libraries_import_only_libraries() -> None:
    lib = (JS / "lib").resolve()
    wrong = {
        str(p.relative_to(JS)): sorted(str(i.relative_to(JS.resolve())) for i in imports_of(p) if lib not in i.parents)
        for p in sorted((JS / "lib").rglob("*.js"))
    }
    assert not {k: v for k, v in wrong.items() if v}, "a library must not depend on a page or a mode"


def test_no_module_imports_a_page_script() -> None:
    pages = page_scripts()
    assert len(pages) >= 9, pages  # every page of both modes
    importers = {
        str(p.relative_to(JS)): sorted(str(i.relative_to(JS.resolve())) for i in imports_of(p) if i in pages)
        for p in sorted(JS.rglob("*.js"))
    }
    assert not {k: v for k, v in importers.items() if v}, (
        "shared helpers belong in a library module, not in a page script"
    )


def test_pages_of_a_mode_use_only_its_folder_and_the_libraries() -> None:
    for script in page_scripts():
        mode = script.relative_to(JS.resolve()).parts[0]
        assert mode in FOLDERS - {"lib"}, script
        foreign = [p for p in module_graph(script) if p.relative_to(JS.resolve()).parts[0] not in {mode, "lib"}]
        assert not foreign, f"{script.name} loads another mode's modules: {foreign}"


def test_one_element_builder() -> None:
    # lib/dom.js el() is the one way to build nodes from data; a second copy drifts (the old referee h()).
    builder = re.compile(r"^\s*(?:export\s+)?(?:function\s+(?:h|el)\s*\(|const\s+(?:h|el)\s*=\s*\()", re.M)
    copies = [str(p.relative_to(JS)) for p in sorted(JS.rglob("*.js")) if builder.search(p.read_text(encoding="utf-8"))]
    assert copies == ["lib/dom.js"], copies


# ------------------------------------------------------------- i18n strings


def _i18n_keys_in_base() -> set[str]:
    text = (ROOT / "templates" / "base.html").read_text(encoding="utf-8")
    block = text.split('id="i18n">', 1)[1].split("</script>", 1)[0]
    return set(re.findall(r"'([a-z_]+\.[a-z_]+)'\s*:", block))


def test_script_string_keys_are_in_base_i18n_block() -> None:
    known = _i18n_keys_in_base()
    assert known, "no keys found in base.html's i18n block"
    shared = ["lib/conn.js", "lib/timer.js", "lib/sea.js"]
    wanted: set[str] = set()
    for name in shared:
        text = (STATIC / "js" / name).read_text(encoding="utf-8")
        wanted |= set(re.findall(r"""\btn?\(\s*['"]([a-z_]+\.[a-z_]+)['"]""", text))
    # sea.js builds keys from the state and flag names.
    sea = (STATIC / "js" / "lib" / "sea.js").read_text(encoding="utf-8")
    for list_name in ("STATES", "FLAGS"):
        match = re.search(list_name + r"\s*=\s*\[([^\]]*)\]", sea)
        assert match, list_name
        wanted |= {f"sea.{s}" for s in re.findall(r"'(\w+)'", match.group(1))}
    timer = (STATIC / "js" / "lib" / "timer.js").read_text(encoding="utf-8")
    wanted |= set(re.findall(r"'(timer\.[a-z_]+)'", timer))
    assert wanted - known == set(), f"keys used by scripts but missing from base.html: {sorted(wanted - known)}"


def test_base_renders_with_flask_babel() -> None:
    """base.html renders in a bare Flask + Babel app: lang, badge, switcher, valid i18n JSON."""
    from flask import Flask, render_template_string
    from flask_babel import Babel

    app = Flask(__name__, template_folder=str(ROOT / "templates"), static_folder=str(STATIC))
    Babel(app, locale_selector=lambda: "cs")
    with app.test_request_context("/team/1?x=2"):
        html = render_template_string(
            "{% extends 'base.html' %}{% block content %}<p>hi</p>{% endblock %}"
            "{% block actionbar %}<button class='btn'>Go</button>{% endblock %}"
        )
    assert '<html lang="en">' in html  # no current_lang/get_locale in the context: the fallback
    assert 'id="conn-badge"' in html
    assert 'href="/lang/cs?next=/team/1%3Fx%3D2"' in html
    assert 'class="actionbar"' in html
    block = html.split('id="i18n">', 1)[1].split("</script>", 1)[0]
    strings = json.loads(block)
    assert strings["conn.synced"] == "synced ±{ms} ms"
    assert set(strings["conn.offline_queued"]) >= {"one", "few", "other"}
    assert not scan_template(html)

    with app.test_request_context("/"):
        app.jinja_env.globals["current_lang"] = lambda: "cs"
        html = render_template_string("{% extends 'base.html' %}")
    assert '<html lang="cs">' in html
    assert 'class="actionbar"' not in html  # no action, no empty bar


# ------------------------------------------------- JS pure functions (Node)

NODE_CHECKS = r"""
import assert from 'node:assert/strict';
const js = process.argv[1];
const { formatMs, cuesBetween } = await import(js + '/lib/timer.js');
const { bestOffset, backoffMs, newClientId, Outbox } = await import(js + '/lib/conn.js');
const { squareName, parseSquare, shipEdges, normaliseCell, colName } = await import(js + '/lib/sea.js');
const { format, setStrings, t, tn } = await import(js + '/lib/i18n.js');

assert.equal(formatMs(300000), '5:00');
assert.equal(formatMs(299001), '5:00');
assert.equal(formatMs(59001), '1:00');
assert.equal(formatMs(1), '0:01');
assert.equal(formatMs(0), '0:00');
assert.equal(formatMs(-5), '0:00');

assert.deepEqual(cuesBetween(null, 1000), []);
assert.deepEqual(cuesBetween(60050, 59950), [{ cue: 'minute', seconds: 60 }]);
assert.deepEqual(cuesBetween(10050, 9950), [{ cue: 'tick', seconds: 10 }]);
assert.deepEqual(cuesBetween(11050, 10950), []);
assert.deepEqual(cuesBetween(50, 0), [{ cue: 'end', seconds: 0 }]);
assert.deepEqual(cuesBetween(0, 0), []);

const best = bestOffset([
  { rtt: 10, offset: 100 }, { rtt: 300, offset: 900 }, { rtt: 12, offset: 104 },
  { rtt: 11, offset: 98 }, { rtt: 250, offset: -400 },
], 3);
assert.equal(best.offset, 100);
assert.equal(best.precision, 6);
assert.equal(bestOffset([]), null);
assert.equal(backoffMs(1, 1000, 30000, () => 1), 1000);
assert.equal(backoffMs(3, 1000, 30000, () => 0), 2000);
assert.equal(backoffMs(20, 1000, 30000, () => 1), 30000);
assert.match(newClientId(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

const mem = new Map();
const storage = { getItem: (k) => mem.get(k) ?? null, setItem: (k, v) => mem.set(k, v), removeItem: (k) => mem.delete(k) };
const box = new Outbox(storage, 'k');
box.push({ client_id: 'a' }); box.push({ client_id: 'b' });
assert.equal(new Outbox(storage, 'k').size, 2);
box.remove('a');
assert.equal(new Outbox(storage, 'k').first().client_id, 'b');
box.remove('b');
assert.equal(mem.has('k'), false);

assert.equal(squareName(2, 3), 'C4');
assert.equal(colName(26), 'AA');
assert.deepEqual(parseSquare('c4'), { col: 2, row: 3 });
assert.deepEqual(parseSquare('J10'), { col: 9, row: 9 });
assert.equal(parseSquare('4C'), null);
const cells = [
  { square: 'B2', ship: 's' }, { square: 'C2', ship: 's' }, { square: 'D2', ship: 't' },
].map((c) => normaliseCell({ ...c, state: 'ship' }));
const edges = shipEdges(cells);
assert.deepEqual(edges.get('1,1'), ['t', 'b', 'l']);
assert.deepEqual(edges.get('2,1'), ['t', 'r', 'b']);
assert.deepEqual(edges.get('3,1'), ['t', 'r', 'b', 'l']);

assert.equal(format('synced ±{ms} ms', { ms: 12 }), 'synced ±12 ms');
setStrings({ 'x.q': { one: '{n} entry', few: '{n} entries (few)', other: '{n} entries' } });
assert.equal(tn('x.q', 1), '1 entry');
assert.equal(tn('x.q', 5), '5 entries');
assert.equal(t('missing.key'), 'missing.key');
console.log('js ok');
"""  # noqa: E501 - JavaScript for node, one assertion a line


def test_js_modules_pure_functions() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js not installed: JS unit checks skipped")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 18:
        pytest.skip(f"Node.js {version} is too old (need 18+)")
    result = subprocess.run(
        [node, "--input-type=module", "-e", NODE_CHECKS, (STATIC / "js").as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "js ok" in result.stdout


def check_module_syntax(node: str, source: str) -> subprocess.CompletedProcess[str]:
    """Node's syntax check of `source` as an ES module.

    Not `node --check file.js`: with no package.json saying "module", Node 20 reads a .js file as
    CommonJS and, when it then finds import syntax, passes the file without checking it at all.
    """
    return subprocess.run(
        [node, "--input-type=module", "--check"], input=source, capture_output=True, text=True, timeout=60
    )


def test_js_modules_parse() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js not installed: JS syntax check skipped")
    broken = "import { a } from './a.js';\nconst o = { a, b.c };\n"
    assert check_module_syntax(node, broken).returncode != 0, "the syntax check must catch a broken module"
    for path in sorted((STATIC / "js").rglob("*.js")):
        result = check_module_syntax(node, path.read_text(encoding="utf-8"))
        assert result.returncode == 0, f"{path}: {result.stderr}"
