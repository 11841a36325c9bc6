// The round countdown, its sounds and voice, and keeping the screen awake.
//
// WHY from an absolute deadline: a phone that sleeps, a tab in the background
// or a slow Wi-Fi must not make its timer drift. The server says when the
// round ends (a server-clock timestamp in ms); each screen computes
// deadline - serverNow() on every tick, with serverNow() from conn.js
// corrected by the measured clock offset. So all screens show the same second.
//
// WHY a 100 ms interval and not requestAnimationFrame alone: rAF stops in a
// background tab, and the sound cues (one minute left, last ten seconds, end)
// should still play on the referee's laptop when another window is in front.
// The DOM is only touched when the shown text or state changes.
//
//   import { Countdown, SoundCues, soundButton, ScreenWake } from './timer.js';
//   const cues = new SoundCues({ speak: true });
//   soundButton(document.getElementById('sound'), cues);
//   const timer = new Countdown(document.getElementById('timer'), {
//     now: () => conn.serverNow(), cues, labelEl: document.getElementById('timer-label'),
//   });
//   timer.set({ deadline: view.round.deadline_ms });     // running
//   timer.set({ paused: true, remaining: 83000 });        // paused at 1:23
//   timer.set(null);                                      // no round
//   new ScreenWake().enable();

import { pageLang, t } from './i18n.js';

/** ms -> "m:ss", rounding up so "0:01" shows until the very end (and "5:00"
 * shows for the whole first second). Negative counts as zero. */
export function formatMs(ms) {
  const total = Math.max(0, Math.ceil((Number(ms) || 0) / 1000));
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}

/**
 * Which cues a step of the countdown crosses, from prev to cur remaining ms
 * (both while running). Pure, so it can be tested without a browser.
 * Returns a list of {cue: 'minute'|'tick'|'end', seconds}.
 */
export function cuesBetween(prev, cur, { warnMs = 60000, finalS = 10 } = {}) {
  const out = [];
  if (prev === null || prev === undefined || !(cur < prev)) return out;
  if (prev > 0 && cur <= 0) {
    out.push({ cue: 'end', seconds: 0 });
    return out;
  }
  if (prev > warnMs && cur <= warnMs) out.push({ cue: 'minute', seconds: Math.ceil(cur / 1000) });
  const prevS = Math.ceil(prev / 1000);
  const curS = Math.ceil(cur / 1000);
  // One tick per step even if several seconds were skipped (a sleeping tab):
  // a burst of beeps would only confuse.
  if (curS < prevS && curS >= 1 && curS <= finalS) out.push({ cue: 'tick', seconds: curS });
  return out;
}

// ------------------------------------------------------------------- sounds

/**
 * Synthesised beeps (Web Audio API; no audio files to serve) and optional
 * spoken announcements (speechSynthesis, in the page language).
 * Browsers block sound until the user taps: call enable() from a tap handler,
 * or use soundButton().
 */
export class SoundCues {
  constructor({ speak = false, lang = pageLang(), volume = 0.5 } = {}) {
    this.speak = speak;
    this.lang = lang;
    this.volume = volume;
    this.ctx = null;
    this.on = false;
  }

  get supported() {
    return Boolean(globalThis.AudioContext || globalThis.webkitAudioContext);
  }

  get enabled() {
    return this.on && this.ctx !== null && this.ctx.state === 'running';
  }

  /** Call inside a user gesture. Resolves true when sound can play.
   *  Outside one (`waitMs`): a browser that blocks sound keeps the context suspended, and its
   *  resume never settles; after waitMs the answer is false. `quiet`: no confirmation beep. */
  async enable({ quiet = false, waitMs = 0 } = {}) {
    const Ctx = globalThis.AudioContext || globalThis.webkitAudioContext;
    if (!Ctx) return false;
    if (!this.ctx) this.ctx = new Ctx();
    const resumed = this.ctx.resume().catch(() => { /* still blocked */ });
    if (waitMs > 0) await Promise.race([resumed, new Promise((resolve) => { setTimeout(resolve, waitMs); })]);
    else await resumed;
    this.on = this.ctx.state === 'running';
    // A short confirmation beep: proves it works, and on iOS a sound started
    // inside the gesture is what really unlocks audio.
    if (this.on && !quiet) this.beep(880, 90);
    return this.on;
  }

  disable() {
    this.on = false;
    if (globalThis.speechSynthesis) globalThis.speechSynthesis.cancel();
  }

