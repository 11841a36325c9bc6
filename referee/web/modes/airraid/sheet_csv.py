"""Writing a CSV file a spreadsheet opens as it is, in the page's language.

The files are UTF-8 with a byte-order mark (so Excel reads Czech letters) and separated by the
list separator a spreadsheet of that language expects: a semicolon where the decimal mark is a
comma (Czech, Swedish, Dutch, Norwegian: Excel there splits on ";"), a comma elsewhere (English).
A cell that begins like a formula (= + - @) gets a leading apostrophe, as spreadsheets advise, so
a pilot named "=1+1" stays a name.
"""

from __future__ import annotations

import csv
import io

from babel.numbers import get_decimal_symbol
from flask import Response

from referee.web.i18n import current_lang

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def list_separator(lang: str) -> str:
    """Return the separator a spreadsheet of a language splits on: ";" where the decimal mark is a comma."""
    try:
        return ";" if get_decimal_symbol(lang) == "," else ","
    except (ValueError, LookupError):
        return ","


def safe_cell(value: object) -> object:
    """Keep a text cell from being read as a formula; numbers pass as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_response(game_id: str, name: str, header: list[str], rows: list[list[object]]) -> Response:
    """Answer a CSV file a spreadsheet opens as it is: BOM, the language's separator, a download name."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=list_separator(current_lang()), lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows([safe_cell(v) for v in row] for row in rows)
    return Response(
        ("\ufeff" + out.getvalue()).encode("utf-8"),
        mimetype="text/csv",
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="referee-{game_id}-{name}.csv"'},
    )
