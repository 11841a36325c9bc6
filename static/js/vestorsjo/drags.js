// The drags, where players look: on the board each move of the drag that ended last (the other
// side's) and of the drag under way, as lines; in the card beside it, each as a line of words
// (a move from and to, a shot with its range, pips and hits). After the tablet is handed over,
// or the computer has played, the side to move sees what the other did.

import { t } from '../lib/i18n.js';
import { el, $ } from '../lib/dom.js';
import { SIDE_GLYPH, drawTrail, lastSide } from './board.js';

/** One action of a drag in words: a move, or the roll it made. */
function actWords(words, view, a) {
  if (a.kind === 'move') return t('vs.log_moved', { piece: words.piece(a.piece), from: a.origin, to: a.to });
  const roll = view.rolls.find((r) => r.seq === a.seq);
  if (roll) return words.roll(roll);
  return t(a.kind === 'fire' ? 'vs.log_fired' : 'vs.log_attacked', { shooter: words.piece(a.piece), target: words.piece(a.to) });
}

function group(words, view, title, side, acts, empty) {
  return [
    el('h3', { class: 'vs-drag-title' }, el('span', { class: `vs-side-mark side-${side}`, 'aria-hidden': 'true', text: SIDE_GLYPH[side] }), ` ${title}`),
    el('ol', { class: 'vs-log vs-drag' }, acts.length
      ? acts.map((a) => el('li', { class: `vs-drag-act is-${a.kind}`, 'data-seq': String(a.seq) }, el('span', { text: actWords(words, view, a) })))
      : [el('li', { class: 'muted', text: empty })]),
  ];
}

/** Draw both drags on the board (layer #vs-trail) and in the card (#vs-drags). */
export function paintDrags(view, words, unit) {
  const before = lastSide(view);
  const now = view.turn;
  drawTrail($('vs-trail'), view, view.last_turn, unit, before, 'is-last');
  if (now && view.this_turn.length) {
    const layer = $('vs-trail');
    const mine = document.createElementNS('http://www.w3.org/2000/svg', 'g');
    drawTrail(mine, view, view.this_turn, unit, now, 'is-now');
    layer.append(...mine.childNodes);
  }
  const box = $('vs-drags');
  if (!box) return;
  const parts = [];
  if (now && view.this_turn.length) parts.push(...group(words, view, t('vs.this_drag'), now, view.this_turn, ''));
  if (view.last_turn.length || view.round > 1 || now !== view.ruleset.first) {
    parts.push(...group(words, view, t('vs.last_drag', { side: words.side(before) }), before, view.last_turn, t('vs.no_drag')));
  }
  box.replaceChildren(...parts);
  box.closest('section').hidden = !parts.length;
}
