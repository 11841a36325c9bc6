// The Orders tab. Planning: the defender, then the order form (pilot → plane → corridor →
// target → Add), this round's orders and "Print slips"; airborne: each order's state and its
// next dogfight.

import { t, tn } from '../../lib/i18n.js';
import { el, $ } from '../../lib/dom.js';
import { SeaGrid } from '../../lib/sea.js';
import { sanitiseForm, missingStep } from './helpers.js';
import { enemySeaCells } from './sea-tab.js';

function orderLine(ctx, o) {
  const { ownShipName, corridorName, planeName } = ctx.words;
  return [planeName(o.kind), ownShipName(o.ship), `${corridorName(o.corridor)}\u00a0${o.position}`].join(' · ');
}

function orderStatus(ctx, o) {
  const { ownShipName, planeName, holderName } = ctx.words;
  const n = o.next;
  if (o.status === 'airborne' && n) {
    const who = { pilot: o.pilot, label: n.opponent.label, kind: planeName(n.opponent.kind) };
    if (n.conflict) return { kind: 'refused', text: t('team.next_conflict', who) };
    if (n.status === 'due' && n.reported_by && n.reported_by.length) return { kind: 'fight', text: t('team.next_reported', who) };
    if (n.status === 'due') return { kind: 'fight', text: t('team.next_due', who) };
    return { kind: '', text: t('team.next_waiting', { ...who, reason: n.reason }) };
  }
  switch (o.status) {
    case 'planned': return { kind: '', text: t('team.status_planned') };
    case 'airborne': return { kind: '', text: t('team.status_airborne') };
    case 'bombing': return { kind: 'fight', text: t('team.status_bombing', { square: o.target }) };
    case 'landed': return { kind: 'ok', text: o.landed_on ? t('team.status_landed', { ship: ownShipName(o.landed_on) }) : t('team.status_lost') };
    case 'shot_down': return { kind: 'hit', text: t('team.status_shot_down', { by: holderName(o.shot_down_by || '?') }) };
    default: return { kind: '', text: o.status };
  }
}

/** This round's orders: each one's line and state, and Remove while planning; Print slips. */
function renderOrderList(ctx) {
  const orders = [...(ctx.view.orders || [])].sort((a, b) =>
    (ctx.view.ruleset.corridors.indexOf(a.corridor) - ctx.view.ruleset.corridors.indexOf(b.corridor)) || a.position - b.position);
  const planning = ctx.view.round && ctx.view.round.phase === 'planning';
  const removable = new Set((ctx.view.legal || []).filter((a) => a.type === 'remove_order').map((a) => a.order));
  $('orders-title').textContent = t('team.orders_title', { n: ctx.view.round.round });
  $('orders-locked').hidden = planning;
  const items = orders.map((o) => {
    const st = orderStatus(ctx, o);
    return el('li', { class: 'order-item', 'data-order': o.id },
      el('div', { class: 'order-main' },
        el('span', { class: 'order-label', text: o.label }),
        el('span', { class: 'order-pilot', text: o.pilot }),
        el('span', { class: 'order-line', text: orderLine(ctx, o) }),
        o.target ? el('span', { class: 'order-target', 'aria-label': `${t('team.target_word')} ${o.target}` }, el('span', { 'aria-hidden': 'true', text: '→ ' }), o.target) : null,
        planning ? null : el('span', { class: 'order-status', 'data-kind': st.kind, text: st.text })),
      planning && removable.has(o.id)
        ? el('button', {
          type: 'button', class: 'btn btn-ghost order-remove', 'data-key': `remove-${o.id}`,
          'aria-label': t('team.remove_order', { pilot: o.pilot }),
          onclick: async () => { const r = await ctx.act({ type: 'remove_order', order: o.id }); if (r) ctx.say(t('team.removed_ok', { pilot: o.pilot }), 'ok'); },
        }, el('span', { 'aria-hidden': 'true', text: '✕' }), el('span', { class: 'order-remove-word', text: t('team.remove') }))
        : null);
  });
  $('order-list').replaceChildren(...items);
  $('orders-empty').hidden = orders.length > 0;
  const print = $('print-slips');
  print.hidden = !orders.length;
  print.href = `/g/${encodeURIComponent(ctx.game)}/slips?round=${ctx.view.round.round}`;
}

/** The defender's chips; once chosen, folded to one line with Change. */
function renderDefender(ctx, redraw) {
  const legal = (ctx.view.legal || []).find((a) => a.type === 'set_defender');
  const allowed = new Set(legal ? legal.options : []);
  const chips = (ctx.view.players || []).map((p) => el('button', {
    type: 'button', class: 'chip', 'data-key': `def-${p}`,
    'aria-pressed': ctx.view.defender === p ? 'true' : 'false',
    disabled: !allowed.has(p) && ctx.view.defender !== p,
    onclick: async () => {
      if (ctx.view.defender === p) return;
      const r = await ctx.act({ type: 'set_defender', team: ctx.team, pilot: p });
      if (r) { ctx.ui.defenderOpen = false; ctx.say(t('team.defender_ok', { pilot: p }), 'ok'); redraw(); }
    },
  }, p));
  $('defender-chips').replaceChildren(...chips);
  $('defender-hint').hidden = Boolean(ctx.view.defender);
  $('defender-card').classList.toggle('needs-action', !ctx.view.defender);
  // Once chosen, the card folds to one line; "Change" opens the chips again.
  const folded = Boolean(ctx.view.defender) && !ctx.ui.defenderOpen;
  $('defender-chips').hidden = folded;
  $('defender-name').textContent = ctx.view.defender || '';
  $('defender-name').hidden = !ctx.view.defender;
  $('defender-change').hidden = !ctx.view.defender;
  $('defender-change').setAttribute('aria-expanded', folded ? 'false' : 'true');
}

