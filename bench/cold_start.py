"""Time from the `referee serve` command to the first page it serves, on a fresh and an existing instance.

    .venv/bin/python bench/cold_start.py [--runs 5] [--server auto|gunicorn|werkzeug]

Each run starts `python -m referee.cli serve` (the working tree's code, as tests/live_server.py
does) on a free port and polls every 5 ms; it takes the time to the first 200 from /api/health and
to the first 200 of the referee link the terminal printed (the page a referee opens first). "Fresh"
is an empty instance folder (secret key, database and migrations made on the way); "existing" is
the folder a previous run left. Baseline in the same run: `python -c "import flask"`, the floor of
any Flask app's start. Goal (issue 4): first page < 2 s.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.live_server import free_port  # noqa: E402

GOAL_S = 2.0


def get_ok(url: str) -> bool:
    """True if `url` answers 200."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError, OSError):
        return False


def cpu_seconds(root: int) -> float:
    """CPU time (user + system) so far of a process and all its descendants, from /proc (Linux)."""
    ticks = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / ticks)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += stats.get(pid, (0, 0.0))[1]
        todo.extend(child for child, (parent, _cpu) in stats.items() if parent == pid)
    return total


def one_start(instance: Path, server: str) -> tuple[float, float, float]:
    """Start the server once; return seconds to the first health 200 and referee-link 200, and CPU seconds by then."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    args = [
        sys.executable,
        "-m",
        "referee.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--instance-path",
        str(instance),
    ]
    if server != "auto":
        args += ["--server", server]
    link: list[str] = []
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT, start_new_session=True
    )
    output: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            match = re.search(r"(http://\S+\?token=\S+)", line)
            if match and not link:
                link.append(re.sub(r"^http://[^/]+", f"http://127.0.0.1:{port}", match.group(1)))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    health = page = cpu = 0.0
    try:
        deadline = t0 + 30
        while not health and time.perf_counter() < deadline:
            if proc.poll() is not None:
                raise SystemExit("the server stopped:\n" + "".join(output[-30:]))
            if get_ok(f"http://127.0.0.1:{port}/api/health"):
                health = time.perf_counter() - t0
            else:
                time.sleep(0.005)
        while not page and time.perf_counter() < deadline:
            if link and get_ok(link[0]):
                page = time.perf_counter() - t0
                cpu = cpu_seconds(proc.pid) if Path("/proc/self/stat").exists() else float("nan")
            else:
                time.sleep(0.005)
        if not (health and page):
            raise SystemExit("no answer in 30 s:\n" + "".join(output[-30:]))
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait(5)
        reader.join(5)
    return health, page, cpu


def import_flask() -> tuple[float, float]:
    """Seconds for `python -c "import flask"`: wall clock and CPU."""
    before = os.times()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import flask"], check=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--server", choices=["auto", "gunicorn", "werkzeug"], default="auto")
    args = parser.parse_args()
    fresh: list[tuple[float, float, float]] = []
    existing: list[tuple[float, float, float]] = []
    baseline: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        kept = Path(tmp) / "kept"
        one_start(kept, args.server)  # leaves an existing instance for the "existing" runs (and warms the disk cache)
        for i in range(args.runs):
            baseline.append(import_flask())
            fresh.append(one_start(Path(tmp) / f"fresh{i}", args.server))
            existing.append(one_start(kept, args.server))
    base = statistics.median(w for w, _ in baseline)
    base_cpu = statistics.median(c for _, c in baseline)
    print(
        f"baseline python -c 'import flask': median {base * 1000:.0f} ms wall, "
        f"{base_cpu * 1000:.0f} ms CPU over {args.runs} runs"
    )
    print("(on a busy machine the CPU figures are the steadier ones: wall ~ CPU + disk waits when the cores are free)")
    for name, runs in (("fresh instance", fresh), ("existing instance", existing)):
        health = statistics.median(h for h, _, _ in runs)
        page = statistics.median(p for _, p, _ in runs)
        worst = max(p for _, p, _ in runs)
        cpu = statistics.median(c for _, _, c in runs)
        verdict = "met" if page < GOAL_S else f"MISSED by {page - GOAL_S:.2f} s"
        print(
            f"{name}: first health 200 median {health * 1000:.0f} ms; first referee page median {page * 1000:.0f} ms"
            f" (max {worst * 1000:.0f} ms) = {page / base:.1f}x import flask; CPU to first page {cpu * 1000:.0f} ms"
            f" = {cpu / base_cpu:.1f}x import flask's CPU; goal < {GOAL_S:.0f} s: {verdict}"
        )


if __name__ == "__main__":
    main()
