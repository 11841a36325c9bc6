// A Battleship player's page: place the fleet, fire, see the end.
//
// The server sends this page the view of ONE player (battleship.view_for):
// its own fleet and the shots at it, what it was told of its own shots, the
// enemy's ships still afloat by kind. The enemy fleet only arrives when the
// game is over. Every action goes out through conn.send() (Socket.IO), and
// every accepted change comes back as a fresh view.
//
// Pass-and-play (page.hotseat): the server sends the view of the player whose
// move it is; between turns a privacy screen ("Hand the phone to Eva") hides
// the boards until the next player taps, then the page asks for its view.
//
// The page context (start() below) is handed to each panel: the privacy screen (mountGate),
// the placement (mountPlacement), the shots (mountShots), the boards (mountBoards), the status
// line (paintStatus), the end card (paintEnd) and the action bar (mountBar). `ctx.view` is
// replaced by every update; `ctx.ui` is the page's own state.

import { connectPage, postJson as postToApi } from '../lib/conn.js';
import { t, tn } from '../lib/i18n.js';
import { el, $, resultLine } from '../lib/dom.js';
import { SeaGrid } from '../lib/sea.js';
import { SeaEditor, nameSquare } from '../lib/sea-editor.js';
import { at, expectedPlayer, enemyCells, ownCells, countKinds } from './board.js';

const enemyOf = (p) => (p === 'A' ? 'B' : 'A');
const nameOf = (view, p) => view.players[p].name;
const kindTitle = (view, kind) => { const k = view.ruleset.fleet.find((f) => f.kind === kind); return k ? (k.title || k.name) : kind; };
const cap = (s) => (s ? String(s).charAt(0).toLocaleUpperCase() + String(s).slice(1) : '');
const myTurn = (view) => view.phase === 'playing' && view.turn === view.me;

// ------------------------------------------------------ words for shots

function shotWords(view, shot) {
  const sq = shot.square;
  if (shot.result === 'miss') return t('bs.water_at', { square: sq });
  if (shot.result === 'sunk') return shot.ship ? t('bs.sunk_ship_at', { ship: kindTitle(view, shot.ship), square: sq }) : t('bs.sunk_at', { square: sq });
  if (shot.result === 'hit') return shot.ship ? t('bs.hit_ship_at', { ship: kindTitle(view, shot.ship), square: sq }) : t('bs.hit_at', { square: sq });
  return sq;
}

/** A volley in words, as its shooter was told it. */
function volleyWords(view, volley) {
  if (volley.shots.every((s) => s.result)) return volley.shots.map((s) => shotWords(view, s)).join(' · ');
  const squares = volley.shots.map((s) => s.square).join(' ');
  if (!volley.hits) return t('bs.salvo_water', { squares });
  const ships = volley.ships_hit.map((k) => kindTitle(view, k)).join(', ');
  let text = tn('bs.salvo_hits', volley.hits, { n: volley.hits, ships, squares });
  if (volley.sunk.length) text += ` · ${t('bs.salvo_sunk', { ships: volley.sunk.map((k) => kindTitle(view, k)).join(', ') })}`;
  return text;
}

const resultKind = (volley) => (volley.sunk.length ? 'sunk' : volley.hits ? 'hit' : 'water');

// The enemy's volleys at my sea in words: the squares (✕ where they struck), and which of
// my ships sank, by their own names ("krysser · cruiser 2": this player knows its sea).
function theirWords(v, them, volleys) {
  const me = v.me;
  const truth = new Map((v.boards[me].shots || []).map((s) => [s.square, s.result]));
  const squares = volleys.flatMap((x) => x.shots.map((s) => s.square));
  const struck = (sq) => truth.get(sq) === 'hit' || truth.get(sq) === 'sunk';
  let text = t('bs.they_fired', { name: nameOf(v, them), squares: squares.map((sq) => `${sq}${struck(sq) ? '✕' : ''}`).join(' ') });
  const sunk = (v.boards[me].ships || []).filter((ship) => ship.sunk && ship.squares.some((sq) => squares.includes(sq) && truth.get(sq) === 'sunk'));
  if (sunk.length) text += ` — ${t('bs.salvo_sunk', { ships: sunk.map((ship) => ship.name).join(', ') })}`;
  const results = squares.map((sq) => truth.get(sq));
  return { text, kind: results.includes('sunk') ? 'sunk' : squares.some(struck) ? 'hit' : 'water' };
}

