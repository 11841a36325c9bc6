// The air raid in words, for the referee's dashboard and the projector: team marks and colours,
// names of corridors, kinds and ships, and each narration note of the log as a sentence.
// Both pages show the same events in the same words, so they share this module.

import { t } from '../lib/i18n.js';
import { formatMs } from '../lib/timer.js';
import { el } from '../lib/dom.js';

/** A team's symbol + letter (the same as the team_mark macro). */
export function teamMark(team) {
  const t0 = String(team || '').toUpperCase();
  const symbol = { A: '▲', B: '●' }[t0] || '■';
  return el('span', { class: `team-mark team-${t0.toLowerCase()}`, role: 'img', 'aria-label': t0 }, `${symbol} ${t0}`);
}

/** Text colour (black or white) that reads on a background colour. */
export function inkFor(hex) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(String(hex || ''));
  if (!m) return '#000000';
  const lin = (c) => { const s = parseInt(c, 16) / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
  const L = 0.2126 * lin(m[1]) + 0.7152 * lin(m[2]) + 0.0722 * lin(m[3]);
  return L > 0.179 ? '#000000' : '#ffffff';
}

const DEFAULT_COLOURS = { A: '#0072b2', B: '#e69f00' };

/** Use the teams' chosen colours for every .team-a/.team-b on the page (CSSOM: CSP-safe). */
export function applyTeamColours(teams) {
  const root = document.documentElement.style;
  for (const id of ['A', 'B']) {
    const colour = teams && teams[id] && teams[id].colour;
    const lower = id.toLowerCase();
    if (colour && colour.toLowerCase() !== DEFAULT_COLOURS[id]) {
      root.setProperty(`--team-${lower}`, colour);
      root.setProperty(`--team-${lower}-ink`, inkFor(colour));
    } else {
      root.removeProperty(`--team-${lower}`);
      root.removeProperty(`--team-${lower}-ink`);
    }
  }
}

export function teamName(view, team) {
  return (view && view.teams && view.teams[team] && view.teams[team].name) || team || '';
}

export function corridorName(c) {
  const key = `corridor.${c}`;
  const s = t(key);
  return s === key ? String(c) : s;
}

export function shipKindName(kind) {
  const key = `ship.${kind}`;
  const s = t(key);
  return s === key ? String(kind || '') : s;
}

export function kindName(kind) {
  const key = `kind.${kind}`;
  const s = t(key);
  return s === key ? String(kind) : s;
}

/** The team letter of an order id like "2B3" (round, team, serial). */
export function orderTeam(orderId) {
  const m = /^\d+([A-Z])\d+$/.exec(String(orderId || ''));
  return m ? m[1] : null;
}

/** A ship's name: from the sea view (referee) or the ship letter. */
export function shipName(view, team, shipId) {
  const sea = view && view.seas && view.seas[team];
  const ship = sea && sea.ships && sea.ships.find((s) => s.id === shipId);
  return ship ? `${ship.name} ${shipId}` : String(shipId || '');
}

/** Who did something, in words: "referee", "Eagles base", "pilot A1 (Ada)". */
export function byWords(view, by, orders) {
  const [kind, subject] = String(by || '').split(':');
  if (kind === 'team') return t('ref.by.team', { team: teamName(view, subject) });
  if (kind === 'pilot') {
    const o = orders[subject];
    return t('ref.by.pilot', { plane: o ? `${o.label}${o.pilot ? ` ${o.pilot}` : ''}` : subject });
  }
  if (kind === 'referee') return t('ref.by.referee');
  if (kind === 'clock') return t('ref.by.clock');
  return String(by || '');
}

export function holderWords(holder) {
  const s = String(holder || '');
  return s.startsWith('ship:') ? s.slice(5) : s;
}

/**
 * One narration note of the log in words. Works for the referee (all fields)
 * and the public view (order ids, corridors and pilots stripped).
 * orders: {id: order view} when known (current round), for pilot names.
 */