function step(n, key, done) {
  const s = $(`step-${key}`);
  s.classList.toggle('is-done', Boolean(done));
  s.querySelector('.step-no').textContent = done ? '✓' : String(n);
}

// After a tap, bring the next open step into view (the form is long on a phone).
function nextStep(ctx) {
  const missing = missingStep(ctx.ui.form);
  const node = missing ? $(`step-${missing}`) : $('add-order');
  if (!node || node.hidden || !missing) return;
  const reduce = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  const top = node.getBoundingClientRect().top;
  const bar = document.querySelector('.topbar');
  const offset = (bar ? bar.getBoundingClientRect().height : 0) + 8;
  window.scrollBy({ top: top - offset, behavior: reduce ? 'auto' : 'smooth' });
}

function pickTarget(ctx, cell, redraw) {
  ctx.ui.form.target = cell.name;
  const shot = (ctx.view.enemy_sea && ctx.view.enemy_sea.shots || {})[cell.name];
  if (shot === 'hit' || shot === 'sunk') ctx.say(t('team.target_already_hit', { square: cell.name }), 'refused');
  else if (shot === 'water') ctx.say(t('team.target_water', { square: cell.name }), 'water');
  else ctx.say(t('team.target_ok', { square: cell.name }), 'ok');
  redraw();
}

/** The order form, step by step (pilot → plane → corridor → target), and its line in the bar.
 *  tab: {redraw, targetGrid} (the target sea, made once). */
function renderForm(ctx, tab) {
  const { shipLabel, corridorName, planeName, teamName } = ctx.words;
  const o = ctx.view.options || {};
  const f = ctx.ui.form = sanitiseForm(ctx.ui.form, o);
  const noPilots = !(o.pilots || []).length;
  $('order-form').hidden = noPilots;
  $('no-pilots').hidden = !noPilots;
  if (noPilots) return;

  // 1. pilot
  $('pilot-chips').replaceChildren(...o.pilots.map((p) => el('button', {
    type: 'button', class: 'chip', 'data-key': `pilot-${p}`, 'aria-pressed': f.pilot === p ? 'true' : 'false',
    onclick: () => { const on = ctx.ui.form.pilot !== p; ctx.ui.form.pilot = on ? p : null; tab.redraw(); if (on) nextStep(ctx); },
  }, p)));
  step(1, 'pilot', f.pilot);

  // 2. plane: one row per ship, a chip for its fighters and one for its bombers
  // A grid: a row per ship, a column per kind; each button shows the planes left.
  $('plane-rows').replaceChildren(
    el('span', { class: 'plane-head', 'aria-hidden': 'true' }),
    el('span', { class: 'plane-head', 'aria-hidden': 'true', text: t('team.col_fighters') }),
    el('span', { class: 'plane-head', 'aria-hidden': 'true', text: t('team.col_bombers') }),
    ...(o.ships || []).flatMap((s) => [
      el('span', { class: 'plane-ship' }, el('span', { class: 'ship-letter', text: s.ship }), el('span', { text: shipLabel(s) })),
      ...['fighter', 'bomber'].map((k) => el('button', {
        type: 'button', class: 'plane-pick', 'data-key': `plane-${s.ship}-${k}`, 'data-kind': k,
        'aria-pressed': f.ship === s.ship && f.kind === k ? 'true' : 'false',
        'aria-label': t('team.plane_chip', { plane: planeName(k), ship: shipLabel(s), n: s[k] }),
        disabled: !(s[k] > 0),
        onclick: () => {
          const same = ctx.ui.form.ship === s.ship && ctx.ui.form.kind === k;
          ctx.ui.form.ship = same ? null : s.ship;
          ctx.ui.form.kind = same ? null : k;
          tab.redraw();
          if (!same) nextStep(ctx);
        },
      }, el('span', { class: 'plane-count', text: String(s[k]) }))),
    ]));
  step(2, 'plane', f.ship && f.kind);

  // 3. corridor: three large buttons with their free slots; take-off position under them
  $('corridor-choices').replaceChildren(...(o.corridors || []).map((c) => el('button', {
    type: 'button', class: 'choice', 'data-key': `corr-${c.corridor}`, 'aria-pressed': f.corridor === c.corridor ? 'true' : 'false',
    disabled: c.free <= 0,
    onclick: () => { ctx.ui.form.corridor = c.corridor; ctx.ui.form.position = c.positions[0]; tab.redraw(); nextStep(ctx); },
  }, el('span', { class: 'big', text: corridorName(c.corridor) }),
  el('span', { class: 'small', text: c.free > 0 ? tn('team.free_slots', c.free, { n: c.free }) : t('team.corridor_full') }))));
  const corridor = (o.corridors || []).find((c) => c.corridor === f.corridor);
  $('position-row').hidden = !corridor || corridor.positions.length < 2;
  if (corridor) {
    $('position-chips').replaceChildren(...corridor.positions.map((p) => el('button', {
      type: 'button', class: 'chip chip-small', 'data-key': `pos-${p}`, 'aria-pressed': f.position === p ? 'true' : 'false',
      'aria-label': t('team.position_n', { n: p }),
      onclick: () => { ctx.ui.form.position = p; tab.redraw(); },
    }, String(p))));
  }
  step(3, 'corridor', f.corridor);

  // 4. target (bombers): the enemy sea with our past results
  const bomber = f.kind === 'bomber';
  $('step-target').hidden = !bomber;
  if (bomber) {
    const es = ctx.view.enemy_sea || {};
    const size = es.size || o.target_size;
    const others = new Set((ctx.view.orders || []).filter((x) => x.target).map((x) => x.target));
    const cells = enemySeaCells(ctx, { dimShots: true, target: f.target });
    if (f.target && !es.shots?.[f.target]) cells.push({ square: f.target, flags: ['selected'] });
    for (const sq of others) if (sq !== f.target && !es.shots?.[sq]) cells.push({ square: sq, flags: ['highlight'], note: t('team.targeted') });
    const opts = { cols: size, rows: size, mini: true, label: t('team.enemy_sea_label', { team: teamName(ctx.enemy) }), cells, onTap: (cell) => pickTarget(ctx, cell, tab.redraw) };
    if (!tab.targetGrid) tab.targetGrid = new SeaGrid($('target-grid'), opts); else tab.targetGrid.render(opts);
    $('target-picked').textContent = f.target || '–';
  }
  step(4, 'target', f.target);

  // the bar: what is still missing, or the order in words; then "Add"
  const missing = missingStep(f);
  const ship = (o.ships || []).find((s) => s.ship === f.ship);
  $('order-summary').textContent = missing
    ? t(`team.need_${missing}`)
    : [f.pilot, `${planeName(f.kind)} · ${shipLabel(ship)}`, `${corridorName(f.corridor)}\u00a0${f.position}`, f.target].filter(Boolean).join(' · ');
  $('order-summary').dataset.ready = missing ? 'false' : 'true';
  $('add-order').setAttribute('aria-disabled', missing || ctx.ui.busy ? 'true' : 'false');
}