/** What changed between two views, said where the thumb is. ctx.ui.exchange holds this player's
 *  latest volley and the enemy's since: the computer answers at once, so its shots must not
 *  push the player's own result out of the big line. */
function narrate(ctx, before, after) {
  if (!before || after.me !== before.me) return;
  const { say, ui } = ctx;
  const me = after.me;
  const them = enemyOf(me);
  const mine = after.volleys[me] || [];
  const theirs = after.volleys[them] || [];
  const newMine = mine.slice((before.volleys[me] || []).length);
  const newTheirs = theirs.slice((before.volleys[them] || []).length);
  if (newMine.length) ui.exchange = { mine: newMine[newMine.length - 1], theirs: [] };
  if (newTheirs.length) {
    ui.exchange.theirs.push(...newTheirs);
    if (after.players[them].computer && ui.exchange.mine) {
      // My result big, the computer's answer (every shot of it since) the small line under it.
      const answer = theirWords(after, them, ui.exchange.theirs);
      say(volleyWords(after, ui.exchange.mine), resultKind(ui.exchange.mine), answer.text);
    } else {
      // A friend's shot is news of its own; under it, what my own last volley did.
      const shots = theirWords(after, them, newTheirs);
      say(shots.text, shots.kind, mine.length ? volleyWords(after, mine[mine.length - 1]) : '');
    }
  } else if (newMine.length) {
    const last = newMine[newMine.length - 1];
    say(volleyWords(after, last), resultKind(last));
  }
  if (!before.players[them].placed && after.players[them].placed && after.phase === 'placing') say(t('bs.they_placed', { name: nameOf(after, them) }), 'ok');
}

// ------------------------------------------------------ pass-and-play: the privacy screen

/** The screen shows a sea only to the eyes it is for. Returns {render()}: true while the
 *  privacy screen is up (the rest of the page is not drawn then). */
function mountGate(ctx) {
  const { ui } = ctx;

  function showGate(title, button, onGo) {
    $('bs-gate').hidden = false;
    $('bs-board-area').hidden = true;
    $('bs-gate-title').textContent = title;
    const go = $('bs-gate-go');
    go.textContent = button;
    go.onclick = onGo;
    document.querySelector('.actionbar')?.classList.add('is-hidden');
  }

  function hideGate() {
    $('bs-gate').hidden = true;
    $('bs-board-area').hidden = false;
    document.querySelector('.actionbar')?.classList.remove('is-hidden');
  }

  function takePhone(player) {
    return () => {
      ui.confirmedFor = player;
      ui.gateFor = null;
      hideGate();
      $('bs-board-area').hidden = true; // until this player's own view arrives
      ctx.conn.resync();
    };
  }

  $('bs-handover').addEventListener('click', () => {
    ui.gateFor = expectedPlayer(ctx.view);
    ctx.say('', '');
    ctx.render();
  });

  function render() {
    const { view } = ctx;
    if (ctx.hotseat && view.phase !== 'over') {
      const next = expectedPlayer(view);
      if (ui.gateFor !== null) {
        // A view pushed while the phone changes hands must not lift the privacy screen.
        showGate(t('bs.gate_title', { name: nameOf(view, ui.gateFor) }), t('bs.gate_go', { name: nameOf(view, ui.gateFor) }), takePhone(ui.gateFor));
        return true;
      }
      if (next !== view.me) {
        ui.handover = true;
      } else if (ui.confirmedFor !== view.me) {
        ui.handover = false;
        showGate(t('bs.gate_title', { name: nameOf(view, view.me) }), t('bs.gate_go', { name: nameOf(view, view.me) }), () => { ui.confirmedFor = ctx.view.me; hideGate(); ctx.render(); });
        return true;
      } else {
        ui.handover = false;
      }
    } else {
      ui.handover = false;
    }
    hideGate();
    return false;
  }

  return { render };
}

