// The drags, where players look: on the board each move of the drag that ended last (the other
// side's) and of the drag under way, as lines; in the card beside it, each as a line of words
// (a move from and to, a shot with its range, pips and hits). After the tablet is handed over,
// or the computer has played, the side to move sees what the other did. "‹ Earlier drag" steps
// back through the drags the view keeps (`drags`, the last twenty), drawing one at a time; a
// new drag ending brings the page back to the latest.

import { t } from '../lib/i18n.js';
import { el, $ } from '../lib/dom.js';
import { SIDE_GLYPH, drawTrail, lastSide } from './board.js';

// How many drags back from the latest the card shows (0: the latest), and what it was drawn with.
let back = 0;
let newest = '';
let drawn = null;

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

/** The places a drag's actions happened at: where each piece went or stood, and each target. */
function placesOf(acts) {
  return acts.flatMap((a) => [a.origin, a.to && a.kind === 'move' ? a.to : a.at]).filter(Boolean);
}

/** The two buttons that step through the kept drags (none while there is only one). */
function steps(count) {
  if (count < 2) return [];
  const step = (by) => () => {
    back = Math.max(0, Math.min(count - 1, back + by));
    if (!drawn) return;
    paintDrags(...drawn);
    const [view, , , show] = drawn;
    const kept = view.drags || [];
    const acts = back > 0 ? kept[kept.length - 1 - back].acts : view.last_turn;
    if (show && acts.length) show(placesOf(acts));
  };
  const earlier = el('button', { type: 'button', class: 'btn btn-small', id: 'vs-drag-earlier', text: t('vs.earlier_drag') });
  const later = el('button', { type: 'button', class: 'btn btn-small', id: 'vs-drag-later', text: t('vs.later_drag') });
  earlier.disabled = back >= count - 1;
  later.disabled = back === 0;
  earlier.addEventListener('click', step(1));
  later.addEventListener('click', step(-1));
  return [el('div', { class: 'vs-drag-steps' }, earlier, later)];
}

/**
 * Draw the drags on the board (layer #vs-trail) and in the card (#vs-drags). `show(places)`, if
 * given, brings the places of a drag stepped to into view on the board.
 */
export function paintDrags(view, words, unit, show = null) {
  drawn = [view, words, unit, show];
  const kept = view.drags || [];
  const latest = kept.length ? `${kept[kept.length - 1].round}:${kept[kept.length - 1].side}` : '';
  if (latest !== newest) {
    newest = latest;
    back = 0;
  }
  back = Math.min(back, Math.max(0, kept.length - 1));
  const box = $('vs-drags');
  if (back > 0) {
    // A drag long past, alone on the board, drawn where its pieces stood then.
    const past = kept[kept.length - 1 - back];
    drawTrail($('vs-trail'), view, past.acts, unit, past.side, 'is-last');
    if (!box) return;
    box.replaceChildren(
      ...group(words, view, t('vs.past_drag', { side: words.side(past.side), round: past.round }), past.side, past.acts, t('vs.no_drag')),
      ...steps(kept.length));
    box.closest('section').hidden = false;
    return;
  }
  const before = lastSide(view);
  const now = view.turn;
  drawTrail($('vs-trail'), view, view.last_turn, unit, before, 'is-last');
  if (now && view.this_turn.length) {
    const layer = $('vs-trail');
    const mine = document.createElementNS('http://www.w3.org/2000/svg', 'g');
    drawTrail(mine, view, view.this_turn, unit, now, 'is-now');
    layer.append(...mine.childNodes);
  }
  if (!box) return;
  const parts = [];
  if (now && view.this_turn.length) parts.push(...group(words, view, t('vs.this_drag'), now, view.this_turn, ''));
  if (view.last_turn.length || view.round > 1 || now !== view.ruleset.first) {
    parts.push(...group(words, view, t('vs.last_drag', { side: words.side(before) }), before, view.last_turn, t('vs.no_drag')));
  }
  parts.push(...steps(kept.length));
  box.replaceChildren(...parts);
  box.closest('section').hidden = !parts.length;
}
