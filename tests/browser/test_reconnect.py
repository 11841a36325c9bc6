"""A phone that drops off the Wi-Fi mid-round comes back, catches up by itself, and nothing counts twice.

(a) Socket.IO (python-socketio's client, a team base) talks to the real server through a TCP
    proxy the test can cut, like a Wi-Fi that goes away: an entry reaches the server but its ack
    is lost, the connection drops mid-round, another entry is made offline, the referee changes
    the game meanwhile; the client reconnects by itself, sends `resync` with its last seq and
    gets the current view; both queued entries are sent with their client ids, each twice, and
    each is in the log once (the first answered as a duplicate: it was applied before the drop).
(b) Browser (Playwright + Debian's Chromium; skipped with the reason without them, failing with
    REFEREE_REQUIRE_BROWSER=1): team B's page mid-round, bombers waiting at its base.
    1. The phone goes offline (`context.set_offline`): the badge says so; the defender taps a
       bomber: the page says it is queued (badge: "offline · 1 queued"). Back online, the entry is
       sent, the sea's answer shows, and the log holds it once.
    2. The server is SIGKILLed: the page shows it is offline; the defender taps the next bomber
       (queued); the server starts again on the same port, the referee adds 30 s meanwhile:
       the page reconnects, resyncs (the new deadline shows) and sends the entry, once, all
       without a reload.

Run: `.venv/bin/python -m pytest -q tests/browser/test_reconnect.py`.
"""

from __future__ import annotations

import os
import select
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ..live_server import ROOT, Server, free_port
from ..services.test_kill import Phone

PLAYERS = {"A": ["Ann", "Ada", "Abe", "Amy"], "B": ["Bob", "Bea", "Ben", "Bo"]}
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "test-artifacts" / "reconnect"
WAIT = 20_000  # ms