// ------------------------------------------------------ placement

/** The sea editor (lib/sea-editor.js) for this player's fleet, and "Ready". Returns {render}. */
function mountPlacement(ctx) {
  const { ui } = ctx;
  let editor = null;
  let editorFor = null;

  function ensureEditor() {
    const { view } = ctx;
    const rs = view.ruleset;
    if (editor && editorFor === view.me) return;
    if (editor) editor.destroy();
    const kinds = {};
    for (const k of rs.fleet) kinds[k.kind] = { name: k.title || k.name, shape: 'X'.repeat(k.size) };
    editorFor = view.me;
    editor = new SeaEditor($('bs-editor'), {
      cols: rs.size, rows: rs.size, label: t('bs.your_sea'),
      letters: rs.letters, columnLabels: rs.column_labels, rowLabels: rs.row_labels,
      kinds, fleet: rs.fleet.map((k) => k.kind), mirror: false,
      check: (ships) => ctx.postJson('/sea/check', { player: ctx.view.me, ships }),
      onRandom: async () => (await ctx.postJson('/sea/random', { player: ctx.view.me })).ships,
      onSay: (text, kind) => ctx.say(text, kind),
      onStatus: (s) => {
        ui.placeStatus = s;
        ctx.paintBar();
        if (s.checking || s.error) return;
        if (s.problems.length) ctx.say(s.problems[0].message, 'refused', s.problems.length > 1 ? t('bs.more_problems', { n: s.problems.length - 1 }) : '');
        else if (s.ok) ctx.say(t('editor.sea_ok'), 'ok');
      },
    });
  }

  async function ready() {
    const { placeStatus } = ui;
    if (!editor || !placeStatus.complete) { ctx.say(t('bs.place_all', { ships: editor ? editor.leftNames().join(', ') : '' }), 'refused'); return; }
    if (!placeStatus.ok) { ctx.say(t('bs.fix_first'), 'refused'); return; }
    const res = await ctx.act({ type: 'place_fleet', player: ctx.view.me, ships: editor.ships().map(({ kind, squares }) => ({ kind, squares })) });
    if (res) {
      ctx.say(t('bs.fleet_placed'), 'ok');
      if (res.view) ctx.receive(res.view);
    }
  }

  $('bs-ready').addEventListener('click', () => ready());

  function render() {
    const { view } = ctx;
    const placing = view.phase === 'placing' && !view.players[view.me].placed;
    $('bs-place').hidden = !placing;
    if (placing) ensureEditor();
    const waiting = view.phase === 'placing' && view.players[view.me].placed;
    $('bs-waiting').hidden = !waiting;
    if (waiting) $('bs-waiting-text').textContent = statusText(ctx);
    const invite = $('bs-invite');
    // The server shows the invite only while seat B is free; once the friend's fleet is in,
    // they have a phone, so the (spent) code goes. A page loaded after the friend's phone was
    // cut off keeps it: the friend needs it to come back.
    if (invite && invite.dataset.untilPlaced === 'true') invite.hidden = view.players[enemyOf(view.me)].placed;
  }

  return { render };
}

// ------------------------------------------------------ firing

