"""Static files go out precompressed (Brotli 11 or gzip 9), revalidate by ETag, and plain when not asked.

The strong compression is made in the background after a file's first request; `ready` asks once
and waits for it, as a second phone would find it.
"""

from __future__ import annotations

import gzip
import threading
from pathlib import Path

import brotli  # type: ignore[import-untyped]
import pytest
from flask.testing import FlaskClient

from referee.web import precompress

ROOT = Path(__file__).resolve().parents[2]
CSS = (ROOT / "static" / "css" / "app.css").read_bytes()
URL = "/static/css/app.css"


def ready(client: FlaskClient, encoding: str, url: str = URL) -> None:
    """Ask for a file once so its compressed copy is made, and wait until it is."""
    client.get(url, headers={"Accept-Encoding": encoding})
    precompress.wait_until_compressed()


def test_the_first_request_does_not_wait_for_brotli_11(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    started = threading.Event()
    release = threading.Event()
    finished = threading.Event()

    def slow(data: bytes, encoding: str) -> bytes:
        started.set()
        release.wait(10)
        finished.set()
        return compress(data, encoding)

    compress = precompress.compress_bytes
    monkeypatch.setattr(precompress, "compress_bytes", slow)
    monkeypatch.setattr(precompress, "_cache", {})  # whatever earlier tests compressed
    url = "/static/js/lib/timer.js"
    try:
        first = client.get(url, headers={"Accept-Encoding": "br"})
        assert started.wait(10)
        assert not finished.is_set()  # answered while Brotli 11 still runs
        assert first.status_code == 200
        assert first.headers["Content-Encoding"] == "br"  # Flask-Compress's quick level meanwhile
        assert brotli.decompress(first.get_data()) == (ROOT / "static" / "js" / "lib" / "timer.js").read_bytes()
    finally:
        release.set()
    precompress.wait_until_compressed()
    second = client.get(url, headers={"Accept-Encoding": "br"})
    assert second.headers["ETag"].endswith(':br"')  # now the kept copy


def test_brotli_when_accepted_and_strongest_level(client: FlaskClient) -> None:
    ready(client, "br")
    response = client.get(URL, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
    assert response.status_code == 200
    assert response.headers["Content-Encoding"] == "br"
    assert "Accept-Encoding" in response.headers["Vary"]
    body = response.get_data()
    assert brotli.decompress(body) == CSS
    assert len(body) == len(brotli.compress(CSS, quality=11))  # not the on-the-fly streaming level
    assert int(response.headers["Content-Length"]) == len(body)


def test_gzip_for_a_client_without_brotli(client: FlaskClient) -> None:
    ready(client, "gzip")
    response = client.get(URL, headers={"Accept-Encoding": "gzip"})
    assert response.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.get_data()) == CSS


def test_refused_brotli_is_not_sent(client: FlaskClient) -> None:
    ready(client, "gzip")
    response = client.get(URL, headers={"Accept-Encoding": "br;q=0, gzip"})
    assert response.headers["Content-Encoding"] == "gzip"


def test_plain_without_accept_encoding(client: FlaskClient) -> None:
    response = client.get(URL, headers={"Accept-Encoding": ""})
    assert "Content-Encoding" not in response.headers
    assert response.get_data() == CSS


def test_encoded_etag_revalidates_to_304(client: FlaskClient) -> None:
    ready(client, "br")
    first = client.get(URL, headers={"Accept-Encoding": "br"})
    etag = first.headers["ETag"]
    assert etag.endswith(':br"')
    plain = client.get(URL, headers={"Accept-Encoding": ""}).headers["ETag"]
    assert plain != etag  # a shared cache must not hand Brotli bytes to a plain client
    again = client.get(URL, headers={"Accept-Encoding": "br", "If-None-Match": etag})
    assert again.status_code == 304
    assert again.get_data() == b""


def test_range_request_is_left_to_flask(client: FlaskClient) -> None:
    ready(client, "br")
    response = client.get(URL, headers={"Accept-Encoding": "br", "Range": "bytes=0-9"})
    assert response.status_code == 206
    assert response.get_data() == CSS[:10]