/** Mount the Orders tab; ctx is the page context (see ../team.js). */
export function mount(ctx) {
  const { ownShipName, corridorName, planeName } = ctx.words;
  const tab = { redraw: () => renderOrders(), targetGrid: null };

  $('defender-change').addEventListener('click', () => { ctx.ui.defenderOpen = !ctx.ui.defenderOpen; tab.redraw(); });

  $('add-order').addEventListener('click', async () => {
    const f = ctx.ui.form;
    const missing = missingStep(f);
    if (missing) { ctx.say(t(`team.need_${missing}`), 'refused'); return; }
    if (ctx.ui.busy) return;
    const action = { type: 'add_order', team: ctx.team, pilot: f.pilot, kind: f.kind, ship: f.ship, corridor: f.corridor };
    if (f.position) action.position = f.position;
    if (f.kind === 'bomber') action.target = f.target;
    ctx.ui.busy = true;
    renderForm(ctx, tab);
    const res = await ctx.act(action);
    ctx.ui.busy = false;
    if (res) {
      ctx.say(t('team.order_added', { pilot: f.pilot }), 'ok',
        [planeName(f.kind), ownShipName(f.ship), `${corridorName(f.corridor)}\u00a0${f.position}`, f.target].filter(Boolean).join(' · '));
      ctx.ui.form = { pilot: null, ship: null, kind: null, corridor: null, position: null, target: null };
    }
    ctx.render();
  });

  function renderOrders() {
    const planning = ctx.view.phase === 'playing' && ctx.view.round.phase === 'planning';
    const airborne = ctx.view.phase === 'playing' && ctx.view.round.phase === 'airborne';
    $('orders-idle').hidden = planning || airborne;
    $('orders-idle-text').textContent = ctx.view.phase === 'over' ? t('team.orders_over') : t('team.orders_wait');
    $('defender-card').hidden = !planning;
    $('form-card').hidden = !planning;
    $('list-card').hidden = !(planning || airborne);
    $('bar-orders-planning').hidden = !planning;
    if (planning) { renderDefender(ctx, renderOrders); renderForm(ctx, tab); }
    if (planning || airborne) renderOrderList(ctx);
    ctx.setCount('orders', planning ? (ctx.view.orders || []).length : 0);
  }

  return { render: renderOrders };
}
