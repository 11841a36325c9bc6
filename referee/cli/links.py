"""The referee's link, printed with its QR code, to an address phones on the Wi-Fi can reach."""

from __future__ import annotations

import sys

import click

from referee.web.addresses import lan_addresses, lan_ipv4


def referee_link(host: str, port: int, token: str) -> str:
    """Return the referee's start link: the LAN address when serving on every interface."""
    if host in ("0.0.0.0", "::", ""):
        host = lan_ipv4()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/?token={token}"


def print_addresses(host: str, port: int, shown: str) -> None:
    """List every other address this computer serves on: phones on another network (a hotspot) use one."""
    if host not in ("0.0.0.0", "::", ""):
        return
    others = [(name, address) for name, address in lan_addresses() if f"//{address}:" not in shown]
    if not others:
        return
    click.echo("  Other addresses of this computer (a phone on that network opens one of them):")
    for name, address in others:
        click.echo(f"    http://{address}:{port}/   ({name})")
    click.echo(f"  Phones cannot connect? http://{lan_ipv4()}:{port}/help/network says what to check.")


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
