"""The catalogues: Czech and Swedish complete, Dutch and Norwegian where their modes are played,
Vestorsjø in every language; placeholders intact, compiled, and used for the core's refusals."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from .test_games_web import game  # noqa: F401  (the `game` fixture is used by name)

TRANSLATIONS = Path(__file__).resolve().parents[2] / "referee" / "translations"
CS_PO = TRANSLATIONS / "cs" / "LC_MESSAGES" / "messages.po"
CS_MO = TRANSLATIONS / "cs" / "LC_MESSAGES" / "messages.mo"

PERCENT = re.compile(r"%\((\w+)\)[sdif]|%%")


@pytest.fixture(scope="module")
def cs() -> Catalog:
    with CS_PO.open("rb") as f:
        return read_po(f)


def entries(catalog: Catalog) -> list[Message]:
    """Every message of the catalogue but the header."""
    return [m for m in catalog if m.id]


def forms(message: Message) -> tuple[str, ...]:
    """The msgstr forms of a message (one, or one per plural form)."""
    value = message.string
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,)


def key(message: Message) -> str:
    return message.id[0] if isinstance(message.id, (tuple, list)) else message.id


def brace_fields(text: str) -> list[str]:
    """The {field!conv:spec} placeholders of a str.format template ({{ and }} are literal braces)."""
    return sorted(
        "{" + field + ("!" + conv if conv else "") + (":" + spec if spec else "") + "}"
        for _, field, spec, conv in string.Formatter().parse(text)
        if field is not None
    )


def percent_fields(text: str) -> list[str]:
    """The %(name)s placeholders of a template string."""
    return sorted(m.group(0) for m in PERCENT.finditer(text))


def test_czech_plural_forms(cs: Catalog) -> None:
    assert cs.num_plurals == 3
    assert cs.plural_forms == "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;"


def test_every_czech_message_is_translated(cs: Catalog) -> None:
    missing = [
        key(m) for m in entries(cs) if m.fuzzy or not all(forms(m)) or len(forms(m)) != (3 if m.pluralizable else 1)
    ]
    assert not missing, f"{len(missing)} Czech messages without a translation (or fuzzy): {missing[:20]}"


def test_placeholders_match_between_msgid_and_msgstr(cs: Catalog) -> None:
    wrong = []
    for m in entries(cs):
        source = m.id[-1] if m.pluralizable else m.id
        for i, text in enumerate(forms(m)):
            if not text:
                continue
            try:
                braces_ok = brace_fields(source) == brace_fields(text)
            except ValueError as exc:  # a lone { or } in the translation
                wrong.append((key(m), i, f"not a format string: {exc}"))
                continue
            if not braces_ok:
                wrong.append((key(m), i, f"{brace_fields(source)} != {brace_fields(text)}"))
            if percent_fields(source) != percent_fields(text):
                wrong.append((key(m), i, f"{percent_fields(source)} != {percent_fields(text)}"))
            if "%" in PERCENT.sub("", text):
                wrong.append((key(m), i, "a lone % (templates apply % formatting)"))
            if (source[:1] == " ") != (text[:1] == " ") or (source[-1:] == " ") != (text[-1:] == " "):
                wrong.append((key(m), i, "leading or trailing space differs"))
    assert not wrong, wrong


def test_compiled_catalogue_is_up_to_date(cs: Catalog) -> None:
    with CS_MO.open("rb") as f:
        compiled = read_mo(f)
    stale = [key(m) for m in entries(cs) if (compiled.get(m.id) is None or forms(compiled.get(m.id)) != forms(m))]
    assert not stale, (
        f"messages.mo is older than messages.po; run scripts/compile_translations.sh compile: {stale[:10]}"
    )


def czech(cs: Catalog, msgid: str) -> str:
    message = cs.get(msgid)
    assert message is not None and message.string, msgid
    return str(message.string)


def test_a_refusal_of_the_rules_core_comes_back_in_czech(cs: Catalog, game: dict[str, Any]) -> None:  # noqa: F811
    gid = game["id"]
    english = act_in(game["referee"], gid, {"type": "nope"}, "en")
    assert english["error"] == "malformed"
    template = "unknown action type {kind!r}; known: {known}"
    known = english["message"].split("known: ", 1)[1]
    assert english["message"] == template.format(kind="nope", known=known)
    czech_reply = act_in(game["referee"], gid, {"type": "nope"}, "cs")
    assert czech_reply["error"] == "malformed"
    assert czech_reply["message"] == czech(cs, template).format(kind="nope", known=known)
    assert czech_reply["message"].startswith("neznámý typ akce 'nope'")


def test_a_bad_square_is_refused_in_czech(cs: Catalog, game: dict[str, Any]) -> None:  # noqa: F811
    action = {"type": "lock_sea", "team": "A", "ships": [{"kind": "two", "squares": ["1B", "1C"]}]}
    reply = act_in(game["A"], game["id"], action, "cs")
    assert reply["error"] == "malformed"
    assert reply["message"] == czech(cs, "a square is written like B6, not {text!r}").format(text="1B")
    assert "B6" in reply["message"] and "square" not in reply["message"]
    assert "{" not in reply["message"]


def act_in(client: Any, gid: str, action: dict[str, Any], lang: str) -> dict[str, Any]:
    response = client.post(f"/api/games/{gid}/actions", json={"action": action}, headers={"Accept-Language": lang})
    assert response.status_code == 400, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


# --- Dutch and Norwegian (bokmål): complete where the Battleship modes are played ------------
#
# Zeeslag is played in Dutch and Sjøslag in Norwegian, so every message of the Battleship pages,
# the shared layout, and the rules core they show (the Battleship rules, the sea and placement
# checks) must be translated. The air-raid-only pages may fall back to English in these two.

ROOT = TRANSLATIONS.parent.parent
BATTLESHIP_SOURCES = [
    *sorted((ROOT / "templates" / "battleship").glob("*.html")),
    ROOT / "templates" / "base.html",
    ROOT / "templates" / "error.html",
    ROOT / "referee" / "web" / "templates" / "home" / "index.html",
    *sorted((ROOT / "referee" / "web" / "modes" / "battleship").glob("*.py")),
    *sorted((ROOT / "referee" / "rules" / "battleship").glob("*.py")),
    *(ROOT / "referee" / "rules" / f"{name}.py" for name in ("engine", "modes", "sea", "grid", "placement", "errors")),
]


def battleship_msgids() -> set[str]:
    """Every message the Battleship pages and their rules can show, extracted as pybabel does."""
    from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file

    keywords = {**DEFAULT_KEYWORDS, "_l": None, "lazy_gettext": None, "Msg": None, "N_": None}
    found: set[str] = set()
    for path in BATTLESHIP_SOURCES:
        method = "jinja2" if path.suffix == ".html" else "python"
        for _line, message, _comments, _context in extract_from_file(
            method, str(path), keywords=keywords, options={"extensions": "jinja2.ext.do"}
        ):
            found.add(message[0] if isinstance(message, (tuple, list)) else message)
    return found


@pytest.fixture(scope="module", params=["nl", "nb"])
def board_catalog(request: pytest.FixtureRequest) -> tuple[str, Catalog]:
    with (TRANSLATIONS / request.param / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return request.param, read_po(f)


def test_the_battleship_sources_are_found() -> None:
    ids = battleship_msgids()
    assert {"Place your fleet", "it is {name}'s turn", "Skip to content"} <= ids and len(ids) > 200


def test_every_battleship_message_is_translated_in_dutch_and_norwegian(board_catalog: tuple[str, Catalog]) -> None:
    lang, catalog = board_catalog
    assert catalog.num_plurals == 2
    missing = []
    for msgid in sorted(battleship_msgids()):
        message = catalog.get(msgid) or next((m for m in entries(catalog) if key(m) == msgid), None)
        if message is None or message.fuzzy or not all(forms(message)):
            missing.append(msgid)
    assert not missing, f"{len(missing)} {lang} messages of the Battleship pages untranslated: {missing[:20]}"
    assert not [key(m) for m in entries(catalog) if m.fuzzy]


def test_every_battleship_message_is_translated_in_czech(cs: Catalog) -> None:
    keys = {key(m): m for m in entries(cs)}
    missing = [i for i in sorted(battleship_msgids()) if i not in keys or not all(forms(keys[i]))]
    assert not missing, missing[:20]


def test_dutch_and_norwegian_placeholders_and_compiled(board_catalog: tuple[str, Catalog]) -> None:
    lang, catalog = board_catalog
    wrong = []
    for m in entries(catalog):
        source = m.id[-1] if m.pluralizable else m.id
        for text in forms(m):
            if text and (brace_fields(source) != brace_fields(text) or percent_fields(source) != percent_fields(text)):
                wrong.append(key(m))
    assert not wrong, wrong
    with (TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo").open("rb") as f:
        compiled = read_mo(f)
    stale = [
        key(m)
        for m in entries(catalog)
        if any(forms(m)) and (compiled.get(m.id) is None or forms(compiled.get(m.id)) != forms(m))
    ]
    assert not stale, f"{lang} messages.mo is older than messages.po: {stale[:10]}"


def test_the_battleship_pages_speak_dutch_and_norwegian(app: Any) -> None:
    client = app.test_client()
    nl = client.get("/battleship", headers={"Accept-Language": "nl-BE,en;q=0.5"}).get_data(as_text=True)
    assert '<html lang="nl">' in nl and "Start het spel" in nl and "Wie begint?" in nl
    nb = client.get("/battleship", headers={"Accept-Language": "no"}).get_data(as_text=True)
    assert '<html lang="nb">' in nb and "Start spillet" in nb and "Hvem begynner?" in nb
    # The air-raid pages fall back to English there, and say so in their language tag only.
    assert "Lodě" in client.get("/battleship", headers={"Accept-Language": "cs"}).get_data(as_text=True)


# --- Swedish: every page, and Vestorsjø (the Öresund game) in every language ------------------
#
# Swedish is Vestorsjø's language (its seed is Swedish), and its players also meet the other
# pages, so the Swedish catalogue is complete like the Czech one. Vestorsjø's own pages and rules
# are translated in every language the app offers but English (whose catalogue is the source).

SV_PO = TRANSLATIONS / "sv" / "LC_MESSAGES" / "messages.po"
SV_MO = TRANSLATIONS / "sv" / "LC_MESSAGES" / "messages.mo"
VESTORSJO_SOURCES = [
    *sorted((ROOT / "templates" / "vestorsjo").glob("*.html")),
    *sorted((ROOT / "referee" / "web" / "modes" / "vestorsjo").glob("*.py")),
    *sorted((ROOT / "referee" / "rules" / "vestorsjo").glob("*.py")),
]


@pytest.fixture(scope="module")
def sv() -> Catalog:
    with SV_PO.open("rb") as f:
        return read_po(f)


def catalogue(lang: str) -> Catalog:
    with (TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f)


def msgids_of(sources: list[Path]) -> set[str]:
    """Every message of these source files, extracted as pybabel does."""
    from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file

    keywords = {**DEFAULT_KEYWORDS, "_l": None, "lazy_gettext": None, "Msg": None, "N_": None}
    found: set[str] = set()
    for path in sources:
        method = "jinja2" if path.suffix == ".html" else "python"
        for _line, message, _comments, _context in extract_from_file(
            method, str(path), keywords=keywords, options={"extensions": "jinja2.ext.do"}
        ):
            found.add(message[0] if isinstance(message, (tuple, list)) else message)
    return found


def placeholder_problems(catalog: Catalog) -> list[tuple[str, int, str]]:
    """Each translation whose placeholders, lone % or edge spaces differ from its msgid."""
    wrong = []
    for m in entries(catalog):
        source = m.id[-1] if m.pluralizable else m.id
        for i, text in enumerate(forms(m)):
            if not text:
                continue
            try:
                braces_ok = brace_fields(source) == brace_fields(text)
            except ValueError as exc:
                wrong.append((key(m), i, f"not a format string: {exc}"))
                continue
            if not braces_ok:
                wrong.append((key(m), i, f"{brace_fields(source)} != {brace_fields(text)}"))
            if percent_fields(source) != percent_fields(text):
                wrong.append((key(m), i, f"{percent_fields(source)} != {percent_fields(text)}"))
            if "%" in PERCENT.sub("", text):
                wrong.append((key(m), i, "a lone % (templates apply % formatting)"))
            if (source[:1] == " ") != (text[:1] == " ") or (source[-1:] == " ") != (text[-1:] == " "):
                wrong.append((key(m), i, "leading or trailing space differs"))
    return wrong


def test_swedish_plural_forms(sv: Catalog) -> None:
    assert sv.locale is not None and sv.locale.language == "sv"
    assert sv.num_plurals == 2
    assert sv.plural_forms == "nplurals=2; plural=(n != 1);"


def test_every_swedish_message_is_translated(sv: Catalog) -> None:
    pot = read_po((TRANSLATIONS / "messages.pot").open("rb"))
    assert {key(m) for m in entries(pot)} <= {key(m) for m in entries(sv)}, "run scripts/compile_translations.sh"
    missing = [
        key(m) for m in entries(sv) if m.fuzzy or not all(forms(m)) or len(forms(m)) != (2 if m.pluralizable else 1)
    ]
    assert not missing, f"{len(missing)} Swedish messages without a translation (or fuzzy): {missing[:20]}"


def test_swedish_placeholders_match_and_the_catalogue_is_compiled(sv: Catalog) -> None:
    assert not placeholder_problems(sv), placeholder_problems(sv)
    with SV_MO.open("rb") as f:
        compiled = read_mo(f)
    stale = [key(m) for m in entries(sv) if (compiled.get(m.id) is None or forms(compiled.get(m.id)) != forms(m))]
    assert not stale, f"sv messages.mo is stale: run scripts/compile_translations.sh compile: {stale[:10]}"


def test_the_vestorsjo_sources_are_found() -> None:
    ids = msgids_of(VESTORSJO_SOURCES)
    assert {"End turn", "{piece} is sunk already", "Scania: dark squares"} <= ids and len(ids) > 100


@pytest.mark.parametrize("lang", ["cs", "nl", "nb", "sv"])
def test_every_vestorsjo_message_is_translated_in_every_language(lang: str) -> None:
    catalog = catalogue(lang)
    by_key = {key(m): m for m in entries(catalog)}
    missing = [
        msgid
        for msgid in sorted(msgids_of(VESTORSJO_SOURCES))
        if msgid not in by_key or by_key[msgid].fuzzy or not all(forms(by_key[msgid]))
    ]
    assert not missing, f"{len(missing)} {lang} messages of Vestorsjø untranslated: {missing[:20]}"
    if lang in ("nl", "nb"):  # cs and sv are checked whole above
        vestorsjo = {msgid: by_key[msgid] for msgid in msgids_of(VESTORSJO_SOURCES)}
        wrong = [w for w in placeholder_problems(catalog) if w[0] in vestorsjo]
        assert not wrong, wrong


def test_the_language_list_offers_swedish(app: Any) -> None:
    assert "sv" in app.config["LANGUAGES"]
    client = app.test_client()
    home = client.get("/", headers={"Accept-Language": "sv-FI,fi;q=0.9,en;q=0.5"}).get_data(as_text=True)
    assert '<html lang="sv">' in home
    assert "Svenska" in home and "/lang/sv" in home
    assert "Kvällens resultat" in home and "sjöslag i Öresund" in home and "Sänka skepp" in home
    # The cookie wins over the browser, as for every language.
    client.get("/lang/sv")
    assert '<html lang="sv">' in client.get("/", headers={"Accept-Language": "cs"}).get_data(as_text=True)


def test_the_vestorsjo_pages_speak_swedish(app: Any) -> None:
    client = app.test_client()
    sv_headers = {"Accept-Language": "sv-SE"}
    new = client.get("/vestorsjo", headers=sv_headers).get_data(as_text=True)
    assert '<html lang="sv">' in new
    assert "Hur spelar ni?" in new and "Mot datorn" in new and "Starta partiet" in new and "Skåne" in new
    created = client.post("/api/vestorsjo/games", json={"opponent": "hotseat", "dice": "server"})
    assert created.status_code == 201, created.get_json()
    gid = created.get_json()["game"]
    play = client.get(f"/v/{gid}", headers=sv_headers).get_data(as_text=True)
    # A turn is a "drag" (shared/design/ux.md), the sides one pair of names on every page.
    assert "Strategiska hamnar" in play and "Avsluta draget" in play and "Tärningslogg" in play
    assert "tur" not in re.sub(r"<[^>]+>", " ", play).split()
    blocks = re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', play, re.S)
    data = json.dumps([json.loads(b) for b in blocks], ensure_ascii=False)
    assert '"sv": "Skåne"' in data and '"sv": "Själland"' in data  # the ruleset's names tables
    assert "Skånska sidan" not in data and "Själländska" not in data
    assert '"vs.your_turn": "Ditt drag"' in play  # the scripts' words block
    computer = client.post("/api/vestorsjo/games", json={"opponent": "computer", "dice": "server", "level": "strong"})
    page = client.get(f"/v/{computer.get_json()['game']}", headers=sv_headers).get_data(as_text=True)
    assert "Själland spelas av datorn (stark)." in page
    refused = client.post(
        f"/api/games/{gid}/actions",
        json={"action": {"type": "move", "piece": "nope", "to": "F12"}},
        headers=sv_headers,
    )
    assert refused.status_code in (400, 403, 409), refused.get_json()
    assert refused.get_json()["message"] == "det finns ingen pjäs 'nope'"
    czech = client.get(f"/v/{gid}", headers={"Accept-Language": "cs"}).get_data(as_text=True)
    assert "Strategické přístavy" in czech and "Ukončit tah" in czech
