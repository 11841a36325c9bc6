"""The addresses of this computer that phones may reach: the one the routing table would use, and every other.

No packet leaves the machine to find them (the routing-table trick below, and psutil's list of
the interfaces' addresses).
"""

from __future__ import annotations

import ipaddress
import socket

import psutil  # type: ignore[import-untyped]

# Candidate private addresses for the routing-table trick in lan_ipv4(): one per private range,
# so whichever range the club's Wi-Fi uses has a route even with no internet (no default route).
_PROBE_ADDRESSES = ("10.254.254.254", "192.168.254.254", "172.31.254.254")


def lan_ipv4() -> str:
    """Return this machine's LAN IPv4 address (127.0.0.1 if it has none).

    A UDP socket's connect() only asks the kernel's routing table which local address would
    be used: it sends NOTHING on the network. If no probe has a route, fall back to the
    addresses the host name resolves to.
    """
    for probe in _PROBE_ADDRESSES:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))  # UDP connect: no packet leaves the machine
                address = str(s.getsockname()[0])
        except OSError:
            continue
        if _usable(address):
            return address
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    for info in infos:
        address = str(info[4][0])
        if _usable(address):
            return address
    return "127.0.0.1"


def _usable(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local)


def lan_addresses() -> list[tuple[str, str]]:
    """Return (interface, IPv4 address) of every interface a phone may reach, the routed one first.

    A laptop on the club's Wi-Fi and its own hotspot, or on a cable and Wi-Fi, has several: a
    phone reaches only the one of its own network. Loopback and link-local addresses are left out.
    """
    found: list[tuple[str, str]] = []
    try:
        interfaces = psutil.net_if_addrs()
    except OSError:
        interfaces = {}
    for name, addresses in sorted(interfaces.items()):
        for a in addresses:
            if a.family == socket.AF_INET and _usable(str(a.address)):
                found.append((name, str(a.address)))
    first = lan_ipv4()
    found.sort(key=lambda item: item[1] != first)
    if first != "127.0.0.1" and all(address != first for _name, address in found):
        found.insert(0, ("", first))
    return found[:MAX_ADDRESSES]


MAX_ADDRESSES = 16
"""More than a laptop has (virtual machines' and containers' bridges included): a page lists them all."""