class Wifi:
    """A TCP proxy in front of the server that the test can cut and restore, like a Wi-Fi."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream = ("127.0.0.1", upstream_port)
        self.port = free_port()
        self.up = True
        self.swallow_replies = False  # the server's bytes are lost on the way back (a fading Wi-Fi)
        self.links: list[socket.socket] = []
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.listener.settimeout(0.2)
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while self.running:
            try:
                client, _ = self.listener.accept()
            except (TimeoutError, OSError):
                continue
            if not self.up:
                client.close()  # no Wi-Fi: the handshake fails at once
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.links += [client, server]
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 0.5)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    if s is b and self.swallow_replies:
                        continue
                    (b if s is a else a).sendall(data)
        except OSError:
            return
        finally:
            for s in (a, b):
                try:
                    s.close()
                except OSError:
                    pass

    def cut(self) -> None:
        """Drop every open connection and refuse new ones."""
        self.up = False
        with self.lock:
            links, self.links = self.links, []
        for s in links:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def restore(self) -> None:
        self.up = True
        self.swallow_replies = False

    def close(self) -> None:
        self.running = False
        self.cut()
        self.listener.close()


def bombers_at_b(server: Server) -> tuple[Phone, str, dict[str, str]]:
    """A game in round 1, airborne: A's three bombers flew empty corridors and wait at B's base."""
    referee = Phone(server.base, "referee")
    referee.opener.open(server.link, timeout=10).read()
    status, created = referee.post(
        "/api/games",
        {
            "teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}],
            "round_seconds": 600,
        },
    )
    assert status == 201, created
    gid = created["game"]

    def act(action: dict[str, Any]) -> dict[str, Any]:
        status, answer = referee.post(f"/api/games/{gid}/actions", {"action": action})
        assert status == 200 and answer["ok"], (action, answer)
        return dict(answer)

    for team in "AB":
        status, fleet = referee.post(f"/api/games/{gid}/sea/random", {"team": team})
        assert status == 200
        act({"type": "lock_sea", "team": team, "ships": fleet["ships"]})
    act({"type": "start_game"})
    act({"type": "set_defender", "team": "A", "pilot": "Amy"})
    act({"type": "set_defender", "team": "B", "pilot": "Bo"})
    legal = referee.get(f"/api/games/{gid}/view")["legal"]
    ships = next(a["options"]["ships"] for a in legal if a["type"] == "add_order" and a["team"] == "A")
    for pilot, corridor, target in (("Ann", "upper", "A1"), ("Ada", "middle", "C3"), ("Abe", "lower", "E5")):
        ship = next(s["ship"] for s in ships if s["bomber"] > 0)
        act(
            {
                "type": "add_order",
                "team": "A",
                "pilot": pilot,
                "kind": "bomber",
                "ship": ship,
                "corridor": corridor,
                "target": target,
            }
        )
        ships = next(
            a["options"]["ships"]
            for a in referee.get(f"/api/games/{gid}/view")["legal"]
            if a["type"] == "add_order" and a["team"] == "A"
        )
    act({"type": "start_round"})
    return referee, gid, created["links"]["join"]


def log_of(referee: Phone, gid: str) -> list[dict[str, Any]]:
    return list(referee.get(f"/api/games/{gid}/events?since=0")["events"])


# --------------------------------------------------------------------------- (a) Socket.IO


def test_a_dropped_socket_reconnects_resyncs_and_its_queued_entries_count_once(server: Server) -> None:
    socketio = pytest.importorskip(
        "socketio", reason="python-socketio's client is not installed (pip install '.[test]')"
    )
    referee, gid, join = bombers_at_b(server)
    phone = Phone(server.base, "base B")
    assert phone.get(f"/api/games/{gid}/view?t={join['B'].split('t=', 1)[1]}")["role"] == "team:B"
    cookie = "; ".join(f"{c.name}={c.value}" for c in phone.jar)

    wifi = Wifi(server.port)
    sio = socketio.Client(
        reconnection=True, reconnection_delay=0.2, reconnection_delay_max=1.0, randomization_factor=0.2
    )
    connects: list[float] = []
    connected = threading.Event()
    pushes: list[int] = []

    def on_connect() -> None:
        connects.append(time.time())
        connected.set()

    sio.on("connect", on_connect)
    sio.on("disconnect", lambda *args: connected.clear())
    sio.on("view", lambda msg: pushes.append(msg["seq"]))
    try:
        sio.connect(
            f"http://127.0.0.1:{wifi.port}", headers={"Cookie": cookie}, transports=["websocket"], wait_timeout=10
        )
        first = sio.call("resync", {"game": gid, "seq": -1}, timeout=10)
        assert first["ok"] and first["view"]["role"] == "team:B"
        waiting = [b["order"] for b in first["view"]["bombers_at_base"]]
        assert len(waiting) == 3 and all(b["answer"] is None for b in first["view"]["bombers_at_base"])
        last_seq = first["seq"]
        answer = sio.call(
            "action",
            {"game": gid, "client_id": "b-announce-1", "action": {"type": "announce_bombing", "order": waiting[0]}},
            timeout=10,
        )
        assert answer["ok"] and not answer["duplicate"]
        last_seq = answer["seq"]

        # The Wi-Fi fades mid-round: the second announcement reaches the server, its ack never
        # comes back; then the connection drops. It stays in the outbox, and so does the third,
        # made while the phone is offline.
        outbox = [
            (f"b-announce-{i + 2}", {"type": "announce_bombing", "order": order}) for i, order in enumerate(waiting[1:])
        ]
        wifi.swallow_replies = True
        with pytest.raises(socketio.exceptions.TimeoutError):
            sio.call("action", {"game": gid, "client_id": outbox[0][0], "action": outbox[0][1]}, timeout=2)
        wifi.cut()
        deadline = time.time() + 10
        while sio.connected and time.time() < deadline:
            time.sleep(0.05)
        assert not connected.is_set(), "the client noticed the drop"
        in_log = [e["data"]["order"] for e in log_of(referee, gid) if e["kind"] == "announce_bombing"]
        assert in_log == waiting[:2], "the server applied the entry whose ack was lost"
        # The game moves on without it: the referee adds 30 s to the clock.
        before = referee.get(f"/api/games/{gid}/view")
        moved = referee.post(f"/api/games/{gid}/actions", {"action": {"type": "adjust_timer", "seconds": 30}})[1]
        assert moved["ok"] and moved["seq"] > last_seq
        time.sleep(0.5)
        assert not sio.connected, "no Wi-Fi, no connection"

        wifi.restore()
        assert connected.wait(15), "the client reconnected by itself"
        assert len(connects) == 2
        caught_up = sio.call("resync", {"game": gid, "seq": last_seq}, timeout=10)
        assert caught_up["ok"] and caught_up["seq"] == moved["seq"], "resync answers with the current view"
        assert caught_up["view"]["round"]["deadline"] == before["round"]["deadline"] + 30
        for n, (client_id, action) in enumerate(outbox):
            once = sio.call("action", {"game": gid, "client_id": client_id, "action": action}, timeout=10)
            # Its ack is lost too (a second fade): the phone sends the entry once more.
            again = sio.call("action", {"game": gid, "client_id": client_id, "action": action}, timeout=10)
            assert once["ok"] and once["duplicate"] == (n == 0), once  # the first one was applied before the drop
            assert again["ok"] and again["duplicate"] and again["events"] == once["events"], again
        assert pushes and max(pushes) >= caught_up["seq"], "pushes flow again after the reconnect"
    finally:
        sio.disconnect()
        wifi.close()

    events = log_of(referee, gid)
    announces = [e["data"]["order"] for e in events if e["kind"] == "announce_bombing"]
    assert sorted(announces) == sorted(waiting), "each queued entry is in the log once"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


# ----------------------------------------------------------------------------- (b) browser


def _missing(reason: str) -> None:
    if os.environ.get("REFEREE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (REFEREE_REQUIRE_BROWSER=1)")
    pytest.skip(reason)


@pytest.mark.browser
def test_a_team_page_offline_and_through_a_server_kill_queues_and_catches_up(server: Server) -> None:
    if not CHROMIUM.exists():
        _missing(f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests")
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        _missing("Playwright for Python is not installed (pip install '.[test]')")
    referee, gid, join = bombers_at_b(server)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(
                viewport={"width": 390, "height": 844},
                is_mobile=True,
                has_touch=True,
                locale="en-GB",
                extra_http_headers={"Accept-Language": "en"},
            )
            context.set_default_timeout(WAIT)
            page = context.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(join["B"])
            badge = page.locator("#conn-badge")
            expect(badge).to_have_attribute("data-state", "synced")
            chips = page.locator("#bomber-chips button")
            expect(chips).to_have_count(3)
            page.evaluate("window.__notReloaded = true")
            page.screenshot(path=str(ARTIFACTS / "01-bombers-waiting.png"))

            # 1. The phone loses the Wi-Fi. The defender announces the first bomber anyway.
            context.set_offline(True)
            expect(badge).to_have_attribute("data-state", "offline")
            first = chips.first.get_attribute("data-key") or ""
            chips.first.tap()
            expect(page.locator("#result")).to_contain_text("Offline")
            expect(badge).to_contain_text("1 queued")
            assert page.evaluate("window.teamPage.conn.queued") == 1
            page.screenshot(path=str(ARTIFACTS / "02-offline-queued.png"))
            assert not [e for e in log_of(referee, gid) if e["kind"] == "announce_bombing"], (
                "nothing reached the server"
            )

            context.set_offline(False)
            expect(badge).to_have_attribute("data-state", "synced")
            expect(page.locator("#verdict")).to_be_visible()
            assert page.evaluate("window.teamPage.conn.queued") == 0
            page.screenshot(path=str(ARTIFACTS / "03-back-online.png"))
            announced = [e["data"]["order"] for e in log_of(referee, gid) if e["kind"] == "announce_bombing"]
            assert announced == [first.removeprefix("bomber-")], announced

            # Clear the verdict (a FIGHT is reported: the bomber wins) so the next bomber can be picked.
            view = page.evaluate("window.teamPage.view")
            if any(b["answer"] == "fight" for b in view["bombers_at_base"]):
                page.locator("[data-throw=bomber]").first.tap()
                expect(page.locator("#bombing-dismiss")).to_be_visible()
            if page.locator("#bombing-dismiss").is_visible():
                page.locator("#bombing-dismiss").tap()
            expect(chips).to_have_count(2)

            # 2. The server dies (SIGKILL). The defender announces the next bomber meanwhile.
            deadline_before = referee.get(f"/api/games/{gid}/view")["round"]["deadline"]
            server.kill()
            expect(badge).to_have_attribute("data-state", "offline")
            second = chips.first.get_attribute("data-key") or ""
            chips.first.tap()
            expect(badge).to_contain_text("1 queued")
            page.screenshot(path=str(ARTIFACTS / "04-server-down-queued.png"))
            server.start()
            status, moved = referee.post(
                f"/api/games/{gid}/actions",
                {"action": {"type": "adjust_timer", "seconds": 30}, "client_id": "ref-plus-30"},
            )
            assert status == 200 and moved["ok"]
            expect(badge).to_have_attribute("data-state", "synced")
            # Functions, not expression strings: Playwright would eval() a string, which the CSP forbids.
            page.wait_for_function("() => window.teamPage.conn.queued === 0")
            page.wait_for_function(
                "(deadline) => window.teamPage.view.round.deadline === deadline", arg=deadline_before + 30
            )
            # The sea answered the second bomber: it has an answer (FIGHT) or has flown home (WATER).
            page.wait_for_function(
                "(order) => !window.teamPage.view.bombers_at_base.some((b) => b.order === order && b.answer === null)",
                arg=second.removeprefix("bomber-"),
            )
            assert page.evaluate("window.__notReloaded === true"), "the page caught up without a reload"
            page.screenshot(path=str(ARTIFACTS / "05-after-restart.png"))
        finally:
            browser.close()

    events = log_of(referee, gid)
    announced = [e["data"]["order"] for e in events if e["kind"] == "announce_bombing"]
    assert sorted(announced) == sorted([first.removeprefix("bomber-"), second.removeprefix("bomber-")]), announced
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert not errors, errors


# ------------------------------------------------------------------ conn.js's outbox (Node)

# What both checks of conn.js under Node.js start with: conn.js, and a stand-in for the Socket.IO
# client, connected, whose acks come from `answer(event, payload)`; `box.push(name, msg)` plays a push.
FAKE_SOCKET = r"""
import assert from 'node:assert/strict';
const { Connection } = await import(process.argv[1] + '/lib/conn.js');

