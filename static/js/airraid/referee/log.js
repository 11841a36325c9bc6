// The live log, newest first, each row with its Void button (which asks for a reason).

import { t, pageLang } from '../../lib/i18n.js';
import { el, $ } from '../../lib/dom.js';
import { byWords, describeEvent } from '../words.js';
import { askReason } from './dialog.js';

function clockTime(at) {
  if (!Number.isFinite(at)) return '';
  try {
    return new Date(at * 1000).toLocaleTimeString(pageLang(), { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
  } catch {
    return new Date(at * 1000).toTimeString().slice(0, 8);
  }
}

/** Mount on #log; ctx is the dashboard's context (view, orders, act, say). */
export function mount(ctx) {
  function renderLog() {
    const list = $('log');
    const rows = [...(ctx.view.log || [])].reverse();
    list.replaceChildren(...rows.map((row) => {
      const words = describeEvent(row, ctx.view, ctx.orders);
      const li = el('li', { class: `log-row${row.voided !== null && row.voided !== undefined ? ' is-voided' : ''}${row.skipped ? ' is-skipped' : ''}`, value: row.seq },
        el('span', { class: 'log-seq mono' }, `#${row.seq}`),
        el('span', { class: 'log-time mono muted' }, clockTime(row.at)),
        el('span', { class: 'log-by muted', title: row.device || '' }, byWords(ctx.view, row.by, ctx.orders), row.device ? ` · ${row.device}` : ''),
        el('span', { class: 'log-text' }, words.join(' · ')));
      if (row.voided !== null && row.voided !== undefined) li.append(el('span', { class: 'log-mark' }, t('ref.voided', { reason: row.voided || '–' })));
      if (row.skipped) li.append(el('span', { class: 'log-mark' }, t('ref.skipped', { reason: row.skipped })));
      const canVoid = row.seq > 1 && (row.voided === null || row.voided === undefined) && ctx.view.phase !== undefined;
      if (canVoid) {
        li.append(el('button', { type: 'button', class: 'btn btn-ghost btn-small log-void', 'aria-label': `${t('ref.void')} #${row.seq}`, onclick: async (ev) => {
          const button = ev.currentTarget;
          const reason = await askReason(ctx, { title: t('ref.void_title', { seq: row.seq }), text: `${words.join(' · ')}\n${t('ref.void_text')}`, ok: t('ref.void_ok') });
          if (reason) await ctx.act({ type: 'void', seq: row.seq, reason }, { button });
        } }, t('ref.void')));
      }
      return li;
    }));
  }

  return { render: renderLog };
}
