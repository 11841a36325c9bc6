// The join links (reissue one) and the devices list (rename, revoke), looked for again often
// until the game starts: phones join without an event in the log.

import { t } from '../../lib/i18n.js';
import { el, $ } from '../../lib/dom.js';
import { teamMark, teamName } from '../words.js';

function ago(seconds) {
  if (!Number.isFinite(seconds)) return t('ref.never');
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return t('ref.seconds_ago', { n: s });
  if (s < 5400) return t('ref.minutes_ago', { n: Math.round(s / 60) });
  return t('ref.hours_ago', { n: Math.round(s / 3600) });
}

/** Wire the join-link buttons and #devices; ctx is the dashboard's context (view, api, request, say). */
export function mount(ctx) {
  for (const button of document.querySelectorAll('[data-reissue]')) {
    button.addEventListener('click', async () => {
      const team = button.dataset.reissue;
      // eslint-disable-next-line no-alert
      if (!window.confirm(t('ref.reissue_confirm', { team: teamName(ctx.view, team) }))) return;
      button.disabled = true;
      try {
        const data = await ctx.request('POST', `${ctx.api}/teams/${team}/join-link`);
        $(`join-url-${team}`).textContent = data.url || '';
        if (data.qr_svg) {
          // The server's own SVG (made by the qrcode package), as it renders it into the page.
          const box = $(`join-qr-${team}`);
          box.replaceChildren();
          box.insertAdjacentHTML('afterbegin', data.qr_svg);
          ctx.say(t('ref.reissued', { team: teamName(ctx.view, team) }), 'ok');
        } else {
          window.location.reload();
        }
      } catch (err) {
        ctx.say(t('ref.refused', { message: err.message }), 'refused');
      } finally {
        button.disabled = false;
      }
    });
  }

  // --- devices
  async function loadDevices() {
    const table = $('devices');
    let devices;
    try {
      devices = ((await ctx.request('GET', `${ctx.api}/devices`)) || {}).devices || [];
    } catch (err) {
      table.replaceChildren(el('li', { class: 'muted' }, err.message));
      return;
    }
    if (!devices.length) {
      table.replaceChildren(el('li', { class: 'muted' }, t('ref.devices_none')));
      return;
    }
    const now = Date.now() / 1000;
    devices.sort((x, y) => (x.revoked - y.revoked) || String(x.team).localeCompare(String(y.team)));
    table.replaceChildren(...devices.map((d) => {
      const input = el('input', { value: d.name || '', placeholder: t('ref.device_unnamed'), maxlength: 40, 'aria-label': t('ref.device_name'), disabled: d.revoked });
      const save = el('button', { type: 'button', class: 'btn btn-small', disabled: d.revoked, onclick: async () => {
        save.disabled = true;
        try { await ctx.request('POST', `${ctx.api}/devices/${encodeURIComponent(d.id)}`, { name: input.value.trim() }); ctx.say(t('ref.sent'), 'ok'); } catch (err) { ctx.say(t('ref.refused', { message: err.message }), 'refused'); }
        save.disabled = false;
      } }, t('ref.device_rename'));
      const revoke = d.revoked ? el('span', { class: 'device-revoked' }, `⊘ ${t('ref.device_revoked')}`) : el('button', { type: 'button', class: 'btn btn-small btn-danger', onclick: async () => {
        // eslint-disable-next-line no-alert
        if (!window.confirm(t('ref.device_confirm_revoke'))) return;
        try { await ctx.request('DELETE', `${ctx.api}/devices/${encodeURIComponent(d.id)}`); ctx.say(t('ref.sent'), 'ok'); } catch (err) { ctx.say(t('ref.refused', { message: err.message }), 'refused'); }
        loadDevices();
      } }, t('ref.device_revoke'));
      input.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') save.click(); });
      return el('li', { class: `device${d.revoked ? ' is-revoked' : ''}` },
        el('div', { class: 'device-name' }, teamMark(d.team), input, save),
        el('div', { class: 'device-meta' }, el('span', { class: d.connected ? 'device-live' : 'muted' }, d.connected && !d.revoked ? `● ${t('ref.device_connected')}` : `${t('ref.device_seen')}: ${ago(Number.isFinite(d.last_seen_at) ? now - d.last_seen_at : NaN)}`), revoke));
    }));
  }
  $('devices-refresh').addEventListener('click', loadDevices);
  loadDevices();
  // Phones join without an event in the log; until the game starts, look for them often.
  const devicesEvery = () => (ctx.view && ctx.view.phase === 'setup' ? 4000 : 30000);
  let devicesAt = Date.now();
  setInterval(() => {
    if (Date.now() - devicesAt < devicesEvery()) return;
    if (document.visibilityState !== 'visible' || document.querySelector('.device-list input:focus')) return;
    devicesAt = Date.now();
    loadDevices();
  }, 1000);
}
