// The corridor board: each corridor's planes by team and, in flight, who meets whom and how
// it went; while planning, the orders with their Remove buttons.

import { t } from '../../lib/i18n.js';
import { el, $ } from '../../lib/dom.js';
import { teamMark, kindName, corridorName } from '../words.js';

/** Mount on #corridors; ctx is the dashboard's context (view, orders, legal, act). */
export function mount(ctx) {
  const MEET_SYMBOL = { due: '⚔', waiting: '…', done: '✓', never: '—' };

  function renderCorridors() {
    const box = $('corridors');
    const r = ctx.view.round || {};
    const names = (ctx.view.ruleset && ctx.view.ruleset.corridors) || [];
    const boards = new Map((ctx.view.corridors || []).map((c) => [c.corridor, c]));
    const planned = r.phase === 'planning';
    const duels = new Map((ctx.view.duels || []).map((d) => [`${d.corridor}:${d.a}:${d.b}`, d]));
    const cols = names.map((name) => {
      const board = boards.get(name) || { corridor: name, a: [], b: [], meetings: [], through: [] };
      let aPlanes = board.a || [];
      let bPlanes = board.b || [];
      if (planned) {
        const here = (ctx.view.orders || []).filter((o) => o.corridor === name).sort((x, y) => x.position - y.position);
        aPlanes = here.filter((o) => o.team === 'A');
        bPlanes = here.filter((o) => o.team === 'B');
      }
      const col = el('article', { class: 'corridor' }, el('h3', { class: 'corridor-name' }, corridorName(name)));
      if (!aPlanes.length && !bPlanes.length) {
        col.append(el('p', { class: 'muted' }, t('ref.no_planes')));
        return col;
      }
      const sideList = (planes, team) => el('ol', { class: `plane-list team-${team.toLowerCase()}` },
        planes.map((o) => el('li', { dataset: { status: o.status } },
          el('span', { class: 'plane-line' }, teamMark(o.team), ' ', el('strong', {}, o.label), ' ', kindName(o.kind),
            o.target ? el('span', { class: 'plane-target mono' }, ` → ${o.target}`) : null),
          el('span', { class: 'plane-sub muted' }, o.pilot || '', ' · ', el('span', { class: 'status-word' }, t(`status.${o.status}`))),
          planned && ctx.legal('remove_order', { order: o.id })
            ? el('button', { type: 'button', class: 'btn btn-ghost btn-small', onclick: async (ev) => {
              // eslint-disable-next-line no-alert
              if (window.confirm(t('ref.confirm_remove', { plane: o.label, pilot: o.pilot || '' }))) await ctx.act({ type: 'remove_order', order: o.id }, { button: ev.currentTarget });
            } }, t('ref.remove'))
            : null)));
      col.append(el('div', { class: 'corridor-sides' }, sideList(aPlanes, 'A'), sideList(bPlanes, 'B')));
      if (!planned && aPlanes.length && bPlanes.length) {
        const table = el('table', { class: 'meet-grid' });
        table.append(el('caption', { class: 'sr-only' }, t('ref.meetings')));
        table.append(el('tr', {}, el('th', {}, ''), bPlanes.map((o) => el('th', { scope: 'col' }, teamMark('B'), ' ', o.label))));
        for (const ao of aPlanes) {
          const tr = el('tr', {}, el('th', { scope: 'row' }, teamMark('A'), ' ', ao.label));
          for (const bo of bPlanes) {
            const m = (board.meetings || []).find((x) => x.a === ao.id && x.b === bo.id);
            const status = m ? m.status : 'never';
            let detail = t(`meet.${status}`);
            if (status === 'done') {
              const d = duels.get(`${name}:${ao.id}:${bo.id}`);
              if (d) detail = d.passed ? t('duel.passed') : d.shot_down ? `✕ ${d.shot_down === ao.id ? ao.label : bo.label}` : detail;
            }
            tr.append(el('td', { class: 'meet', dataset: { status }, title: (m && m.reason) || '' },
              el('span', { class: 'meet-symbol', 'aria-hidden': 'true' }, MEET_SYMBOL[status] || ''), ' ', detail));
          }
          table.append(tr);
        }
        col.append(table);
      }
      const through = (board.through || []).map((id) => ctx.orders[id]).filter(Boolean);
      if (!planned && through.length) {
        col.append(el('p', { class: 'through' }, el('span', { class: 'muted' }, `${t('ref.through')}: `),
          through.map((o, i) => [i ? ', ' : '', teamMark(o.team), ' ', o.label])));
      }
      return col;
    });
    box.replaceChildren(...cols);
    $('corridors-title').textContent = planned ? `${t('ref.planned')}` : t('ref.meetings');
  }

  return { render: renderCorridors };
}
