// The referee's attention list: what waits for the referee now. While planes fly: conflicting
// reports first, then reports to confirm, then due dogfights and bombings, each with its
// throw-by-throw entry; while planning: each team's defender, pickable on the team's behalf.

import { t } from '../../lib/i18n.js';
import { el, $ } from '../../lib/dom.js';
import { teamMark, teamName, kindName, corridorName, orderTeam, byWords } from '../words.js';

function planeChip(o, extra = '') {
  return el('span', { class: `plane team-${String(o.team).toLowerCase()}`, dataset: { kind: o.kind, status: o.status } },
    teamMark(o.team), ' ', el('strong', {}, o.label), ' ', kindName(o.kind),
    o.pilot ? el('span', { class: 'muted' }, ` · ${o.pilot}`) : null, extra);
}

function throwButtons(labels, onPick) {
  return el('div', { class: 'btn-row throw-row' }, labels.map(([text, value, cls]) =>
    el('button', { type: 'button', class: `btn ${cls || ''}`, onclick: (ev) => onPick(value, ev.currentTarget) }, text)));
}

function duelWords(d) {
  if (!d) return '';
  if (d.passed) return t('duel.passed');
  if (d.shot_down) {
    const label = d.shot_down === d.a ? d.a_label : d.b_label;
    return t('duel.shot_down', { plane: label });
  }
  return '';
}

/** Planning: each team's defender, pickable on the team's behalf. */
function defendersCard(ctx) {
  const card = el('article', { class: 'card attn attn-defenders' },
    el('h3', { class: 'attn-title' }, el('span', { class: 'attn-kind' }, `⌂ ${t('ref.defenders')}`),
      el('span', { class: 'muted' }, t('ref.defenders_hint'))));
  const row = el('div', { class: 'defender-row' });
  for (const team of ['A', 'B']) {
    const defender = (ctx.view.defenders || {})[team] || '';
    const setDef = ctx.legal('set_defender', { team });
    const options = (setDef && setDef.options) || [];
    const select = el('select', { id: `defender-${team}`, disabled: !setDef, onchange: (ev) => {
      if (ev.target.value) ctx.act({ type: 'set_defender', team, pilot: ev.target.value }, { button: ev.target });
    } }, el('option', { value: '' }, t('ref.choose_defender')),
    options.map((p) => el('option', { value: p, selected: p === defender }, p)));
    row.append(el('label', { class: `defender-pick${defender ? '' : ' is-missing'}`, for: `defender-${team}` },
      teamMark(team), ' ', el('span', {}, teamName(ctx.view, team)), select));
  }
  card.append(row);
  return card;
}

function dogfightCard(ctx, m, conflicts, redraw) {
  const key = `${m.corridor}:${m.a}:${m.b}`;
  const a = ctx.orders[m.a] || { label: m.a, team: 'A', kind: '?' };
  const b = ctx.orders[m.b] || { label: m.b, team: 'B', kind: '?' };
  const reports = (ctx.view.reports || {})[key] || [];
  const conflict = conflicts.has(key);
  const st = ctx.pending.get(key) || { step: 'first', throws: [] };
  const card = el('article', { class: `card attn attn-dogfight${conflict ? ' is-conflict' : ''}${reports.length && !conflict ? ' is-reported' : ''}` });
  card.append(el('h3', { class: 'attn-title' },
    el('span', { class: 'attn-kind' }, conflict ? `⚠ ${t('ref.conflict')}` : reports.length ? `✓ ${t('ref.report')}` : `⚔ ${t('ref.dogfight')}`),
    el('span', { class: 'muted' }, t('ref.dogfight_in', { corridor: corridorName(m.corridor) }))));
  card.append(el('p', { class: 'attn-who' }, planeChip(a), el('span', { class: 'vs' }, ' vs '), planeChip(b)));
  if (conflict) card.append(el('p', { class: 'attn-text' }, t('ref.conflict_text', { a: a.label, b: b.label, corridor: corridorName(m.corridor) })));
  for (const rep of reports) {
    card.append(el('p', { class: 'attn-report' }, t('ref.report_text', { by: byWords(ctx.view, rep.by, ctx.orders), result: duelWords(rep.result) })));
  }
  if (reports.length && !conflict && ctx.legal('confirm_dogfight', { a: m.a, b: m.b })) {
    card.append(el('p', {}, el('button', { type: 'button', class: 'btn btn-ok btn-block', onclick: (ev) => ctx.act({ type: 'confirm_dogfight', a: m.a, b: m.b }, { button: ev.currentTarget }) },
      `✓ ${t('ref.confirm')}: ${duelWords(reports[0].result)}`)));
  }
  card.append(dogfightEntry(ctx, { key, m, a, b, st }, redraw));
  return card;
}

