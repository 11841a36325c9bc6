// The Sea tab. Setup: the sea editor (lib/sea-editor.js, its draft kept in localStorage) and
// "Lock sea"; locked: our sea read-only and "Unlock"; in play: our sea with hits, sunk ships,
// water shots and the planes on each ship, and the enemy sea as our bombings found it.

import { t, tn } from '../../lib/i18n.js';
import { el, $ } from '../../lib/dom.js';
import { SeaGrid } from '../../lib/sea.js';
import { SeaEditor } from '../../lib/sea-editor.js';

export function fleetList(ctx, target) {
  const { shipLabel, planesText } = ctx.words;
  const sea = ctx.view.sea || {};
  const hits = new Set(sea.hits || []);
  const rows = (sea.ships || []).map((ship) => {
    const hit = ship.squares.filter((s) => hits.has(s)).length;
    const state = ship.sunk ? 'sunk' : hit ? 'hit' : 'afloat';
    const words = ship.sunk ? t('team.ship_sunk') : hit ? tn('team.ship_hits', hit, { n: hit }) : t('team.ship_afloat');
    const planes = ship.sunk ? t('team.planes_lost') : planesText(ship.fighters, ship.bombers);
    return el('li', { class: 'fleet-ship', 'data-state': state },
      el('span', { class: 'ship-letter', text: ship.id }),
      el('span', { class: 'fleet-name', text: shipLabel(ship) }),
      el('span', { class: 'fleet-state', 'data-state': state, text: words }),
      el('span', { class: 'fleet-planes', text: planes }));
  });
  target.replaceChildren(el('ul', { class: 'fleet-list', 'aria-label': t('team.fleet_label') }, rows));
}

// The enemy sea as we know it: our bombings' results (all of it once the game is over).
export function enemySeaCells(ctx, { dimShots = false, target = null } = {}) {
  const es = ctx.view.enemy_sea || {};
  const sunkOf = {};
  for (const s of (ctx.view.teams[ctx.enemy].sunk || [])) for (const sq of s.squares) sunkOf[sq] = s.ship;
  const cells = [];
  const shots = es.shots || {};
  for (const ship of es.ships || []) {   // revealed when the game is over
    for (const sq of ship.squares) if (!shots[sq]) cells.push({ square: sq, state: 'ship', ship: ship.id });
  }
  for (const [sq, what] of Object.entries(shots)) {
    const state = what === 'water' ? 'miss' : what === 'sunk' ? 'sunk' : 'hit';
    const flags = [];
    if (dimShots) flags.push('dimmed');
    if (target === sq) flags.push('selected');
    cells.push({ square: sq, state, ship: sunkOf[sq] ?? null, flags });
  }
  return cells;
}

