"""Every module under static/js/ loads in Chromium: no syntax error, every import resolves and
every imported name is exported, in the browser that runs the pages.

The other browser tests fail on a page error, but only for the pages they open; this one
imports each module (static/vendor/ excluded) from a page of the live server, so a module no
test opens is checked too. A module that runs on import (a page script) may throw when the page
it belongs to is not there: only a failure to load counts (SyntaxError, a module that cannot be
fetched), not an error of its own code.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..live_server import ROOT, Server
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

JS = ROOT / "static" / "js"
# Page scripts last: they run on import, and their errors only follow a successful load.
MODULES = sorted(
    (f"/static/js/{p.relative_to(JS).as_posix()}" for p in JS.rglob("*.js")), key=lambda m: ("/lib/" not in m, m)
)

IMPORT_ALL = """async (urls) => {
  const failed = [];
  for (const url of urls) {
    try {
      await import(url);
    } catch (err) {
      const text = String((err && err.message) || err);
      const unresolved = /Failed to fetch dynamically imported module|does not provide an export/;
      const loadFailure = (err && err.name === 'SyntaxError') || unresolved.test(text);
      if (loadFailure) failed.push(`${url}: ${err.name}: ${text}`);
    }
  }
  return failed;
}"""


@pytest.mark.browser
def test_every_module_loads_in_chromium(playwright_api: Any, server: Server) -> None:  # noqa: F811
    assert len(MODULES) > 20, MODULES
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_context().new_page()
            page.set_default_timeout(WAIT)
            page.goto(server.link)
            failed = page.evaluate(IMPORT_ALL, MODULES)
        finally:
            browser.close()
    assert failed == [], "\n".join(failed)
