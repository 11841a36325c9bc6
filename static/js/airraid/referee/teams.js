// Each team's card (sea, facts, ships, roster and defender, the lock state during setup) and
// the plane ledger with the trophies.

import { t } from '../../lib/i18n.js';
import { el, $ } from '../../lib/dom.js';
import { SeaGrid } from '../../lib/sea.js';
import { teamMark, teamName, kindName, corridorName, holderWords } from '../words.js';

/** Mount on #team-A, #team-B and #ledger; ctx is the dashboard's context (view, legal, act). */
export function mount(ctx) {
  const seas = {};

  function seaCells(sea) {
    const cells = [];
    const hits = new Set(sea.hits || []);
    for (const ship of sea.ships || []) {
      for (const sq of ship.squares) {
        cells.push({ square: sq, state: ship.sunk ? 'sunk' : hits.has(sq) ? 'hit' : 'ship', ship: ship.id, note: ship.name });
      }
    }
    const onShip = new Set(cells.map((c) => c.square));
    for (const [sq, what] of Object.entries(sea.shots || {})) {
      if (!onShip.has(sq) && what === 'water') cells.push({ square: sq, state: 'miss' });
    }
    return cells;
  }

  function renderTeam(team) {
    const info = (ctx.view.teams || {})[team] || {};
    const sea = (ctx.view.seas || {})[team] || { size: info.size || 7, ships: [] };
    const card = $(`team-${team}`);
    for (const node of card.querySelectorAll(`[data-team-name="${team}"]`)) node.textContent = info.name || team;
    const size = sea.size || info.size || 7;
    const seaEl = $(`sea-${team}`);
    const label = `${info.name || team}`;
    if (!seas[team]) seas[team] = new SeaGrid(seaEl, { cols: size, rows: size, cells: seaCells(sea), label, mini: true });
    else seas[team].render({ cols: size, rows: size, cells: seaCells(sea), label });

    // Setup: is the sea locked?
    const lock = card.querySelector(`[data-lock="${team}"]`);
    lock.replaceChildren();
    if (ctx.view.phase === 'setup') {
      lock.append(el('span', { class: `lock-state ${info.locked ? 'is-locked' : 'is-open'}` }, info.locked ? `✓ ${t('ref.locked')}` : `… ${t('ref.placing')}`));
      if (ctx.legal('unlock_sea', { team })) {
        lock.append(' ', el('button', { type: 'button', class: 'btn btn-ghost btn-small', onclick: (ev) => {
          // eslint-disable-next-line no-alert
          if (window.confirm(t('ref.confirm_unlock', { team: info.name || team }))) ctx.act({ type: 'unlock_sea', team }, { button: ev.currentTarget });
        } }, t('ref.unlock')));
      }
    }

    const facts = card.querySelector(`[data-facts="${team}"]`);
    const planes = info.planes || {};
    if (!info.locked) { facts.replaceChildren(); } else facts.replaceChildren(
      el('dt', {}, t('ref.ships_afloat')), el('dd', {}, `${info.ships_afloat ?? '–'} / ${info.ships_total ?? '–'}`),
      el('dt', {}, t('ref.squares_left')), el('dd', {}, info.squares_left ?? '–'),
      el('dt', {}, t('ref.planes')), el('dd', {}, t('ref.planes_value', { fighters: planes.fighter ?? 0, bombers: planes.bomber ?? 0 })),
      el('dt', {}, t('ref.trophies')), el('dd', {}, info.trophies ?? 0),
    );
    const ships = card.querySelector(`[data-ships="${team}"]`);
    ships.replaceChildren(...(sea.ships || []).map((s) => el('li', { class: s.sunk ? 'is-sunk' : '' },
      el('span', { class: 'ship-id mono' }, s.id), ' ', s.name, ' ',
      s.sunk ? el('span', { class: 'sunk-word' }, `✕ ${t('ref.sunk')}`) : el('span', { class: 'muted' }, t('ref.ship_stock', { fighters: s.fighters, bombers: s.bombers })))));

    // Roster and defender.
    const defender = (ctx.view.defenders || {})[team] || null;
    const box = card.querySelector(`[data-defender="${team}"]`);
    box.replaceChildren();
    if (ctx.view.phase === 'playing') {
      box.append(el('p', {}, `⌂ ${t('ref.defender')}: `, el('strong', {}, defender || t('ref.no_defender'))));
    }
    const flying = new Map((ctx.view.orders || []).filter((o) => o.team === team).map((o) => [o.pilot, o]));
    const roster = card.querySelector(`[data-roster="${team}"]`);
    roster.replaceChildren(...((ctx.view.rosters || {})[team] || []).map((p) => {
      const o = flying.get(p);
      let what = '';
      if (p === defender) what = `⌂ ${t('ref.defender')}`;
      else if (o) what = `✈ ${t('ref.flies', { plane: `${o.label} ${kindName(o.kind)}, ${corridorName(o.corridor)}` })} · ${t(`status.${o.status}`)}`;
      return el('li', { dataset: { role: p === defender ? 'defender' : o ? 'pilot' : 'base' } }, el('strong', {}, p), what ? el('span', { class: 'muted' }, ` ${what}`) : null);
    }));
  }

  // The ledger: every plane on a ship, in the air, lost or a trophy; the rows must add up.
  function renderLedger() {
    const table = $('ledger');
    table.closest('section').hidden = ctx.view.phase === 'setup';
    const led = ctx.view.ledger || {};
    const cols = ['start', 'on_ships', 'in_air', 'lost', 'trophies'];
    const head = el('tr', {}, el('th', {}, ''), el('th', {}, t('ref.ledger.kind')), cols.map((c) => el('th', { class: 'num' }, t(`ref.ledger.${c}`))));
    const rows = [];
    let balanced = true;
    for (const team of ['A', 'B']) {
      for (const kind of ['fighter', 'bomber']) {
        const row = (led[team] || {})[kind];
        if (!row) continue;
        if (row.on_ships + row.in_air + row.lost + row.trophies !== row.start) balanced = false;
        rows.push(el('tr', {}, el('td', {}, kind === 'fighter' ? [teamMark(team), ' ', teamName(ctx.view, team)] : ''), el('td', {}, kindName(kind)),
          cols.map((c) => el('td', { class: 'num' }, row[c]))));
      }
    }
    table.replaceChildren(el('thead', {}, head), el('tbody', {}, rows));
    const list = $('trophies');
    const items = (ctx.view.trophies || []).map((tr) => el('li', {}, teamMark(tr.holder_team), ' ',
      t('ref.trophy', { holder: holderWords(tr.holder), team: teamName(ctx.view, tr.holder_team), kind: kindName(tr.kind), owner: teamName(ctx.view, tr.plane_team), round: tr.round })));
    const sum = el('li', { class: balanced ? 'ledger-ok' : 'ledger-bad' }, balanced ? `✓ ${t('ref.ledger.ok')}` : `! ${t('ref.ledger.bad')}`);
    list.replaceChildren(...(items.length ? items : [el('li', { class: 'muted' }, t('ref.no_trophies'))]), sum);
  }

  return {
    render() {
      for (const team of ['A', 'B']) renderTeam(team);
      renderLedger();
    },
  };
}