/** Taps on the enemy sea: one shot, or the squares of a salvo and "Fire". Returns {tap}. */
function mountShots(ctx) {
  const { ui } = ctx;

  function closedSet() {
    const board = ctx.view.boards[enemyOf(ctx.view.me)];
    return new Set([...(board.shots || []).map((s) => s.square), ...(board.marked || [])]);
  }

  async function tap(cell) {
    const { view } = ctx;
    const name = nameSquare(cell.col, cell.row, view.ruleset.letters);
    if (view.phase !== 'playing' || ui.handover) return;
    // A square tapped while the last shot waits for its answer: fired once that answer is in
    // (a hit's colour comes before its answer, and the next tap follows it at once).
    if (ui.busy) { ui.tapAfter = cell; return; }
    if (!myTurn(view)) { ctx.say(t('bs.wait_turn', { name: nameOf(view, view.turn) }), 'refused'); return; }
    if (closedSet().has(name)) { ctx.say(t('bs.already_shot', { square: name }), 'refused'); return; }
    if (view.shots_due > 1) {
      const { salvo } = ui;
      ui.salvo = salvo.includes(name) ? salvo.filter((s) => s !== name) : salvo.length < view.shots_due ? [...salvo, name] : salvo;
      if (!ui.salvo.includes(name) && ui.salvo.length >= view.shots_due) ctx.say(t('bs.salvo_full', { n: view.shots_due }), 'refused');
      ctx.paintEnemy();
      ctx.paintBar();
      return;
    }
    await fire([name]);
  }

  async function fire(squares) {
    const res = await ctx.act({ type: 'fire', player: ctx.view.me, squares });
    const next = ui.tapAfter;
    ui.tapAfter = null;
    if (!res) return;
    ui.salvo = [];
    if (res.view) {
      const before = ctx.view;
      ctx.view = res.view.version >= before.version ? res.view : before;
      // The ack's events are this player's volley; a computer's reply is in the view too.
      narrate(ctx, before, ctx.view);
      ctx.render();
    }
    if (next) tap(next);
  }

  $('bs-fire').addEventListener('click', () => {
    const { view } = ctx;
    if (ui.salvo.length !== view.shots_due) { ctx.say(t('bs.salvo_need', { n: view.shots_due - ui.salvo.length }), 'refused'); return; }
    fire([...ui.salvo]);
  });

  return { tap };
}

// ------------------------------------------------------ the boards

/** The enemy sea (with the salvo being chosen) and its ships afloat, my sea and my ships, and
 *  the latest volley of each side. Returns {render, paintEnemy}. */
