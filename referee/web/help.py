"""Running without a router: the network help page, and the check that a phone reaches the laptop.

- `GET /help/network`: how to run the game from a laptop's or a phone's hotspot, every address
  of this computer with its QR code, and the phones that reached it lately (`static/js/help/network.js`
  asks `/api/reach` every few seconds);
- `GET /help/reach`: what a phone opens from one of those QR codes: it says that the phone
  reaches the laptop, and the laptop notes by which address;
- `GET /api/reach`: the phones that reached it in the last ten minutes, newest first.

Nothing here is a secret: anyone on the network already knows the address they opened.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

from flask import Blueprint, current_app, jsonify, render_template, request
from werkzeug.wrappers import Response

from referee import offload
from referee.web.addresses import lan_addresses
from referee.web.links import qr_svg

bp = Blueprint("help", __name__)

KEPT = 50
"""Reaches kept (a club's phones, and then some): the oldest go first."""
RECENT_SECONDS = 600.0
_lock = threading.Lock()


def _reaches() -> deque[dict[str, Any]]:
    found: deque[dict[str, Any]] = current_app.extensions.setdefault("referee.reaches", deque(maxlen=KEPT))
    return found


def _port() -> str:
    """The port the page was opened on (a phone must use the same one): digits, else 80."""
    host = request.host
    _name, colon, port = host.rpartition(":")
    if not colon or host.endswith("]"):  # no port ("club.lan", "[::1]")
        return "80"
    return port if port.isdigit() and 0 < int(port) < 65536 else "80"


@bp.get("/help/network")
def network() -> str:
    """Show how phones reach the laptop without a router, and every address to try."""
    port = _port()
    found = [(name, address, f"http://{address}:{port}/help/reach") for name, address in lan_addresses()]
    # The codes are made in a thread: a page of a dozen addresses on a port not asked for before
    # is a hundred milliseconds of QR drawing, which the event loop does not wait for.
    codes = offload.run(lambda: [qr_svg(url, box_size=6) for _name, _address, url in found])
    addresses = [
        {"name": name, "address": address, "url": url, "qr": code}
        for (name, address, url), code in zip(found, codes, strict=True)
    ]
    return render_template("help/network.html", addresses=addresses, port=port)


@bp.get("/help/reach")
def reach() -> str:
    """A phone opened an address of the laptop: note it, and tell the phone it worked."""
    agent = request.user_agent.string or ""
    with _lock:
        _reaches().appendleft(
            {
                "at": time.time(),
                "address": request.host[:80],
                "from": (request.remote_addr or "")[:64],
                "device": _device_words(agent),
            }
        )
    return render_template("help/reach.html", address=request.host)


@bp.get("/api/reach")
def reached() -> Response:
    """The phones that opened /help/reach in the last ten minutes, newest first."""
    now = time.time()
    with _lock:
        recent = [dict(r) for r in _reaches() if now - r["at"] <= RECENT_SECONDS]
    for r in recent:
        r["seconds_ago"] = round(now - r.pop("at"))
    return jsonify({"reaches": recent})


def _device_words(agent: str) -> str:
    """A phone's kind in a word or two, from its browser's User-Agent (never the whole string)."""
    for needle, words in (
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Android", "Android"),
        ("Windows", "Windows"),
        ("Macintosh", "Mac"),
        ("CrOS", "Chromebook"),
        ("Linux", "Linux"),
    ):
        if needle in agent:
            return words
    return ""
