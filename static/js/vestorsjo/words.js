// Vestorsjø in words: piece and side names, hit chances, the log lines of rolls, the port
// counters, the outcome. Every word is the page's (templates/vestorsjo/_strings.html).

import { t, tn, pageLang } from '../lib/i18n.js';
import { SIDE_GLYPH, pieceNumber } from './board.js';

const TABLES_WITH_RANGE = new Set(['gunnery']);

export class Words {
  constructor(view) { this.view = view; }

  set(view) { this.view = view; }

  side(side) {
    const s = this.view.sides[side];
    return s ? (s.title || s.name) : side;
  }

  /** The side's marker and name: "■ Scania". */
  marked(side) { return `${SIDE_GLYPH[side] || ''} ${this.side(side)}`; }

  piece(id) {
    const p = this.view.pieces.find((q) => q.id === id);
    if (!p) return id;
    const n = pieceNumber(id);
    const params = { side: this.side(p.side), cls: p.title || p.name, n };
    return n ? t('vs.piece_n', params) : t('vs.piece', params);
  }

  /** A piece without its side (in lists that already say the side). */
  short(p) {
    const n = pieceNumber(p.id);
    return n ? t('vs.class_n', { cls: p.title || p.name, n }) : (p.title || p.name);
  }

  letter(p) { return t(`vs.letter_${p.class}`); }

  damage(p) {
    if (p.sunk) return t('vs.sunk');
    return t('vs.hits_of', { hits: p.hits, defence: p.defence });
  }

  label(p) { return `${this.piece(p.id)} · ${this.damage(p)}`; }

  pct(chance) {
    try {
      return new Intl.NumberFormat(pageLang(), { style: 'percent', maximumFractionDigits: 0 }).format(chance);
    } catch {
      return `${Math.round(chance * 100)} %`;
    }
  }

  hits(n) { return n ? tn('vs.n_hits', n, { n }) : t('vs.no_hit'); }

  /** One roll for the log: who at whom, range, pips, physical or server, hits, sunk. */
  roll(r) {
    const parts = [t(r.kind === 'fire' ? 'vs.log_fired' : 'vs.log_attacked', { shooter: this.piece(r.piece), target: this.piece(r.target) })];
    if (TABLES_WITH_RANGE.has(r.table)) parts.push(tn('vs.n_hexes', r.distance, { n: r.distance }));
    parts.push(t(r.physical ? 'vs.die_physical' : 'vs.die_server', { pips: r.pips }));
    parts.push(this.hits(r.hits));
    if (r.sunk) parts.push(t('vs.log_sunk', { target: this.piece(r.target) }));
    return parts.join(' · ');
  }

  /** The kind of a roll's result line: sunk, hit or water (a miss). */
  rollKind(r) { return r.sunk ? 'sunk' : r.hits ? 'hit' : 'water'; }

  /** A strategic port's counter: "Scania holds Helsingør 2/4", or free. */
  hold(port) {
    if (!port.holder) return t('vs.port_free', { port: port.name, owner: this.side(port.side) });
    return t('vs.port_held', { side: this.side(port.holder), port: port.name, held: port.held, needed: port.needed });
  }

  outcomeTitle(outcome) {
    if (!outcome) return '';
    return outcome.winner ? t('vs.winner', { side: this.side(outcome.winner) }) : t('vs.nobody_wins');
  }

  turnLine(view) {
    if (view.outcome) return this.outcomeTitle(view.outcome);
    return t('vs.round_turn', { round: view.round, side: this.side(view.turn) });
  }
}