function mountBoards(ctx, { onTap }) {
  const grids = { enemy: null, own: null, drawnFor: null };

  function grid(container, existing, options) {
    const rs = ctx.view.ruleset;
    if (existing && grids.drawnFor === ctx.view.me) return existing;
    if (existing) existing.destroy();
    return new SeaGrid(container, { cols: rs.size, rows: rs.size, letters: rs.letters, ...options });
  }

  function relabel(container) {
    const rs = ctx.view.ruleset;
    const labels = container.querySelectorAll('.sea-label');
    labels.forEach((node, i) => {
      if (i < rs.size) node.textContent = rs.column_labels[i];
      else node.textContent = rs.row_labels[i - rs.size];
    });
  }

  function fleetRows(board, withPicture) {
    return countKinds(board.remaining || [], ctx.view.ruleset.fleet).map((r) => el('li', { class: r.n ? '' : 'is-gone' },
      withPicture ? el('span', { class: 'bs-ship-pic', 'data-size': String(r.size), 'aria-hidden': 'true', text: '■'.repeat(r.size) }) : null,
      el('span', { text: r.n ? `${r.n} × ${r.title}` : `${r.title}: ${t('bs.all_sunk')}` })));
  }

  function paintEnemy() {
    const { view, ui } = ctx;
    const letters = view.ruleset.letters;
    const enemy = enemyOf(view.me);
    grids.enemy = grid($('bs-enemy-grid'), grids.enemy, { label: t('bs.enemy_sea', { name: nameOf(view, enemy) }), onTap });
    const cells = enemyCells(view.boards[enemy], letters, view.phase === 'over', view.volleys[view.me] || []);
    for (const sq of ui.salvo) {
      const p = at(sq, letters);
      cells.push({ col: p.col, row: p.row, state: 'water', flags: ['selected'] });
    }
    grids.enemy.render({ cells });
    relabel($('bs-enemy-grid'));
    $('bs-enemy-grid').classList.toggle('is-armed', myTurn(view));
    $('bs-enemy-title').textContent = view.phase === 'over' ? t('bs.enemy_revealed', { name: nameOf(view, enemy) })
      : t('bs.enemy_sea', { name: nameOf(view, enemy) });
    $('bs-enemy-fleet').replaceChildren(...fleetRows(view.boards[enemy], true));
  }

  function paintOwn() {
    const { view } = ctx;
    grids.own = grid($('bs-own-grid'), grids.own, { label: t('bs.your_sea'), mini: view.phase === 'playing' });
    grids.own.render({ cells: ownCells(view.boards[view.me], view.ruleset.letters) });
    relabel($('bs-own-grid'));
    $('bs-own-fleet').replaceChildren(...fleetRows(view.boards[view.me], false));
  }

  // The latest volley of each side, in words: what just happened, for both.
  function paintLog() {
    const { view } = ctx;
    const order = view.last ? [view.last, enemyOf(view.last)] : ['A', 'B'];
    const rows = order.filter((p) => (view.volleys[p] || []).length).map((p) => {
      const list = view.volleys[p];
      const v = list[list.length - 1];
      return el('li', { class: `bs-log-${p === view.me ? 'me' : 'them'}`, 'data-kind': resultKind(v) },
        el('strong', { text: `${nameOf(view, p)}: ` }), el('span', { text: volleyWords(view, v) }));
    });
    $('bs-log').replaceChildren(...rows);
    $('bs-log').closest('section').hidden = !rows.length;
  }

  function render() {
    const { view } = ctx;
    $('bs-play').hidden = view.phase === 'placing';
    if (view.phase !== 'placing') { paintEnemy(); paintOwn(); paintLog(); grids.drawnFor = view.me; }
  }

  return { render, paintEnemy };
}

// ------------------------------------------------------ the status line, the end, the bar

function statusText(ctx) {
  const { view } = ctx;
  const enemy = enemyOf(view.me);
  if (view.phase === 'placing') {
    if (!view.players[view.me].placed) return t('bs.place_your_fleet');
    return view.players[enemy].computer ? t('bs.computer_placing') : t('bs.wait_placing', { name: nameOf(view, enemy) });
  }
  if (view.phase === 'over') return '';
  if (myTurn(view)) return view.shots_due > 1 ? t('bs.your_salvo', { n: view.shots_due }) : t('bs.your_turn');
  return t('bs.their_turn', { name: nameOf(view, view.turn) });
}

function paintStatus(ctx) {
  const { view, ui } = ctx;
  const status = $('bs-status');
  status.textContent = ui.handover ? t('bs.pass_phone', { name: nameOf(view, expectedPlayer(view)) }) : statusText(ctx);
  status.dataset.turn = myTurn(view) ? 'me' : 'them';
  status.hidden = !status.textContent;
}

function paintEnd(ctx) {
  const { view } = ctx;
  const end = $('bs-end');
  end.hidden = view.phase !== 'over';
  if (view.phase === 'over' && view.outcome) {
    const won = view.outcome.winner === view.me;
    const winner = () => nameOf(view, view.outcome.winner);
    $('bs-end-title').textContent = ctx.hotseat ? t('bs.winner', { name: winner() }) : won ? t('bs.you_won') : t('bs.you_lost', { name: winner() });
    $('bs-end-detail').textContent = cap(view.outcome.detail || '');
    end.dataset.result = won ? 'won' : 'lost';
  }
}