  /** One tone: freq Hz for ms, starting `at` seconds from now. */
  beep(freq, ms, { type = 'sine', volume = this.volume, at = 0 } = {}) {
    if (!this.on || !this.ctx) return;
    const ctx = this.ctx;
    const t0 = ctx.currentTime + at;
    const t1 = t0 + ms / 1000;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = type;
    osc.frequency.setValueAtTime(freq, t0);
    // Short ramps in and out: a hard start or stop of a tone clicks.
    gain.gain.setValueAtTime(0.0001, t0);
    gain.gain.exponentialRampToValueAtTime(volume, t0 + 0.012);
    gain.gain.setValueAtTime(volume, Math.max(t0 + 0.012, t1 - 0.03));
    gain.gain.exponentialRampToValueAtTime(0.0001, t1);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t0);
    osc.stop(t1 + 0.02);
  }

  /** Round starts: a rising pair. */
  start() {
    this.beep(660, 160, { at: 0 });
    this.beep(990, 260, { at: 0.2 });
    this.say(t('timer.say_start'));
  }

  /** One minute left: three quick beeps. */
  minute() {
    for (let i = 0; i < 3; i++) this.beep(880, 110, { at: i * 0.2 });
    this.say(t('timer.say_minute'));
  }

  /** Each of the last seconds: a short click-beep, higher for the last three. */
  tick(seconds) {
    this.beep(seconds <= 3 ? 1320 : 1000, 70, { type: 'square', volume: this.volume * 0.5 });
  }

  /** Time: a long low horn. */
  end() {
    this.beep(440, 1100, { type: 'sawtooth', volume: this.volume * 0.6 });
    this.beep(554, 1100, { type: 'sawtooth', volume: this.volume * 0.4 });
    this.say(t('timer.say_end'), 1.2);
  }

  /** Speak a text in the page language, if speaking is on and a voice for
   * the language exists (an English voice reading Czech helps no one). */
  say(text, delaySeconds = 0) {
    const synth = globalThis.speechSynthesis;
    if (!this.speak || !this.on || !synth || !text) return;
    const voices = synth.getVoices();
    const prefix = this.lang.toLowerCase().split('-')[0];
    const voice = voices.find((v) => v.lang && v.lang.toLowerCase().startsWith(prefix));
    if (voices.length && !voice) return;
    const speakNow = () => {
      const u = new SpeechSynthesisUtterance(text);
      u.lang = this.lang;
      if (voice) u.voice = voice;
      synth.speak(u);
    };
    if (delaySeconds > 0) setTimeout(speakNow, delaySeconds * 1000);
    else speakNow();
  }
}

/**
 * Wire a button as the "tap to enable sound" switch: aria-pressed shows the
 * state (the CSS adds a speaker symbol), the text comes from i18n.
 * Remembers the choice on this device: after a reload or on the next page the
 * sound comes back on by itself where the browser allows it, else at the first
 * tap anywhere (the button says so meanwhile). `onChange(on)` hears every change.
 */
export function soundButton(button, cues, { storageKey = 'referee.sound', onChange = () => {} } = {}) {
  if (!button) return;
  const remember = (on) => { try { localStorage.setItem(storageKey, on ? 'on' : 'off'); } catch { /* ignore */ } };
  let wanted = false;
  try { wanted = localStorage.getItem(storageKey) === 'on'; } catch { /* ignore */ }
  const show = () => {
    const on = cues.enabled;
    button.setAttribute('aria-pressed', on ? 'true' : 'false');
    button.textContent = on ? t('timer.sound_on') : t(wanted ? 'timer.sound_again' : 'timer.sound_off');
    onChange(on);
  };
  if (!cues.supported) { button.hidden = true; return; }
  button.addEventListener('click', async () => {
    if (cues.enabled) { cues.disable(); wanted = false; remember(false); } else { await cues.enable(); wanted = cues.enabled; remember(cues.enabled); }
    show();
  });
  if (wanted) {
    const firstTap = async (ev) => {
      if (ev.target === button || button.contains(ev.target)) return; // the button handles itself
      document.removeEventListener('pointerdown', firstTap, true);
      if (!cues.enabled) await cues.enable();
      show();
    };
    document.addEventListener('pointerdown', firstTap, true);
    // A browser that lets this site play sound without a tap (one the referee has used often, or
    // a kiosk started with autoplay allowed) turns it on at once; another waits for the first tap.
    cues.enable({ quiet: true, waitMs: 400 }).then((on) => {
      if (on) document.removeEventListener('pointerdown', firstTap, true);
      show();
    });
  }
  show();
}

