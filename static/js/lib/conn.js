// Socket.IO connection manager: live updates, an offline outbox, and the
// clock offset to the server.
//
// WHY this exists: phones on club Wi-Fi drop off all the time (walking between
// rooms, screen locked, access point busy). A tap must never be lost and must
// never count twice, and every screen must count down to the same second.
//
//  - Live state: the server pushes `view` ({seq, view}, a fresh full view) and
//    `events` ({from_seq, events, view?}). We remember the last sequence
//    number seen (lastSeq) and, on every (re)connect, emit `resync {game, seq}`
//    so the server sends what we missed, or a fresh view.
//  - Outbox: every entry the user makes (an order, a dogfight result, a shot)
//    gets a client-made id and goes into an outbox kept in localStorage. It is
//    sent with an acknowledgement and a timeout, one at a time in the order it
//    was made, and retried with backoff until the server acknowledges it. The
//    server de-duplicates by client_id, so a retry after a lost ack is safe.
//  - Clock: `time_ping {t0}` is acked with {server_time}. Of ~8 samples we keep
//    the few with the lowest round trip (least queueing, so the least skew),
//    and take the median of their offsets. serverNow() = Date.now() + offset.
//
// Wire contract (see docs/frontend.md):
//   emit  time_ping {t0}                        ack {server_time: ms}
//   emit  resync    {game, seq}                 ack optional: a `view` or `events` payload
//                                                  (`reset: true`: the server is behind `seq`; take its view)
//   emit  action    {game, client_id, action}   ack {ok: true, seq, events: [...]}
//                                                  (no view: the room's push before it brought it;
//                                                  send() resolves with the view held at seq)
//                                                  | {ok: false, error, message}
//   on    view      {seq, view}
//   on    changes   {from, seq, changes}        what changed since the view at `from`
//                                               (lib/changes.js); another `from` asks a resync
//   on    events    {from_seq, events, view?}   from_seq = seq of events[0];
//                                               the batch is contiguous
//   on    store     {ok, since}                 (referee sockets) the server's writes fail
//                                               since `since` (epoch s), or succeed again;
//                                               a resync answer carries it as `store` while
//                                               they fail
//
// An action answered {ok: false, error: 'busy' | 'rate_limited', retry_after?} was not applied:
// the entry stays queued and goes again, with the same client id, no sooner than retry_after
// seconds (and the backoff's jitter).
//
// Needs the vendored client loaded first (it defines the global io):
//   <script src="/static/vendor/socket.io/socket.io.min.js"></script>

import { applyChanges, copyJSON } from './changes.js';
import { t, tn } from './i18n.js';

// ------------------------------------------------------------------ helpers

/**
 * A random id for an outbox entry.
 * WHY the fallbacks: crypto.randomUUID() exists only in secure contexts
 * (https or localhost), and the club laptop is usually reached over plain
 * http on a 192.168.x.y address; crypto.getRandomValues() works there.
 */
export function newClientId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') {
    try { return c.randomUUID(); } catch { /* insecure context: fall through */ }
  }
  const bytes = new Uint8Array(16);
  if (c && typeof c.getRandomValues === 'function') {
    c.getRandomValues(bytes);
  } else {
    for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Pick the clock offset from ping samples [{rtt, offset}].
 * Keeps the `keep` samples with the lowest round trip and returns the median
 * of their offsets, with a precision (half the worst kept round trip: the
 * offset of each kept sample is off by at most rtt/2). Null for no samples.
 */
export function bestOffset(samples, keep = 3) {
  const ok = samples.filter((s) => Number.isFinite(s.rtt) && Number.isFinite(s.offset) && s.rtt >= 0);
  if (ok.length === 0) return null;
  const kept = [...ok].sort((a, b) => a.rtt - b.rtt).slice(0, Math.max(1, keep));
  const offsets = kept.map((s) => s.offset).sort((a, b) => a - b);
  const mid = offsets.length >> 1;
  const offset = offsets.length % 2 ? offsets[mid] : (offsets[mid - 1] + offsets[mid]) / 2;
  const precision = Math.max(1, Math.ceil(Math.max(...kept.map((s) => s.rtt)) / 2));
  return { offset: Math.round(offset), precision, samples: ok.length, kept: kept.length };
}

/** Retry delay for the n-th failed try: exponential, capped, with jitter
 * (so twenty phones coming back at once don't retry in lockstep). */
export function backoffMs(tries, baseMs = 1000, maxMs = 30000, random = Math.random) {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, tries - 1));
  return Math.round(exp / 2 + random() * exp / 2);
}

