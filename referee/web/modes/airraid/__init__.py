"""The air raid's web side: its pages, teams, phones, slips and seas (`pages.py`), its score sheet
(`sheet.py`), and its part of the OpenAPI document (`openapi.py`)."""

from __future__ import annotations

from flask import Flask

from referee.web.modes.airraid import pages, sheet
from referee.web.modes.airraid.openapi import openapi_paths as openapi_paths
from referee.web.modes.airraid.openapi import openapi_views as openapi_views


def init_app(app: Flask) -> None:
    """Register the air raid's pages and its score sheet."""
    pages.init_app(app)
    sheet.init_app(app)