function fakeIo(answer, box = {}) {
  return () => {
    const handlers = {};
    const socket = {
      connected: true,
      on(name, fn) { handlers[name] = fn; },
      removeAllListeners() {},
      connect() {},
      disconnect() { socket.connected = false; },
      timeout() {
        return { emit(event, payload, cb) { const reply = answer(event, payload); setTimeout(() => cb(null, reply), 1); } };
      },
    };
    box.push = (name, msg) => handlers[name](msg);
    setTimeout(() => handlers.connect && handlers.connect(), 1);
    return socket;
  };
}
const mem = new Map();
const storage = { getItem: (k) => mem.get(k) ?? null, setItem: (k, v) => mem.set(k, v), removeItem: (k) => mem.delete(k) };
"""  # noqa: E501 - JavaScript for node

OUTBOX_CHECKS = r"""
// Each action is answered from a script.
function actionsFrom(answers, sent) {
  return fakeIo((event, payload) => {
    if (event !== 'action') return event === 'time_ping' ? { server_time: Date.now() } : { ok: true, seq: 1, view: {} };
    sent.push(payload.client_id);
    return answers.shift();
  });
}

// "busy" and "rate_limited" mean "not now": the entry stays queued and goes again, same client id.
for (const error of ['busy', 'rate_limited']) {
  const sent = [];
  const answers = [{ ok: false, error, message: 'later' }, { ok: true, seq: 7, events: [] }];
  const conn = new Connection({ game: 'g' + error, io: actionsFrom(answers, sent), storage, retryBaseMs: 5, retryMaxMs: 20, pingSamples: 1 });
  const refused = [];
  conn.on('refused', (d) => refused.push(d.result.error));
  conn.start();
  const reply = await conn.send({ type: 'announce_bombing', order: '1A1' });
  assert.equal(reply.ok, true, error);
  assert.deepEqual(refused, [], error);
  assert.equal(sent.length, 2, error);
  assert.equal(sent[0], sent[1], 'the same client id is sent again');
  assert.equal(conn.queued, 0);
  conn.stop();
}

