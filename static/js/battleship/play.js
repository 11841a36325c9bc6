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

import { Connection, bindBadge, postJson as postToApi } from '../lib/conn.js';
import { t, tn } from '../lib/i18n.js';
import { el, $ } from '../lib/dom.js';
import { SeaGrid } from '../lib/sea.js';
import { SeaEditor, nameSquare } from '../lib/sea-editor.js';
import { at, expectedPlayer, enemyCells, ownCells, countKinds } from './board.js';

function start() {
  const page = JSON.parse($('page-data').textContent);
  const GAME = page.game;
  const HOTSEAT = Boolean(page.hotseat);
  let view = page.view;
  let confirmedFor = HOTSEAT ? null : view.me; // pass-and-play: whose eyes the screen is for
  let gateFor = null; // pass-and-play: the player the phone is being handed to, until they take it
  let handover = false;
  let salvo = [];
  let busy = false;
  // A square tapped while the last shot waits for its answer: fired once that answer is in
  // (a hit's colour comes before its answer, and the next tap follows it at once).
  let tapAfter = null;
  let editor = null;
  let editorFor = null;
  let placeStatus = { complete: false, ok: false };
  const ui = { enemyGrid: null, ownGrid: null, gridsFor: null };

  const rs = () => view.ruleset;
  const letters = () => rs().letters;
  const enemyOf = (p) => (p === 'A' ? 'B' : 'A');
  const nameOf = (p) => view.players[p].name;
  const kindTitle = (kind) => { const k = rs().fleet.find((f) => f.kind === kind); return k ? (k.title || k.name) : kind; };
  const cap = (s) => (s ? String(s).charAt(0).toLocaleUpperCase() + String(s).slice(1) : '');

  // ------------------------------------------------------ result line

  const resultEl = $('result');
  function say(text, kind = 'ok', detail = '') {
    resultEl.dataset.kind = kind;
    resultEl.replaceChildren(el('span', { text: cap(text) }), detail ? el('span', { class: 'detail', text: detail }) : '');
  }

  // ------------------------------------------------------ connection

  const conn = new Connection({ game: GAME, initialSeq: page.seq ?? -1 });
  bindBadge(conn);
  conn.on('view', ({ view: v }) => receive(v));
  conn.on('events', ({ view: v }) => { if (v) receive(v); });
  conn.on('refused', ({ result }) => say(t('bs.refused', { message: result.message || result.error }), 'refused'));
  // The server could not store it yet (its disk is full, it is busy): kept here, sent again.
  conn.on('waiting', ({ result }) => { if (result && result.message) say(result.message, 'queued'); });
  conn.on('ack', () => { if (resultEl && resultEl.dataset.kind === 'queued' && !conn.outbox.size) say(t('conn.all_saved'), 'ok'); });

  function receive(v) {
    if (!v || v.mode !== 'battleship') return;
    if (v.version < view.version) return; // an older push arriving late
    const before = view;
    view = v;
    narrate(before, v);
    render();
  }

  async function act(action) {
    busy = true;
    paintBar();
    const res = await conn.send({ ...action, version: view.version });
    busy = false;
    if (!res || res.ok === false) {
      say(t('bs.refused', { message: (res && (res.message || res.error)) || '?' }), 'refused');
      paintBar();
      return null;
    }
    return res;
  }

  function postJson(path, body) {
    return postToApi(`${page.api}${path}`, body);
  }

  // ------------------------------------------------------ words for shots

  function shotWords(shot) {
    const sq = shot.square;
    if (shot.result === 'miss') return t('bs.water_at', { square: sq });
    if (shot.result === 'sunk') return shot.ship ? t('bs.sunk_ship_at', { ship: kindTitle(shot.ship), square: sq }) : t('bs.sunk_at', { square: sq });
    if (shot.result === 'hit') return shot.ship ? t('bs.hit_ship_at', { ship: kindTitle(shot.ship), square: sq }) : t('bs.hit_at', { square: sq });
    return sq;
  }

  /** A volley in words, as its shooter was told it. */
  function volleyWords(volley) {
    if (volley.shots.every((s) => s.result)) return volley.shots.map(shotWords).join(' · ');
    const squares = volley.shots.map((s) => s.square).join(' ');
    if (!volley.hits) return t('bs.salvo_water', { squares });
    const ships = volley.ships_hit.map(kindTitle).join(', ');
    let text = tn('bs.salvo_hits', volley.hits, { n: volley.hits, ships, squares });
    if (volley.sunk.length) text += ` · ${t('bs.salvo_sunk', { ships: volley.sunk.map(kindTitle).join(', ') })}`;
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
    let text = t('bs.they_fired', { name: nameOf(them), squares: squares.map((sq) => `${sq}${struck(sq) ? '✕' : ''}`).join(' ') });
    const sunk = (v.boards[me].ships || []).filter((ship) => ship.sunk && ship.squares.some((sq) => squares.includes(sq) && truth.get(sq) === 'sunk'));
    if (sunk.length) text += ` — ${t('bs.salvo_sunk', { ships: sunk.map((ship) => ship.name).join(', ') })}`;
    const results = squares.map((sq) => truth.get(sq));
    return { text, kind: results.includes('sunk') ? 'sunk' : squares.some(struck) ? 'hit' : 'water' };
  }

  // This player's latest volley and the enemy's since: the computer answers at once, so its
  // shots must not push the player's own result out of the big line.
  let exchange = { mine: null, theirs: [] };

  // What changed between two views, said where the thumb is.
  function narrate(before, after) {
    if (!before || after.me !== before.me) return;
    const me = after.me;
    const them = enemyOf(me);
    const mine = after.volleys[me] || [];
    const theirs = after.volleys[them] || [];
    const newMine = mine.slice((before.volleys[me] || []).length);
    const newTheirs = theirs.slice((before.volleys[them] || []).length);
    if (newMine.length) exchange = { mine: newMine[newMine.length - 1], theirs: [] };
    if (newTheirs.length) {
      exchange.theirs.push(...newTheirs);
      if (after.players[them].computer && exchange.mine) {
        // My result big, the computer's answer (every shot of it since) the small line under it.
        const answer = theirWords(after, them, exchange.theirs);
        say(volleyWords(exchange.mine), resultKind(exchange.mine), answer.text);
      } else {
        // A friend's shot is news of its own; under it, what my own last volley did.
        const shots = theirWords(after, them, newTheirs);
        say(shots.text, shots.kind, mine.length ? volleyWords(mine[mine.length - 1]) : '');
      }
    } else if (newMine.length) {
      const last = newMine[newMine.length - 1];
      say(volleyWords(last), resultKind(last));
    }
    if (!before.players[them].placed && after.players[them].placed && after.phase === 'placing') say(t('bs.they_placed', { name: nameOf(them) }), 'ok');
  }

  // ------------------------------------------------------ placement

  function ensureEditor() {
    if (editor && editorFor === view.me) return;
    if (editor) editor.destroy();
    const kinds = {};
    for (const k of rs().fleet) kinds[k.kind] = { name: k.title || k.name, shape: 'X'.repeat(k.size) };
    editorFor = view.me;
    editor = new SeaEditor($('bs-editor'), {
      cols: rs().size, rows: rs().size, label: t('bs.your_sea'),
      letters: letters(), columnLabels: rs().column_labels, rowLabels: rs().row_labels,
      kinds, fleet: rs().fleet.map((k) => k.kind), mirror: false,
      check: (ships) => postJson('/sea/check', { player: view.me, ships }),
      onRandom: async () => (await postJson('/sea/random', { player: view.me })).ships,
      onSay: (text, kind) => say(text, kind),
      onStatus: (s) => {
        placeStatus = s;
        paintBar();
        if (s.checking || s.error) return;
        if (s.problems.length) say(s.problems[0].message, 'refused', s.problems.length > 1 ? t('bs.more_problems', { n: s.problems.length - 1 }) : '');
        else if (s.ok) say(t('editor.sea_ok'), 'ok');
      },
    });
  }

  async function ready() {
    if (!editor || !placeStatus.complete) { say(t('bs.place_all', { ships: editor ? editor.leftNames().join(', ') : '' }), 'refused'); return; }
    if (!placeStatus.ok) { say(t('bs.fix_first'), 'refused'); return; }
    const res = await act({ type: 'place_fleet', player: view.me, ships: editor.ships().map(({ kind, squares }) => ({ kind, squares })) });
    if (res) {
      say(t('bs.fleet_placed'), 'ok');
      if (res.view) receive(res.view);
    }
  }

  // ------------------------------------------------------ firing

  function closedSet() {
    const board = view.boards[enemyOf(view.me)];
    return new Set([...(board.shots || []).map((s) => s.square), ...(board.marked || [])]);
  }

  function myTurn() { return view.phase === 'playing' && view.turn === view.me; }

  async function tapEnemy(cell) {
    const name = nameSquare(cell.col, cell.row, letters());
    if (view.phase !== 'playing' || handover) return;
    if (busy) { tapAfter = cell; return; }
    if (!myTurn()) { say(t('bs.wait_turn', { name: nameOf(view.turn) }), 'refused'); return; }
    if (closedSet().has(name)) { say(t('bs.already_shot', { square: name }), 'refused'); return; }
    if (view.shots_due > 1) {
      salvo = salvo.includes(name) ? salvo.filter((s) => s !== name) : salvo.length < view.shots_due ? [...salvo, name] : salvo;
      if (!salvo.includes(name) && salvo.length >= view.shots_due) say(t('bs.salvo_full', { n: view.shots_due }), 'refused');
      paintEnemy();
      paintBar();
      return;
    }
    await fire([name]);
  }

  async function fire(squares) {
    const res = await act({ type: 'fire', player: view.me, squares });
    const next = tapAfter;
    tapAfter = null;
    if (!res) return;
    salvo = [];
    if (res.view) {
      const before = view;
      view = res.view.version >= view.version ? res.view : view;
      // The ack's events are this player's volley; a computer's reply is in the view too.
      narrate(before, view);
      render();
    }
    if (next) tapEnemy(next);
  }

  // ------------------------------------------------------ painting

  function grid(container, existing, options) {
    if (existing && ui.gridsFor === view.me) return existing;
    if (existing) existing.destroy();
    return new SeaGrid(container, { cols: rs().size, rows: rs().size, letters: letters(), ...options });
  }

  function relabel(container) {
    const labels = container.querySelectorAll('.sea-label');
    const cols = rs().size;
    labels.forEach((node, i) => {
      if (i < cols) node.textContent = rs().column_labels[i];
      else node.textContent = rs().row_labels[i - cols];
    });
  }

  function paintEnemy() {
    const enemy = enemyOf(view.me);
    ui.enemyGrid = grid($('bs-enemy-grid'), ui.enemyGrid, { label: t('bs.enemy_sea', { name: nameOf(enemy) }), onTap: (c) => tapEnemy(c) });
    const cells = enemyCells(view.boards[enemy], letters(), view.phase === 'over', view.volleys[view.me] || []);
    for (const sq of salvo) {
      const p = at(sq, letters());
      cells.push({ col: p.col, row: p.row, state: 'water', flags: ['selected'] });
    }
    ui.enemyGrid.render({ cells });
    relabel($('bs-enemy-grid'));
    $('bs-enemy-grid').classList.toggle('is-armed', myTurn());
    $('bs-enemy-title').textContent = view.phase === 'over' ? t('bs.enemy_revealed', { name: nameOf(enemy) })
      : t('bs.enemy_sea', { name: nameOf(enemy) });
    const board = view.boards[enemy];
    $('bs-enemy-fleet').replaceChildren(...countKinds(board.remaining || [], rs().fleet).map((r) => el('li', { class: r.n ? '' : 'is-gone' },
      el('span', { class: 'bs-ship-pic', 'data-size': String(r.size), 'aria-hidden': 'true', text: '■'.repeat(r.size) }),
      el('span', { text: r.n ? `${r.n} × ${r.title}` : `${r.title}: ${t('bs.all_sunk')}` }))));
  }

  function paintOwn() {
    ui.ownGrid = grid($('bs-own-grid'), ui.ownGrid, { label: t('bs.your_sea'), mini: view.phase === 'playing' });
    ui.ownGrid.render({ cells: ownCells(view.boards[view.me], letters()) });
    relabel($('bs-own-grid'));
    const board = view.boards[view.me];
    $('bs-own-fleet').replaceChildren(...countKinds(board.remaining || [], rs().fleet).map((r) => el('li', { class: r.n ? '' : 'is-gone' },
      el('span', { text: r.n ? `${r.n} × ${r.title}` : `${r.title}: ${t('bs.all_sunk')}` }))));
  }

  // The latest volley of each side, in words: what just happened, for both.
  function paintLog() {
    const order = view.last ? [view.last, enemyOf(view.last)] : ['A', 'B'];
    const rows = order.filter((p) => (view.volleys[p] || []).length).map((p) => {
      const list = view.volleys[p];
      const v = list[list.length - 1];
      return el('li', { class: `bs-log-${p === view.me ? 'me' : 'them'}`, 'data-kind': resultKind(v) },
        el('strong', { text: `${nameOf(p)}: ` }), el('span', { text: volleyWords(v) }));
    });
    $('bs-log').replaceChildren(...rows);
    $('bs-log').closest('section').hidden = !rows.length;
  }

  function statusText() {
    const enemy = enemyOf(view.me);
    if (view.phase === 'placing') {
      if (!view.players[view.me].placed) return t('bs.place_your_fleet');
      return view.players[enemy].computer ? t('bs.computer_placing') : t('bs.wait_placing', { name: nameOf(enemy) });
    }
    if (view.phase === 'over') return '';
    if (myTurn()) return view.shots_due > 1 ? t('bs.your_salvo', { n: view.shots_due }) : t('bs.your_turn');
    return t('bs.their_turn', { name: nameOf(view.turn) });
  }

  function paintBar() {
    const ready = $('bs-ready');
    const fireBtn = $('bs-fire');
    const hand = $('bs-handover');
    const resign = $('bs-resign');
    const placing = view.phase === 'placing' && !view.players[view.me].placed;
    ready.hidden = !placing || handover;
    ready.setAttribute('aria-disabled', placing && placeStatus.complete && placeStatus.ok && !busy ? 'false' : 'true');
    const salvoing = myTurn() && view.shots_due > 1 && !handover;
    fireBtn.hidden = !salvoing;
    fireBtn.textContent = salvo.length === view.shots_due ? t('bs.fire_n', { n: view.shots_due }) : t('bs.fire_k_of_n', { k: salvo.length, n: view.shots_due });
    fireBtn.setAttribute('aria-disabled', salvo.length === view.shots_due && !busy ? 'false' : 'true');
    hand.hidden = !handover;
    if (handover) hand.textContent = t('bs.hand_over', { name: nameOf(expectedPlayer(view)) });
    resign.hidden = view.phase !== 'playing' || handover;
  }

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

  function render() {
    // Pass-and-play: the screen shows a sea only to the eyes it is for.
    if (HOTSEAT && view.phase !== 'over') {
      const next = expectedPlayer(view);
      if (gateFor !== null) {
        // A view pushed while the phone changes hands must not lift the privacy screen.
        showGate(t('bs.gate_title', { name: nameOf(gateFor) }), t('bs.gate_go', { name: nameOf(gateFor) }), takePhone(gateFor));
        return;
      }
      if (next !== view.me) {
        handover = true;
      } else if (confirmedFor !== view.me) {
        handover = false;
        showGate(t('bs.gate_title', { name: nameOf(view.me) }), t('bs.gate_go', { name: nameOf(view.me) }), () => { confirmedFor = view.me; hideGate(); render(); });
        return;
      } else {
        handover = false;
      }
    } else {
      handover = false;
    }
    hideGate();
    const placing = view.phase === 'placing' && !view.players[view.me].placed;
    $('bs-place').hidden = !placing;
    if (placing) ensureEditor();
    const waiting = view.phase === 'placing' && view.players[view.me].placed;
    $('bs-waiting').hidden = !waiting;
    if (waiting) $('bs-waiting-text').textContent = statusText();
    const invite = $('bs-invite');
    // The server shows the invite only while seat B is free; once the friend's fleet is in,
    // they have a phone, so the (spent) code goes. A page loaded after the friend's phone was
    // cut off keeps it: the friend needs it to come back.
    if (invite && invite.dataset.untilPlaced === 'true') invite.hidden = view.players[enemyOf(view.me)].placed;
    $('bs-play').hidden = view.phase === 'placing';
    const status = $('bs-status');
    status.textContent = handover ? t('bs.pass_phone', { name: nameOf(expectedPlayer(view)) }) : statusText();
    status.dataset.turn = myTurn() ? 'me' : 'them';
    status.hidden = !status.textContent;
    if (view.phase !== 'placing') { paintEnemy(); paintOwn(); paintLog(); ui.gridsFor = view.me; }
    const end = $('bs-end');
    end.hidden = view.phase !== 'over';
    if (view.phase === 'over' && view.outcome) {
      const won = view.outcome.winner === view.me;
      $('bs-end-title').textContent = HOTSEAT ? t('bs.winner', { name: nameOf(view.outcome.winner) }) : won ? t('bs.you_won') : t('bs.you_lost', { name: nameOf(view.outcome.winner) });
      $('bs-end-detail').textContent = cap(view.outcome.detail || '');
      end.dataset.result = won ? 'won' : 'lost';
    }
    paintBar();
  }

  // ------------------------------------------------------ buttons

  $('bs-ready').addEventListener('click', () => ready());
  $('bs-fire').addEventListener('click', () => {
    if (salvo.length !== view.shots_due) { say(t('bs.salvo_need', { n: view.shots_due - salvo.length }), 'refused'); return; }
    fire([...salvo]);
  });
  function takePhone(player) {
    return () => {
      confirmedFor = player;
      gateFor = null;
      hideGate();
      $('bs-board-area').hidden = true; // until this player's own view arrives
      conn.resync();
    };
  }
  $('bs-handover').addEventListener('click', () => {
    gateFor = expectedPlayer(view);
    say('', '');
    render();
  });
  $('bs-resign').addEventListener('click', async () => {
    // eslint-disable-next-line no-alert
    if (!window.confirm(t('bs.resign_confirm'))) return;
    await act({ type: 'forfeit', player: view.me });
  });

  conn.start();
  if (conn.socket) conn.socket.on('rematch', () => { $('bs-rematch-note').hidden = false; $('bs-rematch').textContent = `↻ ${t('bs.join_rematch')}`; });
  render();
}

if (typeof document !== 'undefined' && document.body && document.body.classList.contains('bs-play')) start();
