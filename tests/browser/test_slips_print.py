"""Printed slips: six to an A4 sheet, each whole, each telling a pilot without a phone what to do.

The slips page is laid out for print (A4, the browser's print media): every slip's text,
the line for a pilot without a phone included, stands inside the slip, in Czech and English.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..live_server import ROOT, Server, post_json
from .test_e2e_game import CHROMIUM, CHROMIUM_ARGS, WAIT, playwright_api  # noqa: F401

SHOTS = ROOT / "test-artifacts" / "screenshots" / "print"
A4 = {"width": 794, "height": 1123}  # 210 × 297 mm at 96 px an inch
TEAMS = [
    {"name": "Orli", "players": ["Ann", "Ada", "Abe", "Amy", "Alf", "Aja", "Ari"]},
    {"name": "Sokoli", "players": ["Bob", "Bea", "Ben", "Bo"]},
]
HINT = {
    "en": "No phone? Play each dogfight at the table and tell the referee who won.",
    "cs": "Nemáte telefon? Každý vzdušný souboj odehrajte u stolu a řekněte rozhodčímu, kdo vyhrál.",
}
CUT = """() => [...document.querySelectorAll('.slip')].map((slip) => {
  const box = slip.getBoundingClientRect();
  const out = [...slip.querySelectorAll('*')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.height > 0 && (r.bottom > box.bottom + 0.5 || r.right > box.right + 0.5);
  }).map((e) => e.className || e.tagName);
  return out;
}).filter((out) => out.length)"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_six_whole_slips_to_an_a4_sheet(playwright_api: Any, server: Server, lang: str) -> None:  # noqa: F811
    sync_playwright = playwright_api.sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(viewport=A4, extra_http_headers={"Accept-Language": lang})
            ctx.set_default_timeout(WAIT)
            page = ctx.new_page()
            page.goto(server.link)
            gid = post_json(ctx, f"{server.base}/api/games", {"teams": TEAMS})["game"]

            def act(action: dict[str, Any]) -> Any:
                return post_json(ctx, f"{server.base}/api/games/{gid}/actions", {"action": action})

            for team in "AB":
                ships = post_json(ctx, f"{server.base}/api/games/{gid}/sea/random", {"team": team})["ships"]
                act({"type": "lock_sea", "team": team, "ships": ships})
            act({"type": "start_game"})
            act({"type": "set_defender", "team": "A", "pilot": "Ari"})
            for i, pilot in enumerate(TEAMS[0]["players"][:6]):
                view = ctx.request.get(f"{server.base}/api/games/{gid}/view").json()
                options = next(a for a in view["legal"] if a["type"] == "add_order" and a["team"] == "A")["options"]
                kind = "bomber" if i % 2 else "fighter"
                ship = next(o["ship"] for o in options["ships"] if o[kind] > 0)
                order = {"type": "add_order", "team": "A", "pilot": pilot, "ship": ship, "kind": kind}
                order |= {"target": "C3"} if kind == "bomber" else {}
                order["corridor"] = ("upper", "middle", "lower")[i % 3]
                answer = act(order)
                assert answer.get("ok", True) is not False, answer
            page.goto(f"{server.base}/g/{gid}/slips")
            page.emulate_media(media="print")
            assert page.locator(".slip").count() == 6
            hint = page.locator(".slip-hint").first.inner_text()
            assert hint.startswith(HINT[lang]), hint
            # The pilot's card of the rules, as an address to type (not a second QR code).
            assert page.locator(".slip-rules").first.inner_text().endswith(f"/rules/pilot?game={gid}")
            assert page.locator(".slip svg").count() == 6
            # Nothing on a slip runs into its QR code (a fighter's slip has the least room above).
            overlaps = page.evaluate(
                """() => [...document.querySelectorAll('.slip')].flatMap((slip) => {
                  const qr = slip.querySelector('.slip-qr').getBoundingClientRect();
                  return [...slip.querySelectorAll('.slip-meta, .slip-url, .slip-hint')]
                    .filter((e) => { const r = e.getBoundingClientRect();
                      return r.top < qr.bottom - 0.5 && r.bottom > qr.top && r.left < qr.right && r.right > qr.left; })
                    .map((e) => slip.querySelector('.slip-pilot').innerText + ': ' + e.className);
                })"""
            )
            assert overlaps == [], overlaps
            assert page.evaluate(CUT) == []
            tops = page.evaluate(
                "() => [...document.querySelectorAll('.slip')].map((s) => s.getBoundingClientRect().bottom)"
            )
            assert max(tops) <= A4["height"] + 1, f"six slips run past one A4 page: {tops}"
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"{lang}-slips-print.png"))
        finally:
            browser.close()


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_the_print_pack_is_one_a4_page_a_sheet(playwright_api: Any, server: Server, lang: str) -> None:  # noqa: F811
    sync_playwright = playwright_api.sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(viewport=A4, extra_http_headers={"Accept-Language": lang})
            ctx.set_default_timeout(WAIT)
            page = ctx.new_page()
            page.goto(server.link)
            ten = {"name": "Orli", "players": [f"P{i}" for i in range(10)]}  # a 10×10 sea, the largest
            gid = post_json(ctx, f"{server.base}/api/games", {"teams": [ten, TEAMS[1]]})["game"]
            ships = post_json(ctx, f"{server.base}/api/games/{gid}/sea/random", {"team": "A"})["ships"]
            post_json(
                ctx,
                f"{server.base}/api/games/{gid}/actions",
                {"action": {"type": "lock_sea", "team": "A", "ships": ships}},
            )
            page.goto(f"{server.base}/g/{gid}/print")
            page.emulate_media(media="print")
            heights = page.evaluate("() => [...document.querySelectorAll('.print-sheet')].map((s) => s.scrollHeight)")
            assert len(heights) == 6 and max(heights) <= A4["height"] - 40, heights  # with the printer's margins
            assert page.evaluate(CUT.replace(".slip'", ".print-sheet'")) == []
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"{lang}-print-pack.png"), full_page=True)
        finally:
            browser.close()


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "cs"])
def test_each_card_of_the_rules_is_one_a4_page(playwright_api: Any, server: Server, lang: str) -> None:  # noqa: F811
    sync_playwright = playwright_api.sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(viewport=A4, extra_http_headers={"Accept-Language": lang})
            ctx.set_default_timeout(WAIT)
            page = ctx.new_page()
            SHOTS.mkdir(parents=True, exist_ok=True)
            for card in ("pilot", "base", "referee"):
                page.goto(f"{server.base}/rules/{card}")
                page.emulate_media(media="print")
                height = page.evaluate("() => document.querySelector('.rules-card').scrollHeight")
                assert height <= A4["height"] - 60, f"the {card}'s card runs over one A4 page: {height} px"
                page.screenshot(path=str(SHOTS / f"{lang}-rules-{card}.png"), full_page=True)
            # On a phone the whole rules read without sideways scrolling.
            page.set_viewport_size({"width": 360, "height": 740})
            page.emulate_media(media="screen")
            page.goto(f"{server.base}/rules")
            assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth + 1")
            page.screenshot(path=str(SHOTS / f"{lang}-rules-phone.png"), full_page=True)
        finally:
            browser.close()