// "busy" with retry_after: the entry goes again no sooner than the server asked (nor much later:
// the backoff's jitter adds at most half), and the page is told it waits meanwhile, not refused.
{
  const sent = [];
  const at = [];
  const answers = [{ ok: false, error: 'busy', message: 'cannot save', retry_after: 0.3 }, { ok: true, seq: 8, events: [] }];
  const io = actionsFrom(answers, sent);
  const conn = new Connection({ game: 'gwait', io: (...a) => { const s = io(...a); const t = s.timeout; s.timeout = (ms) => { const e = t(ms); return { emit(ev, p, cb) { if (ev === 'action') at.push(Date.now()); e.emit(ev, p, cb); } }; }; return s; }, storage, retryBaseMs: 5, retryMaxMs: 20, pingSamples: 1 });
  const waited = [];
  const refused = [];
  const statuses = [];
  conn.on('waiting', (d) => waited.push(d));
  conn.on('refused', (d) => refused.push(d));
  conn.on('status', (d) => statuses.push(d.waiting));
  conn.start();
  const reply = await conn.send({ type: 'set_defender', team: 'A', pilot: 'Ann' });
  assert.equal(reply.ok, true);
  assert.deepEqual(refused, []);
  assert.equal(sent.length, 2);
  assert.equal(sent[0], sent[1], 'the same client id');
  assert.equal(waited.length, 1);
  assert.equal(waited[0].result.error, 'busy');
  assert.ok(waited[0].retryInMs >= 300 && waited[0].retryInMs <= 450, `retry in ${waited[0].retryInMs} ms`);
  assert.ok(at[1] - at[0] >= 295, `sent again after ${at[1] - at[0]} ms`);
  assert.ok(statuses.includes(true) && statuses.at(-1) === false, 'status.waiting while it waits, not after');
  conn.stop();
}

