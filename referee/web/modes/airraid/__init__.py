"""The air raid's web side: its pages, teams, phones, slips and seas (`pages.py`), and its score sheet (`sheet.py`)."""

from __future__ import annotations

from flask import Flask

from referee.web.modes.airraid import pages, sheet


def init_app(app: Flask) -> None:
    """Register the air raid's pages and its score sheet."""
    pages.init_app(app)
    sheet.init_app(app)