// --------------------------------------------------------------- wake lock

/**
 * Keep the screen on while a page that shows the timer is open. With the Screen Wake Lock API
 * where the page may use it (https, or localhost); the browser drops the lock when the page is
 * hidden, so it is taken again when the page is visible. Over plain http on the club's network
 * that API is missing: then a tiny silent video plays in a loop, out of sight, which is what keeps
 * a phone's screen on there (NoSleep.js's way, with its two videos: static/vendor/nosleep/).
 * `mode` says which holds the screen: 'lock', 'video' or null.
 */
export class ScreenWake {
  constructor({ videos = '/static/vendor/nosleep/no-sleep' } = {}) {
    this.sentinel = null;
    this.wanted = false;
    this.videos = videos;
    this.video = null;
    this._onVisible = () => { if (this.wanted && document.visibilityState === 'visible') this._acquire(); };
  }

  get supported() {
    return typeof navigator !== 'undefined' && 'wakeLock' in navigator;
  }

  get held() {
    return Boolean(this.sentinel && !this.sentinel.released) || Boolean(this.video && !this.video.paused);
  }

  get mode() {
    if (this.sentinel && !this.sentinel.released) return 'lock';
    return this.video && !this.video.paused ? 'video' : null;
  }

  async enable() {
    this.wanted = true;
    document.addEventListener('visibilitychange', this._onVisible);
    return this._acquire();
  }

  async disable() {
    this.wanted = false;
    document.removeEventListener('visibilitychange', this._onVisible);
    if (this.sentinel) { try { await this.sentinel.release(); } catch { /* gone */ } }
    this.sentinel = null;
    if (this.video) this.video.pause();
  }

  async _acquire() {
    if (this.held || document.visibilityState !== 'visible') return this.held;
    if (this.supported) {
      try {
        this.sentinel = await navigator.wakeLock.request('screen');
        return this.held;
      } catch {
        this.sentinel = null; // refused (battery saver, no gesture yet): the video, and again later
      }
    }
    return this._playVideo();
  }

  async _playVideo() {
    if (!this.video) {
      const video = document.createElement('video');
      video.setAttribute('playsinline', '');
      video.setAttribute('aria-hidden', 'true');
      video.muted = true; // a muted video may start without a tap
      video.loop = true;
      video.className = 'screen-wake-video';
      for (const kind of ['webm', 'mp4']) {
        const source = document.createElement('source');
        source.src = `${this.videos}.${kind}`;
        source.type = `video/${kind}`;
        video.append(source);
      }
      document.body.append(video);
      this.video = video;
    }
    try { await this.video.play(); } catch { /* not yet: the next tap or visibility tries again */ }
    return this.held;
  }
}

// --------------------------------------------------------------- countdown

/**
 * A Countdown state from a view's round (its times in SECONDS since the epoch): running to its
 * deadline, paused at what is left, the next round's length while it is planned (every screen
 * shows the same "5:00" the referee's does), 0:00 once closed; null with no round.
 */
export function roundClock(round) {
  if (!round || !round.round) return null;
  if (round.phase === 'airborne') {
    if (round.running && Number.isFinite(round.deadline)) return { deadline: round.deadline * 1000 };
    return { paused: true, remaining: Math.max(0, Number(round.left) || 0) * 1000 };
  }
  if (round.phase === 'planning' && Number.isFinite(round.seconds)) return { planned: true, remaining: round.seconds * 1000 };
  if (round.phase === 'closed') return { remaining: 0 };
  return null;
}


/**
 * Shows the remaining time of a round in an element and plays the cues.
 *
 * Options:
 *   now        () => server time in ms (conn.serverNow); default Date.now
 *   labelEl    element for the state in words ("Paused", "Last minute", "Time!")
 *   cues       a SoundCues, or null for silence
 *   onTick     (remainingMs, state) => void, on every shown change
 *   onEnd      () => void, once when a running countdown reaches zero
 *   warnMs     when the "last minute" state begins (60000)
 *   finalS     ticks in the last N seconds (10)
 *   intervalMs update period (100)
 *
 * States written to el.dataset.state (styled in app.css):
 *   idle | planned | running | warning | ending | paused | over
 */
