"""Links a phone opens, and their QR codes: join tokens signed with the app's secret key."""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac

import qrcode  # type: ignore[import-untyped]
import qrcode.image.svg  # type: ignore[import-untyped]
from flask import current_app


def join_token(game_id: str, team: str, nonce: str) -> str:
    """Derive a join token from the secret key and a nonce (192 bits, URL-safe)."""
    key = current_app.secret_key
    if key is None:  # create_app always sets one; never sign with an empty key
        raise RuntimeError("the app has no secret key")
    secret = key.encode() if isinstance(key, str) else key
    digest = hmac.new(secret, f"join:{game_id}:{team}:{nonce}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode().rstrip("=")


@functools.lru_cache(maxsize=512)
def qr_svg(data: str, box_size: int = 10) -> str:
    """Return a QR code as inline SVG markup (kept: a code is about 8 ms to make, and pages show the same again)."""
    image = qrcode.make(data, image_factory=qrcode.image.svg.SvgPathImage, box_size=box_size, border=2)
    text: str = image.to_string(encoding="unicode")
    return text[text.index("<svg") :] if "<svg" in text else text