export function describeNote(note, view, orders = {}) {
  const team = (id) => teamName(view, id);
  const plane = (id, label) => {
    const o = id && orders[id];
    if (o && o.label) return `${o.label}${o.pilot ? ` (${o.pilot})` : ''}`;
    if (label) return o && o.pilot ? `${label} (${o.pilot})` : label;
    if (o && o.pilot) return `${o.pilot} (${kindName(o.kind)})`;
    return id || '?';
  };
  switch (note.type) {
    case 'game_created': return t('note.game_created');
    case 'sea_locked': return t('note.sea_locked', { team: team(note.team) });
    case 'game_started': return t('note.game_started');
    case 'order_added': return t('note.order_added', { team: team(note.team), plane: plane(note.order) });
    case 'order_removed': return t('note.order_removed', { team: team(note.team), plane: note.order });
    case 'round_started': return t('note.round_started', { round: note.round });
    case 'round_ended': return t('note.round_ended', { round: note.round });
    case 'through': {
      if (!note.corridor) return t(note.kind === 'bomber' ? 'note.through_bomber_public' : 'note.through_fighter_public', { team: team(note.team) });
      return t(note.kind === 'bomber' ? 'note.through_bomber' : 'note.through_fighter', {
        plane: plane(note.order, note.label), team: team(note.team), corridor: corridorName(note.corridor),
      });
    }
    case 'landed':
      return t(note.home ? 'note.landed' : 'note.landed_other', { plane: plane(note.order, note.label), ship: shipName(view, note.team, note.ship) });
    case 'lost': return t('note.lost', { plane: plane(note.order, note.label), why: note.why || '' });
    case 'shot_down':
      if (!note.by) return t('note.shot_down_public', { kind: kindName(note.kind), team: team(note.team) });
      return t('note.shot_down', { plane: plane(note.order, note.label), kind: kindName(note.kind), team: team(note.team), by: holderWords(note.by) });
    case 'dogfight': {
      let result;
      if (note.passed) result = t('duel.passed');
      else if (note.shot_down) {
        const loserTeam = orderTeam(note.shot_down);
        const label = note.shot_down === note.a ? note.a_label : note.shot_down === note.b ? note.b_label
          : (loserTeam === 'A' ? note.a_label : note.b_label);
        result = t('duel.shot_down', { plane: note.a ? plane(note.shot_down, label) : label });
      } else result = '';
      const a = note.a ? plane(note.a, note.a_label) : note.a_label;
      const b = note.b ? plane(note.b, note.b_label) : note.b_label;
      if (note.corridor) return t('note.dogfight_in', { corridor: corridorName(note.corridor), a, b, result });
      return t('note.dogfight', { a, b, result });
    }
    case 'reported':
      return t('note.reported', { by: byWords(view, note.by, orders), a: plane(note.a), b: plane(note.b) });
    case 'conflict': return t('note.conflict', { a: plane(note.a), b: plane(note.b) });
    case 'bombing':
      return t('note.bombing', { plane: plane(note.order, note.label), team: team(note.team), square: note.square, answer: t(`answer.${note.answer}`) });
    case 'bombing_result':
      return t('note.bombing_result', { team: team(note.team), square: note.square, result: t(`result.${note.result}`) });
    case 'hit': return t('note.hit', { team: team(note.team), square: note.square });
    case 'sunk': {
      const known = view && view.seas && view.seas[note.team] && (view.seas[note.team].ships || []).some((s) => s.id === note.ship);
      const ship = known ? shipName(view, note.team, note.ship) : shipKindName(note.kind || note.ship);
      const n = (note.fighters_lost || 0) + (note.bombers_lost || 0);
      return t(n ? 'note.sunk_planes' : 'note.sunk', { team: team(note.team), ship, n });
    }
    case 'game_over': {
      const result = note.winner ? t('ref.outcome_win', { team: team(note.winner) }) : t('ref.outcome_draw');
      return t('note.game_over', { result: note.detail ? `${result} (${note.detail})` : result });
    }
    case 'timer':
      if (note.running === false) return t('note.timer_paused', { left: formatMs((note.remaining || 0) * 1000) });
      if (note.remaining !== null && note.remaining !== undefined) return t('note.timer_set', { left: formatMs(note.remaining * 1000) });
      return t('note.timer_running');
    case 'round_length': return t('note.round_length', { length: formatMs((note.seconds || 0) * 1000), round: note.round });
    case 'voided': return t('note.voided');
    case 'void': return t('note.void', { target: note.target, reason: note.reason || '' });
    default: return t('note.other', { kind: String(note.type || '').replace(/_/g, ' ') });
  }
}

