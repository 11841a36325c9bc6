"""Pilot slips: a game's order signed with the app's secret key, printed as a QR code."""

from __future__ import annotations

import base64
import hashlib
import hmac

from flask import current_app

from referee.web.security import same_text

# ---------------------------------------------------------------------------------------
# Pilot slips: signed, not secret


SLIP_SIGNATURE_CHARS = 16  # 96 bits: forging one is hopeless, and the printed link stays short


def _slip_signature(value: str) -> str:
    key = current_app.secret_key
    raw_key = key.encode() if isinstance(key, str) else bytes(key or b"")
    digest = hmac.new(raw_key, b"slip:" + value.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:SLIP_SIGNATURE_CHARS]


def make_slip(game_id: str, order_id: str) -> str:
    """Return a pilot's order slip code: game, order and a signature (nothing secret)."""
    value = f"{game_id}.{order_id}"
    return f"{value}.{_slip_signature(value)}"


def read_slip(slip: str) -> tuple[str, str] | None:
    """Return (game_id, order_id) of a genuine slip, or None."""
    if not isinstance(slip, str) or len(slip) > 100:
        return None
    parts = slip.split(".")
    if len(parts) != 3 or not all(parts):
        return None
    game_id, order_id, signature = parts
    if not same_text(signature, _slip_signature(f"{game_id}.{order_id}")):
        return None
    return game_id, order_id
