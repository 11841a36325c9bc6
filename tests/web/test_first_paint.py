"""Phone pages fetch their scripts after the first paint, through static/js/lib/boot.js."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.test_static import module_graph

ROOT = Path(__file__).resolve().parents[2]


def test_the_macro_names_boot_the_module_and_the_socketio_client(app: Flask, client: FlaskClient) -> None:
    with app.test_request_context():
        html = str(app.jinja_env.get_template("_macros.html").module.after_first_paint("js/airraid/team.js"))  # type: ignore[attr-defined]
    urls = dict(re.findall(r'(src|data-module|data-socketio)="([^"]+)"', html))
    assert urls == {
        "src": "/static/js/lib/boot.js",
        "data-module": "/static/js/airraid/team.js",
        "data-socketio": "/static/vendor/socket.io/socket.io.min.js",
    }
    assert 'type="module"' in html
    for url in urls.values():
        assert client.get(url).status_code == 200, url


def test_without_socketio_only_the_module_is_named(app: Flask) -> None:
    with app.test_request_context():
        html = str(
            app.jinja_env.get_template("_macros.html").module.after_first_paint("js/airraid/slips.js", socketio=False)
        )  # type: ignore[attr-defined]
    assert 'data-module="/static/js/airraid/slips.js"' in html
    assert "data-socketio" not in html


@pytest.mark.parametrize("page", ["team", "pilot"])
def test_phone_pages_have_one_script_tag_and_it_is_boot(page: str) -> None:
    # A second <script src> would be fetched at once and share the slow link with the stylesheet.
    text = (ROOT / "templates" / "games" / f"{page}.html").read_text(encoding="utf-8")
    assert f"m.after_first_paint('js/airraid/{page}.js'" in text
    assert "m.socketio_script()" not in text and "m.module(" not in text


def test_boot_waits_for_a_frame_but_not_forever_and_loads_socketio_before_the_module() -> None:
    boot = (ROOT / "static" / "js" / "lib" / "boot.js").read_text(encoding="utf-8")
    assert "requestAnimationFrame" in boot and "setTimeout(resolve, 100)" in boot  # background tabs have no frames
    assert boot.index("classicScript(tag.dataset.socketio)") < boot.index("await import(module)")


AFTER_FIRST_PAINT_RE = re.compile(r"m\.after_first_paint\('js/([^']+)'(?:,\s*preload=\[(.*?)\])?", re.S)


@pytest.mark.parametrize("page", ["team", "pilot"])
def test_a_phone_page_preloads_its_whole_module_graph(page: str) -> None:
    # Each level of imports found only after the one above arrived costs a round trip on slow 3G.
    text = (ROOT / "templates" / "games" / f"{page}.html").read_text(encoding="utf-8")
    match = AFTER_FIRST_PAINT_RE.search(text)
    assert match, page
    js = ROOT / "static" / "js"
    entry = (js / match.group(1)).resolve()
    listed = [(js / ref).resolve() for ref in re.findall(r"'js/([^']+)'", match.group(2) or "")]
    assert len(listed) == len(set(listed)), "a module listed twice"
    needed = module_graph(entry) - {entry}
    assert set(listed) == needed, {
        "missing": sorted(str(p.relative_to(js)) for p in needed - set(listed)),
        "not imported": sorted(str(p.relative_to(js)) for p in set(listed) - needed),
    }


def test_the_macro_passes_the_preload_list_to_boot(app: Flask, client: FlaskClient) -> None:
    with app.test_request_context():
        macros = app.jinja_env.get_template("_macros.html").module  # type: ignore[attr-defined]
        html = str(macros.after_first_paint("js/airraid/pilot.js", preload=["js/lib/conn.js", "js/lib/i18n.js"]))
        bare = str(macros.after_first_paint("js/airraid/pilot.js"))
    preload = re.search(r'data-preload="([^"]+)"', html)
    assert preload and preload.group(1).split(" ") == ["/static/js/lib/conn.js", "/static/js/lib/i18n.js"]
    for url in preload.group(1).split(" "):
        assert client.get(url).status_code == 200, url
    assert "data-preload" not in bare


def test_boot_preloads_the_listed_modules_before_it_waits_for_socketio() -> None:
    boot = (ROOT / "static" / "js" / "lib" / "boot.js").read_text(encoding="utf-8")
    assert "tag.dataset.preload" in boot and "'modulepreload'" in boot
    assert boot.index("tag.dataset.preload") < boot.index("classicScript(tag.dataset.socketio)")