/**
 * The notes worth saying: "voided" is shown as a mark, and notes that repeat
 * another are dropped (a hit already says the bombing hit; a dogfight already
 * says who was shot down).
 */
export function tidyNotes(notes) {
  const has = (type, test = () => true) => notes.some((n) => n.type === type && test(n));
  return notes.filter((n) => {
    if (n.type === 'voided') return false;
    if (n.type === 'bombing_result' && n.result === 'hit' && has('hit')) return false;
    if (n.type === 'shot_down' && (has('dogfight') || has('bombing_result', (b) => b.result === 'shot_down'))) return false;
    if (n.type === 'hit' && has('sunk', (x) => x.team === n.team)) return false;
    return true;
  });
}

/** A log row (an event with its notes) in words; events without notes fall back to the action. */
export function describeEvent(row, view, orders = {}) {
  const planeOf = (id) => (id && orders[id] && orders[id].label) || id || '';
  const notes = tidyNotes(row.notes || []);
  if (notes.length) return notes.map((n) => describeNote(n, view, orders));
  const d = row.data || {};
  switch (row.kind) {
    case 'set_defender': return [t('note.set_defender', { team: teamName(view, d.team), pilot: d.pilot })];
    case 'set_players': return [t('note.set_players', { team: teamName(view, d.team) })];
    case 'unlock_sea': return [t('note.unlock_sea', { team: teamName(view, d.team) })];
    case 'void': return [t('note.void', { target: d.seq, reason: d.reason || '' })];
    // A voided entry keeps no notes (its effects are undone): it is told from what it asked for.
    case 'lock_sea': return [t('note.sea_locked', { team: teamName(view, d.team) })];
    case 'start_game': return [t('note.game_started')];
    case 'add_order': return [t('note.order_added', { team: teamName(view, d.team), plane: planeOf(d.id) || d.pilot || '' })];
    case 'remove_order': return [t('note.order_removed', { team: teamName(view, (orders[d.order] || {}).team), plane: planeOf(d.order) })];
    case 'start_round': return [t('note.kind.start_round')];
    case 'end_round': return [t('note.kind.end_round')];
    case 'report_dogfight': return [t('note.kind.report_dogfight', { a: planeOf(d.a), b: planeOf(d.b) })];
    case 'confirm_dogfight': return [t('note.kind.confirm_dogfight', { a: planeOf(d.a), b: planeOf(d.b) })];
    case 'announce_bombing': return [t('note.kind.announce_bombing', { square: d.target || (orders[d.order] || {}).target || planeOf(d.order) })];
    case 'report_bombing': return [t('note.kind.report_bombing', { plane: planeOf(d.order) })];
    case 'pause_timer': return [t('note.pause_timer')];
    case 'resume_timer': return [t('note.timer_running')];
    case 'adjust_timer': return [t('note.kind.adjust_timer', { seconds: d.seconds > 0 ? `+${d.seconds}` : String(d.seconds) })];
    case 'set_round_length': return [t('note.kind.set_round_length', { length: formatMs((d.seconds || 0) * 1000) })];
    case 'surrender': return [t('note.kind.surrender', { team: teamName(view, d.team) })];
    case 'forfeit': return [t('note.kind.forfeit', { team: teamName(view, d.team) })];
    case 'end_game': return [t('note.kind.end_game')];
    default: return [t('note.other', { kind: String(row.kind || '').replace(/_/g, ' ') })];
  }
}
