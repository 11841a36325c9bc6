// The scan page (/scan): camera → QR code → the slip's page.
//
// WHY the typed code is always there: the camera needs a secure context
// (https or localhost), and the club laptop is usually reached over plain
// http. Then scannerAvailable() is false; the phone's own camera app can
// still open the QR link, or the pilot types the link printed on the slip.
//
// WHY only the path is kept from a scanned URL: the slip was printed with
// the laptop's address as the printing browser saw it (localhost, a LAN IP,
// a name). This phone already reached the server at its own address, so it
// opens the same path here.

import { scannerAvailable, startScanner } from '../lib/scan.js';
import { t } from '../lib/i18n.js';

// A slip code: the signed token of the QR link ("<payload>.<signature>"), or
// any shorter code the server prints on the slip. Only its characters are
// checked here; the server decides whether it is genuine.
const SLIP_RE = /^[A-Za-z0-9_\-.]{3,200}$/;
// Paths of this app a scanned code may lead to: a slip, or a game page (a team's join link).
const PATH_RE = /^\/(?:s\/[A-Za-z0-9_\-.]+\/?|g\/[A-Za-z0-9_\-]+\/[A-Za-z0-9_\-/]*)$/;

/**
 * Turn a scanned or typed text into a path of this app, or null.
 *   a link to any host, path /s/eyJn….sig  → "/s/eyJn….sig"
 *   "/s/eyJn….sig", "s/eyJn….sig"          → "/s/eyJn….sig"
 *   "eyJn….sig", "K7-1A2-QX4"              → "/s/eyJn….sig", "/s/K7-1A2-QX4"
 *   a team join link, /g/g42/join/A?t=abc  → "/g/g42/join/A?t=abc"
 */
export function slipPath(text) {
  let s = String(text ?? '').trim();
  if (!s) return null;
  s = s.replace(/\s+/g, '');
  let path = null;
  let search = '';
  if (/^https?:\/\//i.test(s)) {
    try {
      const url = new URL(s);
      path = url.pathname;
      search = url.search;
    } catch {
      return null;
    }
  } else if (s.startsWith('/')) {
    [path, search = ''] = s.split(/(?=\?)/);
  } else if (/^s\//.test(s)) {
    path = `/${s}`;
  } else if (SLIP_RE.test(s)) {
    path = `/s/${s}`;
  } else {
    return null;
  }
  if (!PATH_RE.test(path)) return null;
  // Only a join link carries a query worth keeping (its token); a slip needs none.
  return path.startsWith('/g/') ? path + search : path.replace(/\/$/, '');
}

function startPage() {
  const $ = (id) => document.getElementById(id);
  const video = $('scan-video');
  const view = $('scan-view');
  const status = $('scan-status');
  const startBtn = $('scan-start');
  const noCam = $('scan-nocam');
  const form = $('scan-form');
  const input = $('scan-code');
  const error = $('scan-error');
  let scanner = null;
  let leaving = false;

  const go = (path) => {
    leaving = true;
    if (scanner) scanner.stop();
    window.location.assign(path);
  };

  const showError = (text) => {
    error.textContent = text;
    error.hidden = !text;
    input.setAttribute('aria-invalid', text ? 'true' : 'false');
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const text = input.value;
    if (!text.trim()) { showError(t('scan.empty')); input.focus(); return; }
    const path = slipPath(text);
    if (!path) { showError(t('scan.bad_code')); input.focus(); return; }
    showError('');
    // A typo should be said here, beside the field, not on an error page.
    if (path.startsWith('/s/')) {
      try {
        const res = await fetch(path, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
        if (res.status === 404 || res.status === 403) { showError(t('scan.unknown')); input.focus(); return; }
      } catch { /* offline or the like: let the page itself say it */ }
    }
    go(path);
  });
  input.addEventListener('input', () => showError(''));

  async function start() {
    startBtn.hidden = true;
    view.hidden = false;
    status.textContent = t('scan.starting');
    try {
      scanner = await startScanner(video, {
        onResult: (text) => {
          if (leaving) return;
          const path = slipPath(text);
          if (path) {
            status.textContent = t('scan.opening');
            status.dataset.kind = 'ok';
            if (navigator.vibrate) navigator.vibrate(60);
            go(path);
          } else {
            status.textContent = t('scan.not_ours');
            status.dataset.kind = 'refused';
          }
        },
        onError: () => {},
      });
      status.textContent = t('scan.hold');
      delete status.dataset.kind;
    } catch (err) {
      view.hidden = true;
      status.textContent = t('scan.denied', { reason: (err && (err.message || err.name)) || '?' });
      status.dataset.kind = 'refused';
      startBtn.textContent = t('scan.retry');
      startBtn.hidden = false;
    }
  }

  // A code in the address (/scan?code=…, the form without the script) opens at once.
  const preset = new URLSearchParams(window.location.search).get('code');
  if (preset) {
    const path = slipPath(preset);
    if (path) { go(path); return; }
    showError(t('scan.bad_code'));
  }

  if (scannerAvailable()) {
    startBtn.addEventListener('click', start);
    start();
  } else {
    noCam.hidden = false;
    status.hidden = true;
  }
  window.addEventListener('pagehide', () => { if (scanner) scanner.stop(); });
  // Back from the slip (page cache): the camera was stopped, start afresh.
  window.addEventListener('pageshow', (ev) => { if (ev.persisted) window.location.reload(); });
}

if (typeof document !== 'undefined' && document.getElementById('scan-form')) {
  startPage();
}