/** Mount the Sea tab; ctx is the page context (see ../team.js). */
export function mount(ctx) {
  const { kindName, shipLabel, ownShipName, shipAt, corridorName, planeName, teamName, holderName, planesText } = ctx.words;
  const draftKey = `referee.sea.${ctx.game}.${ctx.team}`;
  let editor = null;
  let lockedGrid = null;
  let playGrid = null;
  let enemyGrid = null;
  let seaStatus = { complete: false, ok: false, checking: false, problems: [], left: 0, leftNames: [] };

  function loadDraft() {
    try { const d = JSON.parse(localStorage.getItem(draftKey) || 'null'); return Array.isArray(d) ? d : null; } catch { return null; }
  }
  function saveDraft(ships) {
    try { localStorage.setItem(draftKey, JSON.stringify(ships)); } catch { /* private mode: the draft lasts until reload */ }
  }

  function ensureEditor() {
    if (editor) return editor;
    const sea = ctx.view.sea;
    const kinds = {};
    for (const [k, v] of Object.entries(ctx.view.fleet_kinds || {})) kinds[k] = { name: kindName(k), shape: v.shape };
    editor = new SeaEditor($('sea-editor'), {
      cols: sea.size, rows: sea.size, label: t('team.sea_label'),
      columnLabels: sea.columns, rowLabels: sea.rows,
      kinds, fleet: sea.fleet || [], ships: loadDraft() || [],
      check: (ships) => ctx.postJson('/sea/check', { team: ctx.team, ships }),
      onRandom: async () => (await ctx.postJson('/sea/random', { team: ctx.team })).ships,
      onChange: saveDraft,
      onSay: (text, kind) => ctx.say(text, kind),
      onStatus: (s) => {
        const hadProblems = seaStatus.problems.length > 0;
        seaStatus = s;
        paintLockButton();
        // A finished check speaks on the result line, where the thumb is.
        if (s.checking || s.error) return;
        if (s.problems.length) {
          const more = s.problems.length - 1;
          ctx.say(s.problems[0].message, 'refused', more > 0 ? tn('team.more_problems', more, { n: more }) : '');
        } else if (s.ok) ctx.say(t('editor.sea_ok'), 'ok');
        else if (hadProblems) ctx.say(t('team.sea_fixed'), 'ok');
      },
    });
    return editor;
  }

  function paintLockButton() {
    const btn = $('lock-sea');
    if (!btn) return;
    const ready = seaStatus.complete && seaStatus.ok;
    btn.setAttribute('aria-disabled', ready && !ctx.ui.busy ? 'false' : 'true');
  }

  function ownSeaCells() {
    const sea = ctx.view.sea || {};
    const hits = new Set(sea.hits || []);
    const cells = [];
    for (const ship of sea.ships || []) {
      for (const sq of ship.squares) {
        cells.push({ square: sq, state: ship.sunk ? 'sunk' : hits.has(sq) ? 'hit' : 'ship', ship: ship.id, note: shipLabel(ship) });
      }
    }
    for (const [sq, what] of Object.entries(sea.shots || {})) if (what === 'water') cells.push({ square: sq, state: 'miss' });
    return cells;
  }

  // Our ships, one row each: the letter, the name, hit or sunk, and the planes on it.
  function renderSea() {
    const setup = ctx.view.phase === 'setup';
    const locked = ctx.view.teams[ctx.team].locked;
    $('sea-edit').hidden = !(setup && !locked);
    $('sea-locked').hidden = !(setup && locked);
    $('sea-play').hidden = setup;
    $('enemy-play').hidden = setup;
    $('lock-sea').hidden = !(setup && !locked);
    $('unlock-sea').hidden = !(setup && locked && (ctx.view.legal || []).some((a) => a.type === 'unlock_sea'));
    const sea = ctx.view.sea || {};
    if (setup && !locked) {
      ensureEditor();
      editor.setDisabled(ctx.ui.busy);
      paintLockButton();
    } else if (setup && locked) {
      const opts = { cols: sea.size, rows: sea.size, label: t('team.sea_label'), cells: ownSeaCells() };
      if (!lockedGrid) lockedGrid = new SeaGrid($('locked-grid'), opts); else lockedGrid.render(opts);
    } else {
      const opts = { cols: sea.size, rows: sea.size, label: t('team.sea_label'), cells: ownSeaCells() };
      if (!playGrid) playGrid = new SeaGrid($('play-grid'), opts); else playGrid.render(opts);
      fleetList(ctx, $('fleet-table'));
      const es = ctx.view.enemy_sea || {};
      const eopts = { cols: es.size, rows: es.size, mini: true, label: t('team.enemy_sea_label', { team: teamName(ctx.enemy) }), cells: enemySeaCells(ctx) };
      if (!enemyGrid) enemyGrid = new SeaGrid($('enemy-grid'), eopts); else enemyGrid.render(eopts);
      $('enemy-title').textContent = ctx.view.phase === 'over' ? t('team.enemy_sea_over', { team: teamName(ctx.enemy) }) : t('team.enemy_sea_title', { team: teamName(ctx.enemy) });
    }
  }

  $('lock-sea').addEventListener('click', async () => {
    if (ctx.ui.busy) return;
    const e = ensureEditor();
    if (!seaStatus.complete) {
      ctx.say(t('team.lock_need_ships', { ships: seaStatus.leftNames.join(', ') }), 'refused');
      return;
    }
    if (!seaStatus.ok) {
      const first = (seaStatus.problems[0] && seaStatus.problems[0].message) || seaStatus.error || t('editor.checking');
      ctx.say(t('team.lock_need_fix', { problem: first }), 'refused');
      return;
    }
    ctx.ui.busy = true;
    e.setDisabled(true);
    paintLockButton();
    const ships = e.ships().map(({ kind, squares }) => ({ kind, squares }));
    const res = await ctx.act({ type: 'lock_sea', team: ctx.team, ships });
    ctx.ui.busy = false;
    e.setDisabled(false);
    paintLockButton();
    if (res) ctx.say(t('team.locked_ok'), 'ok');
    ctx.render();
  });

  $('unlock-sea').addEventListener('click', async () => {
    if (ctx.ui.busy) return;
    // The server forgets a sea it unlocks: keep it as the draft to change.
    const ships = ((ctx.view.sea && ctx.view.sea.ships) || []).map(({ kind, squares }) => ({ kind, squares }));
    if (ships.length) saveDraft(ships);
    ctx.ui.busy = true;
    const res = await ctx.act({ type: 'unlock_sea', team: ctx.team });
    ctx.ui.busy = false;
    if (res) {
      if (editor && ships.length) editor.setShips(ships, { quiet: true });
      ctx.say(t('team.unlocked_ok'), 'ok');
    }
    ctx.render();
  });

  return {
    render: renderSea,
    // The sea editor's buttons sit beside the selected ship: measure again once visible.
    shown() { if (editor) editor._placeTools(); },
    get editor() { return editor; },
  };
}