// The delay itself: never before retry_after, jittered up to half again, capped unless asked longer.
{
  const { retryDelayMs, backoffMs } = await import(process.argv[1] + '/lib/conn.js');
  assert.equal(retryDelayMs(1, 2, 1000, 30000, () => 0), 2000);
  assert.equal(retryDelayMs(1, 2, 1000, 30000, () => 1), 3000);
  assert.equal(retryDelayMs(10, 2, 1000, 30000, () => 1), 30000);   // the backoff, when longer
  assert.equal(retryDelayMs(1, 60, 1000, 30000, () => 1), 60000);   // the server asks longer than the cap
  assert.equal(retryDelayMs(3, undefined, 1000, 30000, () => 1), backoffMs(3, 1000, 30000, () => 1));
  assert.equal(retryDelayMs(3, 'x', 1000, 30000, () => 0), backoffMs(3, 1000, 30000, () => 0));
}

// The server's writes: the `store` event and a resync's `store` reach the page; the next resync
// without it means they succeed again; and once they do, a waiting entry goes at once.
{
  const box = { asked: [] };
  const sent = [];
  const resyncs = [{ ok: true, seq: 1, view: {}, store: { ok: false, since: 1700000000 } }, { ok: true, seq: 1, view: {} }];
  const answers = [{ ok: false, error: 'busy', message: 'cannot save', retry_after: 30 }, { ok: true, seq: 2, events: [] }];
  const io = fakeIo((event, payload) => {
    if (event === 'resync') return resyncs.shift() || { ok: true, seq: 1, view: {} };
    if (event === 'action') { sent.push(Date.now()); return answers.shift(); }
    return { server_time: Date.now() };
  }, box);
  const conn = new Connection({ game: 'gstore', io, storage, retryBaseMs: 5, retryMaxMs: 20, pingSamples: 1 });
  const told = [];
  conn.on('store', (d) => told.push(d));
  conn.start();
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(told, [{ ok: false, since: 1700000000 }]);
  const done = conn.send({ type: 'start_round' });
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(sent.length, 1, 'busy: it waits 30 s');
  box.push('store', { ok: true, since: null });
  assert.equal((await done).ok, true, 'writes succeed again: sent at once');
  assert.equal(sent.length, 2);
  box.push('store', { ok: false, since: 1700000100 });
  conn.resync();
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(told.slice(1), [{ ok: true, since: null }, { ok: false, since: 1700000100 }, { ok: true, since: null }]);
  assert.deepEqual(conn.store, { ok: true, since: null });
  conn.stop();
}

