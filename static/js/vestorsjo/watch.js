// The Vestorsjø projector: the board as large as the pieces allow, whose turn and which round, the port counters
// and the log of every roll, live. Public: it acts on nothing.

import { connectPage } from '../lib/conn.js';
import { t } from '../lib/i18n.js';
import { el, $ } from '../lib/dom.js';
import { BoardView, SIDE_GLYPH, drawPortMarks, drawPieces, drawTags, hexXY, keepLabelsIn, regionOf, standing } from './board.js';
import { paintDrags } from './drags.js';
import { Words } from './words.js';

function start() {
  const page = JSON.parse($('page-data').textContent);
  const U = page.unit;
  let view = page.view;
  const words = new Words(view);
  const svg = $('vs-board');
  const labels = $('vs-labels');
  const coords = $('vs-coords');
  const tagsLayer = $('vs-tags');
  $('vs-pieces').after(labels);  // as on the player's page: names clear of the pieces, else over them
  let relabelling = false;
  function relabel() {
    if (relabelling) return;
    relabelling = true;
    requestAnimationFrame(() => {
      relabelling = false;
      keepLabelsIn(labels, page.box, U, view.pieces.filter((p) => !p.removed).map((p) => p.place));
    });
  }
  // A piece at least 30 px across (0.7 of a hex): the whole strait does not fit a projector so,
  // so the board follows the pieces, every one in view while they fit, else the side to move's.
  const PIECE_PPU = 31 / (0.7 * U);
  function fitAction() {
    const all = regionOf(standing(view).map((p) => p.place), U);
    if (!all) { boardView.whole(); return; }
    boardView.fit(all, { minPpu: PIECE_PPU, maxPpu: 2 * PIECE_PPU, pad: U });
    const [w, h] = boardView.size();
    const fits = (all[2] - all[0] + 2 * U) * boardView.ppu <= w + 1 && (all[3] - all[1] + 2 * U) * boardView.ppu <= h + 1;
    if (fits || !view.turn) return;
    // As much of the strait as the pieces' size allows, around the side to move's pieces.
    const mine = regionOf(standing(view).filter((p) => p.side === view.turn).map((p) => p.place), U) || all;
    boardView.fit(mine, { minPpu: PIECE_PPU, maxPpu: PIECE_PPU });
  }
  const boardView = new BoardView(svg, page.box, {
    onResize: () => { if (!boardView.touched) fitAction(); },
    onZoom: (ppu) => {
      labels.setAttribute('font-size', (13 / ppu).toFixed(3));
      coords.setAttribute('font-size', (11 / ppu).toFixed(3));
      tagsLayer.setAttribute('font-size', (15 / ppu).toFixed(3));
      svg.classList.toggle('is-far', ppu * U < 24);
      relabel();
    },
  });

  function render() {
    words.set(view);
    drawPieces($('vs-pieces'), view, { unit: U, letter: (p) => words.letter(p), label: (p) => words.label(p) });
    const tags = [];
    for (const port of view.board.ports) {
      if (!port.strategic || !port.holder) continue;
      const [x, y] = hexXY(port.hex, U);
      tags.push({ x, y: y + U * 0.95, text: `${SIDE_GLYPH[port.holder]} ${port.held}/${port.needed}`, kind: `is-hold side-${port.holder}` });
    }
    drawTags(tagsLayer, tags);
    drawPortMarks($('vs-portmarks'), view, U, (cls) => t(`vs.letter_${cls}`));
    paintDrags(view, words, U);
    relabel();
    const turn = view.turn;
    const mark = $('vs-turn-mark');
    mark.className = `vs-side-mark side-${turn || 'none'}`;
    mark.textContent = turn ? SIDE_GLYPH[turn] : '✓';
    $('vs-turn-text').textContent = view.outcome ? words.outcomeTitle(view.outcome) : t('vs.to_move', { side: words.side(turn) });
    $('vs-round').textContent = t('vs.round', { round: view.round });
    const per = view.ruleset.actions_per_turn;
    $('vs-acts').replaceChildren(...Array.from({ length: per }, (_, i) => el('span', { class: view.outcome || i < view.actions_left ? 'vs-act' : 'vs-act is-used', 'aria-hidden': 'true' })));
    $('vs-acts-text').textContent = view.outcome ? '' : t('vs.actions_left', { left: view.actions_left, total: per });
    $('vs-end-detail').textContent = view.outcome ? view.outcome.detail || '' : '';
    $('vs-end-detail').hidden = !view.outcome;
    $('vs-ports').replaceChildren(...view.board.ports.filter((p) => p.strategic).map((port) => el('li', { class: port.holder ? `is-held side-${port.holder}` : '' },
      el('span', { class: 'vs-port-star', 'aria-hidden': 'true', text: port.holder ? SIDE_GLYPH[port.holder] : '★' }),
      el('span', { text: words.hold(port) }))));
    const rolls = [...view.rolls].reverse().slice(0, 40);
    $('vs-log').replaceChildren(...(rolls.length ? rolls.map((r) => el('li', { class: `vs-roll is-${words.rollKind(r)}` },
      el('span', { class: 'vs-roll-round', text: t('vs.round_short', { round: r.round }) }),
      el('span', { class: `vs-side-mark side-${r.side}`, 'aria-hidden': 'true', text: SIDE_GLYPH[r.side] }),
      el('span', { text: words.roll(r) }))) : [el('li', { class: 'muted', text: t('vs.no_rolls') })]));
  }

  // The projector takes the pushes of whole views.
  const conn = connectPage({ game: page.game, initialSeq: page.seq ?? -1, extra: { as: 'public' } }, {
    onView: (v, type) => {
      if (type !== 'view' || !v || v.mode !== 'vestorsjo' || v.version < view.version) return;
      view = v;
      render();
      if (!boardView.touched) fitAction();
    },
  });
  conn.start();
  render();
  fitAction();
  $('vs-zoom-in').addEventListener('click', () => boardView.zoomBy(1.4));
  $('vs-zoom-out').addEventListener('click', () => boardView.zoomBy(1 / 1.4));
  // The whole strait until the next move; then the board follows the pieces again.
  $('vs-zoom-all').addEventListener('click', () => boardView.whole());
}

if (document.getElementById('page-data')) start();
