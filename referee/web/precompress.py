"""Static files go out compressed once at the strongest level and kept in memory.

Flask-Compress compresses every static response again on the fly with a fast streaming level
(zstd 3), which for the team page is about a fifth more bytes than Brotli at quality 11. Static
files do not change while the server runs, so we compress each one once (in a background thread
after its first request, keyed by path, size and mtime) with Brotli 11, or gzip 9 for a client
without Brotli, and serve those bytes; responses that already carry Content-Encoding are left
alone by Flask-Compress.
"""

from __future__ import annotations

import gzip
import os
import threading
import time

from flask import Flask, Response, current_app, request
from werkzeug.security import safe_join

# Only text compresses; images (other than SVG) and fonts are already packed.
COMPRESSIBLE = {
    "text/css",
    "text/javascript",
    "application/javascript",
    "image/svg+xml",
    "application/json",
    "text/html",
}
MIN_SIZE = 500  # below this the encoding header costs more than it saves

_cache: dict[tuple[str, int, int, str], bytes] = {}
_pending: dict[tuple[str, int, int, str], threading.Thread] = {}
_lock = threading.Lock()


def compress_bytes(data: bytes, encoding: str) -> bytes:
    """Return `data` compressed with `encoding` ("br" or "gzip") at its strongest level."""
    if encoding == "br":
        import brotli  # type: ignore[import-untyped]

        return bytes(brotli.compress(data, quality=11))
    return gzip.compress(data, compresslevel=9, mtime=0)


def compressed_file(path: str, encoding: str) -> bytes | None:
    """Return a static file's bytes compressed with `encoding`, or None while that is being made.

    Brotli 11 takes up to half a second for our largest stylesheet on a busy 2-core machine: the
    first request must not wait for it, so it is made in a background thread (once per file
    version) and that request goes out compressed on the fly by Flask-Compress meanwhile.
    """
    stat = os.stat(path)
    key = (path, stat.st_size, stat.st_mtime_ns, encoding)
    cached = _cache.get(key)
    if cached is None:
        with _lock:
            if key not in _pending:
                _pending[key] = threading.Thread(target=_compress_in_background, args=(key,), daemon=True)
                _pending[key].start()
    return cached


def _compress_in_background(key: tuple[str, int, int, str]) -> None:
    path, _size, _mtime, encoding = key
    try:
        with open(path, "rb") as f:
            body = compress_bytes(f.read(), encoding)
        with _lock:
            for old in [k for k in _cache if k[0] == path and k[3] == encoding]:
                del _cache[old]  # an edited file must not keep its old bytes alive
            _cache[key] = body
    finally:
        with _lock:
            _pending.pop(key, None)


def wait_until_compressed(timeout: float = 30.0) -> None:
    """Wait for the background compressions under way (for tests and benchmarks)."""
    deadline = time.monotonic() + timeout
    while True:
        with _lock:
            threads = list(_pending.values())
        if not threads:
            return
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        if time.monotonic() >= deadline:
            return


def choose_encoding() -> str | None:
    """Return the best encoding the client accepts of Brotli and gzip, or None."""
    accepted = request.accept_encodings
    for encoding in ("br", "gzip"):
        if accepted[encoding] > 0:
            return encoding
    return None


def precompressed_static(response: Response) -> Response:
    """Swap a full static file response for its kept compressed bytes."""
    if request.endpoint != "static" or request.method != "GET" or response.status_code != 200:
        return response
    if response.mimetype not in COMPRESSIBLE or "Content-Encoding" in response.headers:
        return response
    if response.content_length is not None and response.content_length < MIN_SIZE:
        return response
    encoding = choose_encoding()
    filename = (request.view_args or {}).get("filename")
    if encoding is None or not filename or request.headers.get("Range"):
        return response
    static = current_app.static_folder
    path = safe_join(static, filename) if static else None
    if path is None or not os.path.isfile(path):
        return response
    body = compressed_file(path, encoding)
    if body is None:
        return response  # not ready yet: Flask-Compress compresses this one on the fly
    response.close()  # release the open file send_file handed over
    response.direct_passthrough = False
    response.set_data(body)
    response.headers["Content-Encoding"] = encoding
    response.headers.pop("Accept-Ranges", None)  # byte ranges would be of the compressed body
    vary = response.headers.get("Vary")
    if not vary:
        response.headers["Vary"] = "Accept-Encoding"
    elif "accept-encoding" not in vary.lower():
        response.headers["Vary"] = f"{vary}, Accept-Encoding"
    etag, weak = response.get_etag()
    if etag:
        response.set_etag(f"{etag}:{encoding}", weak=bool(weak))  # a cache must not mix the encodings
    response.make_conditional(request)  # the browser revalidates with the encoded ETag
    return response


def init_app(app: Flask) -> None:
    """Serve static files precompressed; register after Flask-Compress so this runs first."""
    app.after_request(precompressed_static)