// A refusal by the rules is an answer: the entry leaves the outbox at once, never sent again.
{
  const sent = [];
  const conn = new Connection({ game: 'gr', io: actionsFrom([{ ok: false, error: 'illegal', message: 'no' }], sent), storage, retryBaseMs: 5, pingSamples: 1 });
  conn.start();
  const reply = await conn.send({ type: 'announce_bombing', order: '1A1' });
  assert.equal(reply.error, 'illegal');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(sent.length, 1);
  assert.equal(conn.queued, 0);
  conn.stop();
}
console.log('outbox ok');
"""  # noqa: E501 - JavaScript for node, one assertion a line


def _node_checks(script: str, what: str) -> str:
    """Run checks of conn.js under Node.js (skipped without it); return what they printed."""
    node = shutil.which("node")
    if node is None:
        pytest.skip(f"Node.js not installed: conn.js's {what} checks are skipped")
    result = subprocess.run(
        [node, "--input-type=module", "-e", FAKE_SOCKET + script, (ROOT / "static" / "js").as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    return result.stdout


def test_the_outbox_sends_again_when_the_server_says_not_now() -> None:
    assert "outbox ok" in _node_checks(OUTBOX_CHECKS, "outbox")


RESET_CHECKS = r"""
// Each resync is answered from a script and its `seq` noted.
function resyncsFrom(resyncs, box) {
  return fakeIo((event, payload) => {
    if (event !== 'resync') return { server_time: Date.now() };
    box.asked.push(payload.seq);
    return resyncs.shift();
  }, box);
}
const tick = () => new Promise((r) => setTimeout(r, 20));

for (const reset of [true, false]) {
  const box = { asked: [] };
  const resyncs = [{ ok: true, seq: 3, view: { n: 3 } }, { ok: true, seq: 5, view: { n: 5 }, ...(reset ? { reset } : {}) }];
  const conn = new Connection({ game: 'g' + reset, io: resyncsFrom(resyncs, box), storage, pingSamples: 1 });
  const shown = [];
  conn.on('view', (m) => shown.push(m.view.n));
  conn.start();
  await tick();
  box.push('changes', { from: 3, seq: 6, changes: { n: 6 } });
  box.push('view', { seq: 7, view: { n: 7 } });   // pushed, then lost with the server's power
  assert.equal(conn.lastSeq, 7);
  conn.resync();
  await tick();
  assert.deepEqual(box.asked, [-1, 7]);
  if (reset) {
    // The server's log ends at 5: its view replaces the newer one the page held.
    assert.equal(conn.lastSeq, 5);
    assert.deepEqual(shown.at(-1), 5);
    box.push('changes', { from: 5, seq: 6, changes: { n: 66 } });
    assert.deepEqual(shown.at(-1), 66);
    assert.equal(conn.lastSeq, 6);
  } else {
    // Without the server's word an older answer is one a push overtook: the page keeps its view.
    assert.equal(conn.lastSeq, 7);
    assert.deepEqual(shown.at(-1), 7);
  }
  conn.stop();
}
console.log('reset ok');
"""  # noqa: E501 - JavaScript for node, one assertion a line


def test_a_page_shown_a_push_the_server_lost_takes_the_servers_view_again() -> None:
    assert "reset ok" in _node_checks(RESET_CHECKS, "resync")
