"""Phone pages fetch their scripts after the first paint, through static/js/boot.js."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

ROOT = Path(__file__).resolve().parent.parent


def test_the_macro_names_boot_the_module_and_the_socketio_client(app: Flask, client: FlaskClient) -> None:
    with app.test_request_context():
        html = str(app.jinja_env.get_template("_macros.html").module.after_first_paint("js/team.js"))  # type: ignore[attr-defined]
    urls = dict(re.findall(r'(src|data-module|data-socketio)="([^"]+)"', html))
    assert urls == {
        "src": "/static/js/boot.js",
        "data-module": "/static/js/team.js",
        "data-socketio": "/static/vendor/socket.io/socket.io.min.js",
    }
    assert 'type="module"' in html
    for url in urls.values():
        assert client.get(url).status_code == 200, url


def test_without_socketio_only_the_module_is_named(app: Flask) -> None:
    with app.test_request_context():
        html = str(app.jinja_env.get_template("_macros.html").module.after_first_paint("js/print.js", socketio=False))  # type: ignore[attr-defined]
    assert 'data-module="/static/js/print.js"' in html
    assert "data-socketio" not in html


@pytest.mark.parametrize("page", ["team", "pilot"])
def test_phone_pages_have_one_script_tag_and_it_is_boot(page: str) -> None:
    # A second <script src> would be fetched at once and share the slow link with the stylesheet.
    text = (ROOT / "templates" / "games" / f"{page}.html").read_text(encoding="utf-8")
    assert f"m.after_first_paint('js/{page}.js')" in text
    assert "m.socketio_script()" not in text and "m.module(" not in text


def test_boot_waits_for_a_frame_but_not_forever_and_loads_socketio_before_the_module() -> None:
    boot = (ROOT / "static" / "js" / "boot.js").read_text(encoding="utf-8")
    assert "requestAnimationFrame" in boot and "setTimeout(resolve, 100)" in boot  # background tabs have no frames
    assert boot.index("classicScript(tag.dataset.socketio)") < boot.index("await import(module)")
