// The tables on screen: the gunnery table of the ship about to fire (or that fired last), for the
// damage it fires with, a row a range, a column a die face; and the submarine table. The row of
// the shot in hand is marked, and after a roll its cell too (the row of its range, the column of
// its pips): players check the die against the table as they would on paper.

import { t, tn } from '../lib/i18n.js';
import { el, $ } from '../lib/dom.js';

const FACES = [1, 2, 3, 4, 5, 6];
const SUB_TABLES = ['submarine_attacks_ship', 'ship_attacks_submarine', 'submarine_attacks_submarine'];

const cells = (row) => String(row).split(/\s+/).map((h) => (h === '-' ? 0 : Number(h)));

function faceCells(row, markRow, pips) {
  return cells(row).map((hits, i) => el('td', { class: markRow && pips === i + 1 ? 'is-rolled' : null, text: hits ? String(hits) : '–' }));
}

function head(first) {
  return el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: first }), FACES.map((f) => el('th', { scope: 'col', text: String(f) }))));
}

/** What the tables show now: {piece, damage, table, distance, pips}, from the aimed shot, the selected ship or the last roll. */
function shotInHand(view, ui) {
  const last = view.rolls[view.rolls.length - 1] || null;
  if (ui.aim) {
    const p = view.pieces.find((q) => q.id === ui.aim.piece);
    return { piece: ui.aim.piece, cls: p?.class, damage: p?.damage_for_fire ?? 0, table: ui.aim.offer.table, distance: ui.aim.offer.distance, pips: null };
  }
  const p = ui.selected ? view.pieces.find((q) => q.id === ui.selected) : null;
  if (p && (!last || last.piece !== p.id)) return { piece: p.id, cls: p.class, damage: p.damage_for_fire, table: p.on === 'vertex' ? 'submarine_attacks_ship' : 'gunnery', distance: null, pips: null };
  if (!last) return p ? { piece: p.id, cls: p.class, damage: p.damage_for_fire, table: 'gunnery', distance: null, pips: null } : null;
  const shooter = view.pieces.find((q) => q.id === last.piece);
  return { piece: last.piece, cls: shooter?.class, damage: last.damage, table: last.table, distance: last.distance, pips: last.pips };
}

/** Fill #vs-tables for the page's view and its own state (`ui`: the selected piece, the aimed shot). */
export function paintTables(view, ui, words) {
  const box = $('vs-tables');
  if (!box) return;
  const shot = shotInHand(view, ui);
  const parts = [];
  const gunnery = shot && shot.cls ? view.ruleset.gunnery[shot.cls] : null;
  const rows = gunnery ? gunnery[shot.damage] || gunnery[gunnery.length - 1] : null;
  if (rows) {
    const rolled = shot.table === 'gunnery';
    parts.push(el('p', { class: 'vs-table-title', text: t('vs.gunnery_of', { piece: words.piece(shot.piece), hits: shot.damage }) }));
    parts.push(el('table', { class: 'vs-table', 'data-table': 'gunnery' }, head(t('vs.range')), el('tbody', {}, rows.map((row, i) => {
      const mark = rolled && shot.distance === i + 1;
      return el('tr', { class: mark ? 'is-shot' : null }, el('th', { scope: 'row', 'aria-label': tn('vs.n_hexes', i + 1, { n: i + 1 }), text: String(i + 1) }), faceCells(row, mark, shot.pips));
    }))));
  }
  const subs = view.ruleset.submarine_combat;
  parts.push(el('p', { class: 'vs-table-title', text: t('vs.submarine_table') }));
  parts.push(el('table', { class: 'vs-table', 'data-table': 'submarine' }, head(''), el('tbody', {}, SUB_TABLES.map((key) => {
    const mark = shot && shot.table === key;
    return el('tr', { class: mark ? 'is-shot' : null }, el('th', { scope: 'row', text: t(`vs.table_${key}`) }), faceCells(subs[key], mark, shot?.pips ?? null));
  }))));
  box.replaceChildren(...parts);
}