/** The throw-by-throw entry of a dogfight: at most three clicks. */
function dogfightEntry(ctx, { key, m, a, b, st }, redraw) {
  const wrap = el('div', { class: 'entry' });
  const won = (o) => `${o.team === 'A' ? '▲' : '●'} ${t('ref.won', { plane: o.label })}`;
  const send = (throws, choice, button) => {
    const action = { type: 'report_dogfight', a: m.a, b: m.b, throws: throws.map((w) => ({ winner: w })) };
    if (choice) action.choice = choice;
    ctx.pending.delete(key);
    return ctx.act(action, { button });
  };
  const mixed = a.kind !== b.kind;
  const fighterSide = a.kind === 'fighter' ? 'A' : 'B';
  const bomberSide = fighterSide === 'A' ? 'B' : 'A';
  const side = (s) => (s === 'A' ? a : b);
  if (st.step === 'first') {
    wrap.append(el('p', { class: 'entry-q' }, t('ref.first_throw')));
    const buttons = [[won(a), 'A', 'team-a btn-team'], [won(b), 'B', 'team-b btn-team']];
    if (a.kind === 'bomber' && b.kind === 'bomber') buttons.push([t('ref.both_pass'), 'pass', 'btn-ghost-line']);
    wrap.append(throwButtons(buttons, (value, button) => {
      if (value === 'pass') return send([], 'pass', button);
      if (!mixed || value === fighterSide) return send([value], null, button);
      ctx.pending.set(key, { step: 'choice', throws: [value] });
      redraw();
      return null;
    }));
  } else if (st.step === 'choice') {
    const f = side(fighterSide);
    wrap.append(el('p', { class: 'entry-q' }, `${won(side(bomberSide))}. `, t('ref.fighter_choice', { plane: `${f.label}${f.pilot ? ` ${f.pilot}` : ''}` })));
    wrap.append(throwButtons([[t('ref.pass'), 'pass'], [t('ref.continue'), 'continue', 'btn-primary']], (value, button) => {
      if (value === 'pass') return send(st.throws, 'pass', button);
      ctx.pending.set(key, { step: 'second', throws: st.throws });
      redraw();
      return null;
    }));
  } else if (st.step === 'second') {
    wrap.append(el('p', { class: 'entry-q' }, t('ref.second_throw')));
    wrap.append(throwButtons([[won(a), 'A', 'team-a btn-team'], [won(b), 'B', 'team-b btn-team']],
      (value, button) => send([...st.throws, value], 'continue', button)));
  }
  if (st.step !== 'first') {
    wrap.append(el('button', { type: 'button', class: 'btn btn-ghost btn-small', onclick: () => { ctx.pending.delete(key); redraw(); } }, t('ref.undo')));
  }
  return wrap;
}

