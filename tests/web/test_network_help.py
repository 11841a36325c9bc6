"""No router needed: every address of the laptop, the network help page, and the reach check."""

from __future__ import annotations

import socket
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask

from referee.cli import links
from referee.web import addresses, help


def fake_interfaces(monkeypatch: pytest.MonkeyPatch, routed: str, table: dict[str, list[str]]) -> None:
    def net_if_addrs() -> dict[str, list[Any]]:
        return {
            name: [SimpleNamespace(family=socket.AF_INET, address=a) for a in found] for name, found in table.items()
        }

    monkeypatch.setattr(addresses.psutil, "net_if_addrs", net_if_addrs)
    monkeypatch.setattr(addresses, "lan_ipv4", lambda: routed)


def test_every_address_a_phone_may_reach_the_routed_one_first(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_interfaces(
        monkeypatch,
        "192.168.1.20",
        {"lo": ["127.0.0.1"], "wlan0": ["10.42.0.1"], "eth0": ["192.168.1.20"], "usb0": ["169.254.3.4"]},
    )
    # Loopback and link-local are no address for a phone; the one the routing table uses is first.
    assert addresses.lan_addresses() == [("eth0", "192.168.1.20"), ("wlan0", "10.42.0.1")]


def test_referee_serve_lists_the_other_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_interfaces(monkeypatch, "192.168.1.20", {"eth0": ["192.168.1.20"], "wlan0": ["10.42.0.1"]})
    monkeypatch.setattr(links, "lan_addresses", addresses.lan_addresses)
    monkeypatch.setattr(links, "lan_ipv4", lambda: "192.168.1.20")
    runner = CliRunner()
    with runner.isolation() as (out, _err, _in):
        links.print_addresses("0.0.0.0", 5000, "http://192.168.1.20:5000/?token=x")
        printed = out.getvalue().decode()
    assert "http://10.42.0.1:5000/   (wlan0)" in printed
    assert "http://192.168.1.20:5000/   (" not in printed  # the link above already shows that one
    assert "http://192.168.1.20:5000/help/network" in printed
    with runner.isolation() as (out, _err, _in):
        links.print_addresses("127.0.0.1", 5000, "http://127.0.0.1:5000/?token=x")  # one address asked for
        assert out.getvalue() == b""


@pytest.mark.parametrize(("lang", "words"), [("en", "Play without a router"), ("cs", "Hra bez routeru")])
def test_the_help_page_shows_each_address_with_its_code(
    app: Flask, monkeypatch: pytest.MonkeyPatch, lang: str, words: str
) -> None:
    fake_interfaces(monkeypatch, "192.168.1.20", {"eth0": ["192.168.1.20"], "wlan0": ["10.42.0.1"]})
    monkeypatch.setattr(help, "lan_addresses", addresses.lan_addresses)
    page = app.test_client().get(
        "/help/network", base_url="http://192.168.1.20:5050", headers={"Accept-Language": lang}
    )
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert words in html
    assert html.count("<svg") >= 2 and "10.42.0.1:5050" in html and "192.168.1.20:5050" in html
    assert "sudo ufw allow 5050/tcp" in html


def test_a_phone_that_opens_an_address_is_listed(app: Flask) -> None:
    client = app.test_client()
    assert client.get("/api/reach").get_json() == {"reaches": []}
    iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15"
    answer = client.get(
        "/help/reach",
        base_url="http://10.42.0.1:5000",
        headers={"User-Agent": iphone, "Accept-Language": "cs"},
        environ_base={"REMOTE_ADDR": "10.42.0.57"},
    )
    assert answer.status_code == 200 and "dosáhne na počítač rozhodčího" in answer.get_data(as_text=True)
    reaches = client.get("/api/reach").get_json()["reaches"]
    assert [(r["address"], r["from"], r["device"]) for r in reaches] == [("10.42.0.1:5000", "10.42.0.57", "iPhone")]
    # The list is bounded: a flood of opens keeps the newest.
    for _ in range(help.KEPT + 20):
        client.get("/help/reach")
    assert len(client.get("/api/reach").get_json()["reaches"]) == help.KEPT