/** The action bar: Ready, Fire (a salvo), Hand over, and Resign (under the boards). Returns {render}. */
function mountBar(ctx) {
  const { ui } = ctx;

  $('bs-resign').addEventListener('click', async () => {
    // eslint-disable-next-line no-alert
    if (!window.confirm(t('bs.resign_confirm'))) return;
    await ctx.act({ type: 'forfeit', player: ctx.view.me });
  });

  function render() {
    const { view } = ctx;
    const { handover, busy, salvo, placeStatus } = ui;
    const ready = $('bs-ready');
    const fireBtn = $('bs-fire');
    const hand = $('bs-handover');
    const placing = view.phase === 'placing' && !view.players[view.me].placed;
    ready.hidden = !placing || handover;
    ready.setAttribute('aria-disabled', placing && placeStatus.complete && placeStatus.ok && !busy ? 'false' : 'true');
    const salvoing = myTurn(view) && view.shots_due > 1 && !handover;
    fireBtn.hidden = !salvoing;
    fireBtn.textContent = salvo.length === view.shots_due ? t('bs.fire_n', { n: view.shots_due }) : t('bs.fire_k_of_n', { k: salvo.length, n: view.shots_due });
    fireBtn.setAttribute('aria-disabled', salvo.length === view.shots_due && !busy ? 'false' : 'true');
    hand.hidden = !handover;
    if (handover) hand.textContent = t('bs.hand_over', { name: nameOf(view, expectedPlayer(view)) });
    $('bs-resign').hidden = view.phase !== 'playing' || handover;
  }

  return { render };
}

// ------------------------------------------------------ the page

function start() {
  const page = JSON.parse($('page-data').textContent);
  const hotseat = Boolean(page.hotseat);
  /** What every panel shares. */
  const ctx = {
    page,
    hotseat,
    view: page.view,
    ui: {
      confirmedFor: hotseat ? null : page.view.me, // pass-and-play: whose eyes the screen is for
      gateFor: null, // pass-and-play: the player the phone is being handed to, until they take it
      handover: false,
      salvo: [],
      busy: false,
      tapAfter: null,
      placeStatus: { complete: false, ok: false },
      exchange: { mine: null, theirs: [] },
    },
    say: resultLine($('result'), { capitalise: true }),
    act,
    receive,
    postJson: (path, body) => postToApi(`${page.api}${path}`, body),
    render,
    paintBar: () => bar.render(),
    paintEnemy: () => boards.paintEnemy(),
  };
  ctx.conn = connectPage({ game: page.game, initialSeq: page.seq ?? -1 }, { say: ctx.say, onView: receive, refusedKey: 'bs.refused' });
  const gate = mountGate(ctx);
  const placement = mountPlacement(ctx);
  const shots = mountShots(ctx);
  const boards = mountBoards(ctx, { onTap: (cell) => shots.tap(cell) });
  const bar = mountBar(ctx);

  function receive(v) {
    if (!v || v.mode !== 'battleship') return;
    if (v.version < ctx.view.version) return; // an older push arriving late
    const before = ctx.view;
    ctx.view = v;
    narrate(ctx, before, v);
    render();
  }

  async function act(action) {
    ctx.ui.busy = true;
    bar.render();
    const res = await ctx.conn.send({ ...action, version: ctx.view.version });
    ctx.ui.busy = false;
    if (!res || res.ok === false) {
      ctx.say(t('bs.refused', { message: (res && (res.message || res.error)) || '?' }), 'refused');
      bar.render();
      return null;
    }
    return res;
  }

  function render() {
    if (gate.render()) return;
    placement.render();
    paintStatus(ctx);
    boards.render();
    paintEnd(ctx);
    bar.render();
  }

  ctx.conn.start();
  if (ctx.conn.socket) ctx.conn.socket.on('rematch', () => { $('bs-rematch-note').hidden = false; $('bs-rematch').textContent = `↻ ${t('bs.join_rematch')}`; });
  render();
}

if (typeof document !== 'undefined' && document.body && document.body.classList.contains('bs-play')) start();