function bombingCard(ctx, orderId, type, redraw) {
  const o = ctx.orders[orderId] || { id: orderId, label: orderId, team: orderTeam(orderId) || '?', kind: 'bomber' };
  const defender = o.team === 'A' ? 'B' : 'A';
  const bombing = (ctx.view.bombings || []).find((x) => x.order === orderId);
  const square = (bombing && bombing.target) || o.target || '?';
  const key = `bomb:${orderId}`;
  const st = ctx.pending.get(key) || { step: 'first', throws: [] };
  const card = el('article', { class: `card attn attn-bombing team-${defender.toLowerCase()}` });
  card.append(el('h3', { class: 'attn-title' }, el('span', { class: 'attn-kind' }, `◎ ${t('ref.bombing')}`),
    el('span', { class: 'muted' }, t('ref.bombing_at', { team: teamName(ctx.view, defender) }))));
  card.append(el('p', { class: 'attn-who' }, planeChip(o), ' → ', teamMark(defender), ' ', el('span', { class: 'square-mid' }, square)));
  if (type === 'announce_bombing') {
    card.append(el('button', { type: 'button', class: 'btn btn-primary btn-block', onclick: (ev) => ctx.act({ type: 'announce_bombing', order: orderId }, { button: ev.currentTarget }) },
      t('ref.announce', { square })));
    return card;
  }
  const send = (throws, choice, button) => {
    const action = { type: 'report_bombing', order: orderId, throws: throws.map((w) => ({ winner: w })) };
    if (choice) action.choice = choice;
    ctx.pending.delete(key);
    return ctx.act(action, { button });
  };
  const wrap = el('div', { class: 'entry' });
  if (st.step === 'first') {
    wrap.append(el('p', { class: 'entry-q verdict-small' }, t('ref.fight_throw', { square })));
    wrap.append(throwButtons([[t('ref.bomber_won'), 'bomber', 'btn-primary'], [t('ref.ship_won'), 'ship']], (value, button) => {
      if (value === 'bomber') return send(['bomber'], null, button);
      ctx.pending.set(key, { step: 'choice', throws: ['ship'] });
      redraw();
      return null;
    }));
  } else if (st.step === 'choice') {
    wrap.append(el('p', { class: 'entry-q' }, `${t('ref.ship_won')}. `, t('ref.bomber_choice')));
    wrap.append(throwButtons([[t('ref.leave'), 'leave'], [t('ref.continue'), 'continue', 'btn-primary']], (value, button) => {
      if (value === 'leave') return send(st.throws, 'leave', button);
      ctx.pending.set(key, { step: 'second', throws: st.throws });
      redraw();
      return null;
    }));
  } else {
    wrap.append(el('p', { class: 'entry-q' }, t('ref.second_throw')));
    wrap.append(throwButtons([[t('ref.bomber_won'), 'bomber', 'btn-primary'], [t('ref.ship_won'), 'ship']],
      (value, button) => send([...st.throws, value], 'continue', button)));
  }
  if (st.step !== 'first') {
    wrap.append(el('button', { type: 'button', class: 'btn btn-ghost btn-small', onclick: () => { ctx.pending.delete(key); redraw(); } }, t('ref.undo')));
  }
  card.append(wrap);
  return card;
}

/** Mount on #attention; ctx is the dashboard's context (view, orders, pending, legal, act). */
export function mount(ctx) {
  // --- attention: conflicts, reports, due dogfights, bombings
  function renderAttention() {
    const box = $('attention');
    const cards = [];
    const r = ctx.view.round || {};
    if (ctx.view.phase === 'playing' && r.phase === 'airborne') {
      const conflicts = new Set(ctx.view.conflicts || []);
      const due = (ctx.view.corridors || []).flatMap((c) => (c.meetings || []).filter((m) => m.status === 'due'));
      // Conflicts first, then reports waiting for a confirmation, then the rest.
      const rank = (m) => { const k = `${m.corridor}:${m.a}:${m.b}`; return conflicts.has(k) ? 0 : (ctx.view.reports || {})[k] ? 1 : 2; };
      due.sort((x, y) => rank(x) - rank(y));
      for (const m of due) cards.push(dogfightCard(ctx, m, conflicts, renderAttention));
      for (const act0 of (ctx.view.legal || []).filter((a) => a.type === 'announce_bombing' || a.type === 'report_bombing')) {
        cards.push(bombingCard(ctx, act0.order, act0.type, renderAttention));
      }
    } else if (ctx.view.phase === 'playing' && r.phase === 'planning') {
      cards.push(defendersCard(ctx));
    }
    box.replaceChildren(...cards);
    box.hidden = cards.length === 0;
  }

  return { render: renderAttention };
}
