"""The referee's link, printed with its QR code, to an address phones on the Wi-Fi can reach."""

from __future__ import annotations

import ipaddress
import socket
import sys

import click

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


def referee_link(host: str, port: int, token: str) -> str:
    """Return the referee's start link: the LAN address when serving on every interface."""
    if host in ("0.0.0.0", "::", ""):
        host = lan_ipv4()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/?token={token}"


def print_link(url: str) -> None:
    """Print the link and the same link as a QR code that works in a plain terminal."""
    import qrcode  # type: ignore[import-untyped]

    click.echo("")
    click.echo("  Referee / Rozhodčí:  " + url)
    click.echo("  (open it on the referee's device; the token in it makes that browser the referee)")
    qr = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_L)
    qr.add_data(url)
    qr.make(fit=True)
    try:
        # Half-block characters: two QR rows per text line; inverted reads well on dark terminals.
        qr.print_ascii(out=sys.stdout, invert=True)
    except UnicodeEncodeError:
        # A terminal without UTF-8 (old Windows code page): plain '#' blocks still scan.
        for row in qr.get_matrix():
            click.echo("".join("  " if cell else "##" for cell in row))
    sys.stdout.flush()
