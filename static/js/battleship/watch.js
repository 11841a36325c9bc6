// The Battleship projector: both seas with every shot as its shooter was told
// it, no ship until the game is over (the server's public view holds none).
// The referee's copy of this page also has the forfeit buttons.

import { connectPage, postJson } from '../lib/conn.js';
import { t } from '../lib/i18n.js';
import { el, $, resultLine } from '../lib/dom.js';
import { SeaGrid } from '../lib/sea.js';
import { enemyCells, countKinds } from './board.js';

function start() {
  const page = JSON.parse($('page-data').textContent);
  let view = page.view;
  const grids = {};

  function relabel(container) {
    const labels = container.querySelectorAll('.sea-label');
    const n = view.ruleset.size;
    labels.forEach((node, i) => { node.textContent = i < n ? view.ruleset.column_labels[i] : view.ruleset.row_labels[i - n]; });
  }

  function render() {
    for (const owner of ['A', 'B']) {
      const box = $(`bs-watch-grid-${owner}`);
      if (!grids[owner]) grids[owner] = new SeaGrid(box, { cols: view.ruleset.size, rows: view.ruleset.size, letters: view.ruleset.letters, label: t('bs.enemy_sea', { name: view.players[owner].name }) });
      grids[owner].render({ cells: enemyCells(view.boards[owner], view.ruleset.letters, view.phase === 'over', view.volleys[owner === 'A' ? 'B' : 'A'] || []) });
      relabel(box);
      const board = view.boards[owner];
      $(`bs-watch-fleet-${owner}`).replaceChildren(...countKinds(board.remaining || [], view.ruleset.fleet).map((r) => el('li', { class: r.n ? '' : 'is-gone' },
        el('span', { text: r.n ? `${r.n} × ${r.title}` : `${r.title}: ${t('bs.all_sunk')}` }))));
    }
    const status = $('bs-watch-status');
    if (view.phase === 'placing') status.textContent = t('bs.watch_placing');
    else if (view.phase === 'over' && view.outcome) status.textContent = `${t('bs.watch_over', { name: view.players[view.outcome.winner].name })} · ${view.outcome.detail || ''}`;
    else status.textContent = t('bs.watch_turn', { name: view.players[view.turn].name });
    for (const b of document.querySelectorAll('[data-forfeit]')) b.disabled = view.phase === 'over';
  }

  // The projector takes the pushes of whole views.
  const conn = connectPage({ game: page.game, initialSeq: page.seq ?? -1, extra: { as: 'public' } }, {
    onView: (v, type) => { if (type === 'view' && v && v.version >= view.version) { view = v; render(); } },
  });
  conn.start();

  const box = $('bs-referee');
  const say = resultLine($('result'));
  if (box) {
    for (const b of box.querySelectorAll('[data-forfeit]')) {
      b.addEventListener('click', async () => {
        const p = b.dataset.forfeit;
        // eslint-disable-next-line no-alert
        if (!window.confirm(t('bs.forfeit_confirm', { name: view.players[p].name }))) return;
        let refused = null;
        try {
          await postJson(`/api/games/${page.game}/actions`, { action: { type: 'forfeit', player: p } });
        } catch (error) {
          refused = error;
        }
        if (refused) say(t('bs.refused', { message: refused.message }), 'refused');
        else say(t('bs.forfeit_done'), 'ok');
      });
    }
  }
  render();
}

if (document.getElementById('page-data')) start();
