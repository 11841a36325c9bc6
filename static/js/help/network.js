// The network help page (the server's own, no mode's): the phones that reached the referee's computer, from /api/reach every few seconds
// (templates/help/network.html; referee/web/help.py notes each one that opens /help/reach).

import { t } from '../lib/i18n.js';
import { el, $ } from '../lib/dom.js';

const EVERY_MS = 3000;

async function refresh() {
  let reaches = [];
  try {
    const res = await fetch('/api/reach', { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    if (res.ok) reaches = (await res.json()).reaches || [];
  } catch { /* offline a moment: the next look tells */ }
  const list = $('reaches');
  if (!reaches.length) {
    list.replaceChildren(el('li', { class: 'muted' }, t('help.none')));
    return;
  }
  list.replaceChildren(...reaches.map((r) => el('li', { class: 'help-reach' },
    `✓ ${t('help.reached', { device: r.device || t('help.phone'), address: r.address, ago: r.seconds_ago })}`)));
}

refresh();
setInterval(refresh, EVERY_MS);