export class Countdown {
  constructor(el, options = {}) {
    this.el = el;
    this.now = options.now || (() => Date.now());
    this.labelEl = options.labelEl || null;
    this.cues = options.cues || null;
    this.onTick = options.onTick || null;
    this.onEnd = options.onEnd || null;
    this.warnMs = options.warnMs ?? 60000;
    this.finalS = options.finalS ?? 10;
    this.intervalMs = options.intervalMs ?? 100;

    this.deadline = null;   // server ms, while running
    this.pausedMs = null;   // remaining ms, while paused
    this.plannedMs = null;  // the next round's length, while it is planned
    this._prev = null;      // remaining at the previous tick, for the cues
    this._shown = '';
    this._first = true;
    this._timer = null;
    this._onVisible = () => this._tick();
    document.addEventListener('visibilitychange', this._onVisible);
    this._render();
  }

  /**
   * The round's state, usually straight from the server's view:
   *   {deadline}            running, ends at this server time (ms)
   *   {paused: true, remaining}
   *   null / {}             no round
   * announce: play the start cue when this starts a run (default: yes,
   * except on the very first set(), i.e. when a page opens mid-round).
   */
  set(state, { announce } = {}) {
    const wasRunning = this.deadline !== null;
    const oldDeadline = this.deadline;
    state = state || {};
    this.plannedMs = state.planned ? Math.max(0, Number(state.remaining) || 0) : null;
    if (state.planned) {
      this.deadline = null;
      this.pausedMs = null;
    } else if (state.paused) {
      this.deadline = null;
      this.pausedMs = Math.max(0, Number(state.remaining) || 0);
    } else if (Number.isFinite(state.deadline)) {
      this.deadline = state.deadline;
      this.pausedMs = null;
    } else {
      this.deadline = null;
      this.pausedMs = Number.isFinite(state.remaining) ? state.remaining : null;
    }
    const running = this.deadline !== null;
    const isNewRun = running && (!wasRunning || Math.abs(oldDeadline - this.deadline) > 1500);
    const shouldAnnounce = announce ?? !this._first;
    if (isNewRun) this._prev = null;   // no "minute" cue from the jump itself
    if (isNewRun && shouldAnnounce && this.cues && this.remainingMs() > 0) this.cues.start();
    this._first = false;

    clearInterval(this._timer);
    this._timer = running ? setInterval(() => this._tick(), this.intervalMs) : null;
    this._tick();
  }

  /** Remaining ms now (0 when over; the paused value when paused). */
  remainingMs() {
    if (this.deadline !== null) return Math.max(0, this.deadline - this.now());
    if (this.plannedMs !== null) return this.plannedMs;
    return this.pausedMs ?? 0;
  }

  /** The state name for the current moment. */
  stateName() {
    if (this.plannedMs !== null) return 'planned';
    if (this.deadline === null) return this.pausedMs !== null && this.pausedMs > 0 ? 'paused' : (this.pausedMs === 0 ? 'over' : 'idle');
    const rem = this.remainingMs();
    if (rem <= 0) return 'over';
    if (rem <= this.finalS * 1000) return 'ending';
    if (rem <= this.warnMs) return 'warning';
    return 'running';
  }

  destroy() {
    clearInterval(this._timer);
    document.removeEventListener('visibilitychange', this._onVisible);
  }

  _tick() {
    const rem = this.remainingMs();
    if (this.deadline !== null) {
      for (const { cue, seconds } of cuesBetween(this._prev, rem, { warnMs: this.warnMs, finalS: this.finalS })) {
        if (this.cues) {
          if (cue === 'minute') this.cues.minute();
          else if (cue === 'tick') this.cues.tick(seconds);
          else if (cue === 'end') this.cues.end();
        }
        if (cue === 'end' && this.onEnd) this.onEnd();
      }
      this._prev = rem;
      if (rem <= 0) { clearInterval(this._timer); this._timer = null; }
    }
    this._render();
  }

  _render() {
    const state = this.stateName();
    const text = this.deadline === null && this.pausedMs === null && this.plannedMs === null ? '–:––' : formatMs(this.remainingMs());
    const key = `${state}|${text}`;
    if (key === this._shown) return;
    this._shown = key;
    if (this.el) {
      this.el.textContent = text;
      this.el.dataset.state = state;
      this.el.dataset.chars = String(text.length); // a projector sizes "12:00" smaller than "4:59"
    }
    if (this.labelEl) {
      const words = {
        paused: 'timer.paused', over: 'timer.over', warning: 'timer.last_minute', ending: 'timer.last_minute', idle: 'timer.idle', planned: 'timer.planned',
      }[state];
      this.labelEl.textContent = words ? t(words) : '';
    }
    if (this.onTick) this.onTick(this.remainingMs(), state);
  }
}