/** Retry delay after a "not now" answer that says when to come back (`retry_after`, seconds):
 * never sooner than that, spread like the backoff (up to half as long again) so the phones a
 * full disk held back do not all come back in the same instant, and capped by maxMs unless the
 * server asks for longer. Without a usable retry_after it is the plain backoff. */
export function retryDelayMs(tries, retryAfterS, baseMs = 1000, maxMs = 30000, random = Math.random) {
  const backoff = backoffMs(tries, baseMs, maxMs, random);
  const after = Number(retryAfterS) * 1000;
  if (!Number.isFinite(after) || after <= 0) return backoff;
  const jittered = Math.round(after + random() * after / 2);
  return Math.min(Math.max(backoff, jittered), Math.max(maxMs, Math.ceil(after)));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Answers that mean "not now" rather than "no" (the database stayed locked, this page sent too
// fast): nothing was applied, so the entry stays queued and goes again with the same client id.
const NOT_NOW = new Set(['busy', 'rate_limited']);

/** localStorage, or a memory stand-in where it is missing or refuses
 * (private browsing, storage full): the outbox then lasts until reload. */
function defaultStorage() {
  try {
    const s = globalThis.localStorage;
    const probe = '__referee_probe__';
    s.setItem(probe, '1');
    s.removeItem(probe);
    return s;
  } catch {
    const mem = new Map();
    return {
      getItem: (k) => (mem.has(k) ? mem.get(k) : null),
      setItem: (k, v) => mem.set(k, String(v)),
      removeItem: (k) => mem.delete(k),
    };
  }
}

// ------------------------------------------------------------------- outbox

/** Entries not yet acknowledged, oldest first, persisted after each change. */
export class Outbox {
  constructor(storage, key) {
    this.storage = storage;
    this.key = key;
    this.entries = [];
    try {
      const raw = storage.getItem(key);
      const parsed = raw ? JSON.parse(raw) : [];
      if (Array.isArray(parsed)) this.entries = parsed.filter((e) => e && e.client_id);
    } catch {
      this.entries = [];
    }
  }

  get size() { return this.entries.length; }

  first() { return this.entries[0]; }

  push(entry) {
    this.entries.push(entry);
    this.save();
  }

  remove(clientId) {
    this.entries = this.entries.filter((e) => e.client_id !== clientId);
    this.save();
  }

  save() {
    try {
      if (this.entries.length) this.storage.setItem(this.key, JSON.stringify(this.entries));
      else this.storage.removeItem(this.key);
    } catch (err) {
      console.warn('outbox: cannot persist', err);
    }
  }
}

// --------------------------------------------------------------- connection

/**
 * One connection per page.
 *
 *   const conn = new Connection({ game: 'g42', initialSeq: 17 });
 *   conn.on('view', ({ seq, view }) => render(view));
 *   conn.on('events', ({ events, view }) => apply(events, view));
 *   bindBadge(conn);
 *   conn.start();
 *   const result = await conn.send({ type: 'shot', square: 'C4' });
 *   // result: {ok: true, events} or {ok: false, error, message}
 *
 * Events (conn.on(name, fn), fn receives the detail object):
 *   status   {state: 'offline'|'syncing'|'synced', text, queued, waiting, offsetMs, precisionMs}
 *            ('synced' only while the socket is up, the browser online and nothing is queued;
 *            waiting: the server said "not now" to the first queued entry)
 *   view     {seq, view}
 *   events   {from_seq, events, view}   (already de-duplicated by seq)
 *   ack      {entry, result}            an outbox entry was accepted
 *   refused  {entry, result}            the server said no ({ok:false, error, message})
 *   waiting  {entry, result, retryInMs} the server said "not now" (busy, rate_limited): nothing
 *                                       was applied, the entry stays queued and goes again
 *   store    {ok, since}                (referee pages) the server cannot store entries since
 *                                       `since` (epoch seconds), or can again (ok, since null)
 *   clock    {offsetMs, precisionMs, samples}
 */
export class Connection extends EventTarget {
  constructor(options = {}) {
    super();
    const {
      game,
      io = globalThis.io,
      url = undefined,
      socketOptions = {},
      ackTimeoutMs = 8000,
      retryBaseMs = 1000,
      retryMaxMs = 30000,
      pingSamples = 8,
      pingKeep = 3,
      pingTimeoutMs = 3000,
      clockEveryMs = 5 * 60 * 1000,
      initialSeq = -1,
      storage = defaultStorage(),
      storageKey = `referee.outbox.${game}`,
    } = options;
    if (game === undefined || game === null || game === '') throw new Error('Connection needs a game id');
    this.game = game;
    this.io = io;
    this.url = url;
    // websocket first: on a LAN it connects at once, and it needs no sticky
    // sessions when the server is scaled out; polling stays as the fallback.
    this.socketOptions = {
      transports: ['websocket', 'polling'],
      tryAllTransports: true,
      reconnectionDelay: 500,
      reconnectionDelayMax: 5000,
      ...socketOptions,
    };
    this.ackTimeoutMs = ackTimeoutMs;
    this.retryBaseMs = retryBaseMs;
    this.retryMaxMs = retryMaxMs;
    this.pingSamples = pingSamples;
    this.pingKeep = pingKeep;
    this.pingTimeoutMs = pingTimeoutMs;
    this.clockEveryMs = clockEveryMs;

    this.lastSeq = initialSeq;
    // Sent with every resync and action: a pilot page's slip, so the server knows which order it is.
    this.extra = options.extra || {};
    this.offset = 0;          // server clock minus local clock, ms
    this.precision = null;    // ± ms; null until measured
    this.outbox = new Outbox(storage, storageKey);
    this.socket = null;
    this.state = 'offline';
    this.status = null;       // the last 'status' detail
    this.store = null;        // the server's writes as last told ({ok, since}); null: never told
    this.waiting = null;      // the head entry's last "not now" answer ({client_id, result}), or null

    this._pending = new Map();   // client_id -> resolve of send()'s promise
    this._pumping = false;
    this._retryTimer = null;
    this._clockTimer = null;
    this._clockRun = null;
    this._resyncing = false;
    // The view the page was last given, as sent (a page may change its own copy): the base of
    // the next "changes". `_waiting`: answers held until the view of their seq is here.
    this._held = null;           // {seq, view}
    this._waiting = [];          // [{seq, done}]
    this._parked = [];           // "changes" that came during a resync, tried after it
    this._onVisible = () => this._visibilityChanged();
    this._onOnline = () => { if (this.socket && !this.socket.connected) this.socket.connect(); this._updateStatus(); };
    // A Wi-Fi that goes away leaves the socket "connected" until its heartbeat fails (tens of
    // seconds): the browser knows sooner, and the page must not say synced meanwhile.
    this._onOffline = () => this._updateStatus();
  }

  /** Subscribe; returns a function that unsubscribes. */
  on(type, fn) {
    const listener = (ev) => fn(ev.detail);
    this.addEventListener(type, listener);
    return () => this.removeEventListener(type, listener);
  }

  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /** Entries waiting for the server. */
  get queued() { return this.outbox.size; }

  /** Whether an entry sent now can reach the server: the socket is up and the browser online. */
  get online() {
    const browserOnline = typeof navigator === 'undefined' || navigator.onLine !== false;
    return Boolean(this.socket && this.socket.connected && browserOnline);
  }

  /** The entries waiting for the server, oldest first: [{client_id, action, created}] (copies). */
  pending() {
    return this.outbox.entries.map((e) => ({
      client_id: e.client_id,
      action: JSON.parse(JSON.stringify((e.payload && e.payload.action) || {})),
      created: e.created,
    }));
  }

  /** The server's clock now, in ms since the epoch. */
  serverNow() { return Date.now() + this.offset; }

  start() {
    if (this.socket) return this;
    if (typeof this.io !== 'function') {
      throw new Error('Socket.IO client missing: load static/vendor/socket.io/socket.io.min.js before this module');
    }
    const socket = this.url === undefined ? this.io(this.socketOptions) : this.io(this.url, this.socketOptions);
    this.socket = socket;

    // 'connect' fires on the first connection and on every reconnection.
    socket.on('connect', () => this._connected());
    socket.on('disconnect', () => this._updateStatus());
    socket.on('connect_error', () => this._updateStatus());
    // Pushes from several server processes may arrive out of order: an older view never replaces a newer one.
    socket.on('view', (msg) => { if (!(msg && Number.isFinite(msg.seq) && msg.seq < this.lastSeq)) this._onView(msg); });
    socket.on('changes', (msg) => this._onChanges(msg));
    socket.on('events', (msg) => this._onEvents(msg));
    socket.on('store', (msg) => this._onStore(msg));
    socket.on('screens', (msg) => this._emit('screens', msg || {}));
    socket.on('seats', (msg) => this._emit('seats', msg || {}));

    if (typeof document !== 'undefined') document.addEventListener('visibilitychange', this._onVisible);
    if (typeof window !== 'undefined') {
      window.addEventListener('online', this._onOnline);
      window.addEventListener('offline', this._onOffline);
    }
    this._clockTimer = setInterval(() => {
      if (typeof document === 'undefined' || document.visibilityState === 'visible') this.syncClock();
    }, this.clockEveryMs);
    this._updateStatus();
    return this;
  }

  stop() {
    clearTimeout(this._retryTimer);
    clearInterval(this._clockTimer);
    if (typeof document !== 'undefined') document.removeEventListener('visibilitychange', this._onVisible);
    if (typeof window !== 'undefined') {
      window.removeEventListener('online', this._onOnline);
      window.removeEventListener('offline', this._onOffline);
    }
    if (this.socket) {
      this.socket.removeAllListeners();
      this.socket.disconnect();
    }
    this.socket = null;
    this._updateStatus();
  }

  /**
   * Queue an entry and send it as soon as possible.
   * Resolves with the server's ack: {ok: true, events} or {ok: false, error,
   * message}. A refusal resolves too (it is a game outcome the page shows,
   * "Refused: tug touches cruiser at D5/E6"), it does not reject.
   * If the page is closed first, the entry stays in the outbox and is sent
   * from the next page load (its result then arrives as 'ack'/'refused').
   * The promise carries the entry's client id (`.clientId`), so a page can tell
   * which of its queued entries an answer settles.
   */
  send(action, { event = 'action' } = {}) {
    const clientId = newClientId();
    const entry = {
      client_id: clientId,
      event,
      payload: { game: this.game, client_id: clientId, action, ...this.extra },
      created: Date.now(),
      tries: 0,
    };
    this.outbox.push(entry);
    const done = new Promise((resolve) => this._pending.set(clientId, resolve));
    done.clientId = clientId;
    this._updateStatus();
    this._pump();
    return done;
  }

  /** Tell the server how this screen is (not a game entry: nothing is queued or sent again).
   *  Resolves with the answer, or null when offline or unanswered; a resync may tell it again. */
  tell(event, payload = {}) {
    return this._emitAck(event, { game: this.game, ...this.extra, ...payload }, this.ackTimeoutMs).catch(() => null);
  }

  /** Ask the server for what happened since lastSeq (or a fresh view). */
  resync() {
    if (!this.socket || !this.socket.connected) return;
    this._resyncing = true;
    this._updateStatus();
    this._emitAck('resync', { game: this.game, seq: this.lastSeq, ...this.extra }, this.ackTimeoutMs)
      .then((reply) => {
        // The server is behind what this page was shown (a push it lost to a power cut before
        // its disk had it): its view replaces the one held, older or not.
        if (reply && reply.reset === true) { this._held = null; this.lastSeq = -1; this._parked = []; }
        // A referee's answer says so while the server's writes fail; no word means they succeed
        // (a server restarted meanwhile never sends the `store` event that would have said so).
        if (reply && reply.ok !== false) {
          if (reply.store) this._onStore(reply.store);
          else if (this.store && !this.store.ok) this._onStore({ ok: true, since: null });
        }
        // The server may answer in the ack or by pushing view/events.
        if (reply && Array.isArray(reply.events)) this._onEvents(reply);
        else if (reply && 'view' in reply) this._onView(reply);
        if (reply && reply.ok !== false) this._emit('resynced', reply);
      })
      .catch(() => { /* no ack: the push (or the next reconnect) brings it */ })
      .finally(() => { this._resyncing = false; this._updateStatus(); });
  }

  /**
   * Measure the clock offset: pingSamples pings one after another, keep the
   * pingKeep with the lowest round trip, median of their offsets.
   * Concurrent calls share one run.
   */
  syncClock() {
    if (this._clockRun) return this._clockRun;
    const run = async () => {
      const samples = [];
      for (let i = 0; i < this.pingSamples; i++) {
        if (!this.socket || !this.socket.connected) break;
        const t0 = Date.now();
        const p0 = performance.now();   // monotonic: a clock jump can't spoil the rtt
        try {
          const reply = await this._emitAck('time_ping', { t0 }, this.pingTimeoutMs);
          const rtt = performance.now() - p0;
          const serverTime = Number(reply && reply.server_time);
          if (Number.isFinite(serverTime)) samples.push({ rtt, offset: serverTime - (t0 + rtt / 2) });
        } catch { /* lost ping: just fewer samples */ }
        if (i + 1 < this.pingSamples) await sleep(30);
      }
      const best = bestOffset(samples, this.pingKeep);
      if (best) {
        this.offset = best.offset;
        this.precision = best.precision;
        this._emit('clock', { offsetMs: this.offset, precisionMs: this.precision, samples: best.samples });
      }
      return best;
    };
    this._clockRun = run().finally(() => { this._clockRun = null; this._updateStatus(); });
    return this._clockRun;
  }

  // ---------------------------------------------------------------- internals

  _connected() {
    // Order matters: first learn what we missed, then fix the clock, then
    // send what was queued (its events then follow what we already know).
    this.resync();
    this.syncClock();
    this._pump();
    this._updateStatus();
  }

  _visibilityChanged() {
    if (document.visibilityState !== 'visible') return;
    // A phone that slept may hold a dead socket that does not know it yet,
    // and its clock may have drifted: reconnect or re-measure now.
    if (this.socket && !this.socket.connected) this.socket.connect();
    else if (this.socket) { this.syncClock(); this.resync(); }
  }

  _emitAck(event, payload, timeoutMs) {
    return new Promise((resolve, reject) => {
      if (!this.socket || !this.socket.connected) { reject(new Error('offline')); return; }
      this.socket.timeout(timeoutMs).emit(event, payload, (err, reply) => {
        if (err) reject(err); else resolve(reply);
      });
    });
  }

  async _pump() {
    if (this._pumping) return;
    this._pumping = true;
    clearTimeout(this._retryTimer);
    try {
      // Only while connected: the Socket.IO client would otherwise buffer
      // the emit itself and we would send it twice on reconnect.
      while (this.socket && this.socket.connected && this.outbox.size) {
        const entry = this.outbox.first();
        let reply;
        let notNow = null;
        let lost = false;
        try {
          reply = await this._emitAck(entry.event, entry.payload, this.ackTimeoutMs);
          if (reply && reply.ok === false && NOT_NOW.has(reply.error)) notNow = reply;
        } catch {
          lost = true;   // no answer in time, or the socket went: try again later
        }
        if (notNow || lost) {
          entry.tries = (entry.tries || 0) + 1;
          this.outbox.save();
          const delay = notNow
            ? retryDelayMs(entry.tries, notNow.retry_after, this.retryBaseMs, this.retryMaxMs)
            : backoffMs(entry.tries, this.retryBaseMs, this.retryMaxMs);
          clearTimeout(this._retryTimer);
          this._retryTimer = setTimeout(() => this._pump(), delay);
          if (notNow) {
            this.waiting = { client_id: entry.client_id, result: notNow };
            this._emit('waiting', { entry, result: notNow, retryInMs: delay });
          }
          break;
        }
        this.outbox.remove(entry.client_id);
        if (this.waiting && this.waiting.client_id === entry.client_id) this.waiting = null;
        this._settle(entry, reply ?? { ok: true, events: [] });
      }
    } finally {
      this._pumping = false;
      this._updateStatus();
    }
  }

  _settle(entry, reply) {
    // A socket's answer carries no view: its room's push, just before it, brought the change.
    // Answer with the view of that seq; wait for it if the push is late (several processes).
    if (reply.ok !== false && !('view' in reply) && Number.isFinite(reply.seq)) {
      if (!this._held || this._held.seq < reply.seq) {
        this._waitForView(reply.seq, () => this._settle(entry, { ...reply, view: this._viewAt(reply.seq) }));
        return;
      }
      reply = { ...reply, view: this._viewAt(reply.seq) };
    }
    const resolve = this._pending.get(entry.client_id);
    this._pending.delete(entry.client_id);
    if (reply.ok === false) {
      this._emit('refused', { entry, result: reply });
    } else {
      if (Array.isArray(reply.events) && reply.events.length) this._onEvents(reply);
      this._emit('ack', { entry, result: reply });
    }
    if (resolve) resolve(reply);
  }

  /** The server's writes fail, or succeed again: tell the page; once they succeed, send now. */
  _onStore(msg) {
    if (!msg || typeof msg !== 'object') return;
    const ok = msg.ok !== false;
    this.store = { ok, since: !ok && Number.isFinite(msg.since) ? msg.since : null };
    this._emit('store', { ...this.store });
    if (ok && this.outbox.size && !this._pumping) this._pump();
  }

  _onView(msg) {
    if (!msg) return;
    if (this._resyncing) { this._resyncing = false; this._updateStatus(); }
    const seq = Number.isFinite(msg.seq) ? msg.seq : null;
    if (seq !== null && this._held && seq < this._held.seq) return;  // a resync answer a push overtook
    if (seq !== null) {
      this.lastSeq = seq;
      this._held = { seq, view: copyJSON(msg.view) };
    }
    this._emit('view', msg);
    if (seq === null) return;
    const ready = this._waiting.filter((w) => w.seq <= seq);
    this._waiting = this._waiting.filter((w) => w.seq > seq);
    for (const w of ready) { clearTimeout(w.timer); w.done(); }
    // Changes that came while the resync was on the way may follow the view it brought.
    const parked = this._parked.filter((m) => m.seq > seq).sort((a, b) => a.seq - b.seq);
    this._parked = [];
    const next = parked.find((m) => m.from === seq);
    if (next) this._onChanges(next, parked.filter((m) => m !== next));
  }

  /** Apply a "changes" push to the held view and show the result; another base asks a resync. */
  _onChanges(msg, more = []) {
    if (!msg || !Number.isFinite(msg.seq) || !Number.isFinite(msg.from)) return;
    const held = this._held;
    if (held && msg.seq <= held.seq) return;   // already here (a resync overtook it)
    if (!held || held.view === null || held.view === undefined || msg.from !== held.seq) {
      if (this._resyncing) {
        if (this._parked.length < 50) this._parked.push(msg);
      } else {
        this.resync();
      }
      return;
    }
    let view;
    try {
      view = applyChanges(held.view, msg.changes);
    } catch (err) {
      // A change set that does not fit the view held: nothing is shown, a fresh view is asked.
      console.warn('changes: cannot apply', err);
      this.resync();
      return;
    }
    this._parked.push(...more);
    this._onView({ seq: msg.seq, view });
  }

  _viewAt(seq) {
    return this._held && this._held.seq >= seq ? copyJSON(this._held.view) : null;
  }

  _waitForView(seq, done) {
    const waiter = { seq, done, timer: null };
    this._waiting.push(waiter);
    // No view in time (a push lost on the way): ask for one, and answer anyway.
    waiter.timer = setTimeout(() => {
      this._waiting = this._waiting.filter((w) => w !== waiter);
      this.resync();
      done();
    }, this.ackTimeoutMs);
  }

  _onEvents(msg) {
    if (!msg) return;
    if (this._resyncing) { this._resyncing = false; this._updateStatus(); }
    const events = Array.isArray(msg.events) ? msg.events : [];
    // Where does this batch start? from_seq, else the first event's own seq.
    let from = Number.isFinite(msg.from_seq) ? msg.from_seq
      : (events.length && Number.isFinite(events[0].seq) ? events[0].seq : null);
    if (from === null) {
      // Unnumbered: pass through as is; nothing to de-duplicate against.
      this._emit('events', { from_seq: null, events, view: msg.view });
      return;
    }
    const last = from + events.length - 1;
    if (this.lastSeq >= 0 && from > this.lastSeq + 1) {
      // A gap: we missed events. A full view in the message repairs it;
      // otherwise ask the server.
      if (msg.view !== undefined) this._onView({ seq: last, view: msg.view });
      else this.resync();
      return;
    }
    // The ack of our own entry and the broadcast to the room can carry the
    // same events: drop those already seen.
    const skip = this.lastSeq >= from ? this.lastSeq - from + 1 : 0;
    const fresh = events.slice(skip);
    if (!fresh.length) return;
    this.lastSeq = Math.max(this.lastSeq, last);
    this._emit('events', { from_seq: from + skip, events: fresh, view: msg.view });
  }

  _updateStatus() {
    const connected = this.online;
    const queued = this.outbox.size;
    // waiting: the server said "not now" to the entry at the head of the queue (nothing applied).
    if (!queued) this.waiting = null;
    const waiting = Boolean(queued && this.waiting);
    let state;
    let text;
    if (!connected) {
      state = 'offline';
      text = queued ? tn('conn.offline_queued', queued, { n: queued }) : t('conn.offline');
    } else if (this.precision === null || queued > 0 || this._resyncing) {
      // (A periodic re-measure keeps the old offset meanwhile: no flicker.)
      state = 'syncing';
      text = waiting ? t('conn.waiting', { n: queued }) : t('conn.syncing');
    } else {
      state = 'synced';
      text = t('conn.synced', { ms: this.precision });
    }
    const detail = { state, text, queued, waiting, offsetMs: this.offset, precisionMs: this.precision };
    const key = `${state}|${text}|${queued}|${waiting}`;
    if (key === this._lastStatusKey) return;
    this._lastStatusKey = key;
    this.state = state;
    this.status = detail;
    this._emit('status', detail);
  }
}

/**
 * Show a connection's status in the header badge (base.html renders
 * <span id="conn-badge" class="badge" hidden>). The symbol comes from CSS by
 * data-state, so the state reads without colour. Call before conn.start()
 * so the first status is shown.
 */
export function bindBadge(conn, el = typeof document !== 'undefined' ? document.getElementById('conn-badge') : null) {
  if (!el) return () => {};
  el.hidden = false;   // base.html hides it until a page has a connection
  const show = ({ state, text, offsetMs }) => {
    el.dataset.state = state;
    el.textContent = text;
    el.title = state === 'synced' ? `${text} (offset ${offsetMs >= 0 ? '+' : ''}${offsetMs} ms)` : text;
  };
  if (conn.status) show(conn.status);
  return conn.on('status', show);
}

/**
 * A page's live connection, wired the one way every page wants it: a Connection (`options` as
 * for `new Connection`) shown in the header badge (`bindBadge`), each push's view handed to
 * `onView(view, type)` (`type` 'view' or 'events'; `view` is null for a batch of events that
 * brings none, and for a 'view' push that holds none), and, on a page with a result line
 * (`say`, from lib/dom.js resultLine; a projector has none), the outbox's news said there:
 *  - an entry refused when it finally went (also one queued on an earlier visit of the page):
 *    `t(refusedKey, {message})`, kind 'refused';
 *  - an entry the server could not store yet (its disk is full, it is busy; it stays queued and
 *    goes again): the server's message, else `t(queuedKey)` if given, kind 'queued';
 *  - once the last such entry is stored, while the line still says 'queued': `conn.all_saved`.
 * Returns the connection, not yet started (call `conn.start()` once the page is drawn).
 */
export function connectPage(options, { say = null, onView = () => {}, refusedKey, queuedKey = null } = {}) {
  const conn = new Connection(options);
  bindBadge(conn);
  conn.on('view', ({ view }) => onView(view || null, 'view'));
  conn.on('events', ({ view }) => onView(view || null, 'events'));
  if (!say) return conn;
  conn.on('refused', ({ result }) => say(t(refusedKey, { message: (result && (result.message || result.error)) || '' }), 'refused'));
  conn.on('waiting', ({ result }) => {
    const text = (result && result.message) || (queuedKey ? t(queuedKey) : '');
    if (text) say(text, 'queued');
  });
  conn.on('ack', () => { if (say.kind() === 'queued' && !conn.outbox.size) say(t('conn.all_saved'), 'ok'); });
  return conn;
}

// ---------------------------------------------------------------- the JSON API over HTTP

/** The page's CSRF token: from the element that carries `data-csrf` (every page with a form of actions has one). */
export function csrfToken() {
  const holder = typeof document !== 'undefined' ? document.querySelector('[data-csrf]') : null;
  return (holder && holder.dataset.csrf) || '';
}

/** Call the JSON API: the CSRF header, JSON in and out, the browser's cookies. A refusal is thrown
 *  as an Error with the server's message (`status` and `data` on it), or `fallback(status)`'s. */
export async function requestJson(method, url, body, { csrf = csrfToken(), fallback = (status) => `HTTP ${status}` } = {}) {
  const headers = { Accept: 'application/json' };
  if (csrf) headers['X-CSRF-Token'] = csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(url, {
    method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const error = new Error((data && (data.message || data.error)) || fallback(res.status));
    error.status = res.status;
    error.data = data;
    throw error;
  }
  return data;
}

/** POST a JSON body to the API (`requestJson`). */
export function postJson(url, body, options) {
  return requestJson('POST', url, body, options);
}
