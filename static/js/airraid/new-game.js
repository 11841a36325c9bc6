// New game form (templates/games/new.html): live hints over a plain form.
//
// The form works without this script (the server checks everything and
// re-renders with the message). The script only says early what the server
// would say: how many players each list has, which sea size the larger team
// gets, and that the two teams need different names and colours.

import { t, tn } from '../lib/i18n.js';
import { readJson, resultLine } from '../lib/dom.js';

const form = document.getElementById('new-game');
const rows = readJson('sea-sizes', []);          // [[lo, hi, size], ...]
const limits = readJson('new-game-limits', { min_players: 4, max_players: 10 });
// The form's result line (a refusal before sending, then "sending").
const say = resultLine(document.getElementById('new-game-result'));

/** The names in a textarea: one a line, trimmed, blanks dropped. */
export function playerNames(text) {
  return String(text || '').split(/\r?\n/).map((s) => s.trim()).filter(Boolean);
}

/** The recommended sea size for a number of players, or null. */
export function recommendedSize(table, players) {
  for (const [lo, hi, size] of table) if (players >= lo && players <= hi) return size;
  return null;
}

function teamParts(letter) {
  const key = { a: 'team1', b: 'team2' }[letter];
  return {
    name: document.getElementById(`${key}_name`),
    players: document.getElementById(`${key}_players`),
    hint: document.querySelector(`[data-count-for="${key}_players"]`),
    colourError: document.getElementById(`${key}_colour_error`),
    colour: () => form.querySelector(`input[name="${key}_colour"]:checked`),
  };
}

const teams = { a: teamParts('a'), b: teamParts('b') };
const seaSelect = document.getElementById('sea_size');
const seaRecommended = document.getElementById('sea-recommended');
const recommendedOption = seaSelect ? seaSelect.querySelector('option[data-recommended]') : null;
const defaultHint = {};

/** Check one team's list; return the problem in words, or ''. */
function checkPlayers(letter) {
  const parts = teams[letter];
  const names = playerNames(parts.players.value);
  const n = names.length;
  let problem = '';
  const seen = new Set();
  for (const name of names) {
    const folded = name.toLocaleLowerCase();
    if (seen.has(folded)) { problem = t('new.duplicate', { name }); break; }
    seen.add(folded);
  }
  if (!problem && n > 0 && n < limits.min_players) problem = t('new.too_few', { n, min: limits.min_players });
  if (!problem && n > limits.max_players) problem = t('new.too_many', { n, max: limits.max_players });
  if (parts.hint) {
    if (!(letter in defaultHint)) defaultHint[letter] = parts.hint.textContent;
    parts.hint.textContent = n ? `${tn('new.count', n)}${problem ? ' — ' + problem : ''}` : defaultHint[letter];
    parts.hint.classList.toggle('error', Boolean(problem));
    parts.hint.classList.toggle('hint', !problem);
  }
  parts.players.setAttribute('aria-invalid', problem ? 'true' : 'false');
  return problem;
}

function updateSea() {
  const n = Math.max(playerNames(teams.a.players.value).length, playerNames(teams.b.players.value).length);
  const size = recommendedSize(rows, n);
  if (recommendedOption) {
    if (!recommendedOption.dataset.plain) recommendedOption.dataset.plain = recommendedOption.textContent;
    recommendedOption.textContent = size ? t('new.recommended_option', { size }) : recommendedOption.dataset.plain;
  }
  if (seaRecommended) {
    let text = size ? t('new.recommended', { n, size }) : '';
    const chosen = Number(seaSelect.value);
    if (size && chosen && chosen < size) text += ` ${t('new.smaller')}`;
    seaRecommended.textContent = text;
  }
}

function checkColours() {
  const a = teams.a.colour();
  const b = teams.b.colour();
  const clash = Boolean(a && b && a.value.toLowerCase() === b.value.toLowerCase());
  teams.a.colourError.hidden = !clash;
  teams.b.colourError.hidden = !clash;
  return clash;
}

function checkNames() {
  const a = teams.a.name.value.trim().toLocaleLowerCase();
  const b = teams.b.name.value.trim().toLocaleLowerCase();
  const same = Boolean(a && a === b);
  teams.b.name.setAttribute('aria-invalid', same ? 'true' : 'false');
  return same ? t('new.same_names') : '';
}

/** Paint the swatch colours through the CSSOM (no style attributes under the CSP). */
function paintSwatches() {
  for (const chip of form.querySelectorAll('.swatch-chip[data-colour]')) {
    chip.style.setProperty('--swatch', chip.dataset.colour);
  }
}

/** The words a field is known by: its label, with its fieldset's legend ("Team 1: Name"). */
function fieldName(field) {
  const label = field.id ? form.querySelector(`label[for="${field.id}"]`) : null;
  const legend = field.closest('fieldset')?.querySelector('legend');
  // The label's first words ("Players", not "Players, one name a line"); the legend without its team mark.
  const own = label ? label.textContent.trim().split(',')[0].trim() : '';
  const group = legend ? legend.textContent.trim().replace(/^[▲●■◆]\s*[A-Z]\s+/u, '') : '';
  return group && own ? `${group}: ${own}` : own || group;
}

function checkAll() {
  const problems = [checkPlayers('a'), checkPlayers('b'), checkNames()].filter(Boolean);
  if (checkColours()) problems.push(teams.a.colourError.textContent.trim());
  updateSea();
  return problems;
}

if (form) {
  paintSwatches();
  form.addEventListener('input', (ev) => {
    const field = ev.target;
    if (field && field.required && field.value.trim() && field.getAttribute('aria-invalid') === 'true') field.setAttribute('aria-invalid', 'false');
    checkAll();
    if (say.kind() === 'refused') say.clear();
  });
  form.addEventListener('change', checkAll);
  form.addEventListener('submit', (ev) => {
    const problems = checkAll();
    // Empty required fields are marked, named in the message, and the first one gets the focus.
    const empties = [...form.querySelectorAll('[required]')].filter((el) => !el.value.trim());
    for (const field of empties) field.setAttribute('aria-invalid', 'true');
    const empty = empties[0];
    if (empty || problems.length) {
      ev.preventDefault();
      const names = empties.map((field) => fieldName(field)).filter(Boolean);
      say(problems[0] || (names.length ? t('new.fill', { fields: names.join(', ') }) : t('new.fix')), 'refused');
      (empty || form.querySelector('[aria-invalid="true"]'))?.focus();
      return;
    }
    say(t('new.sending'), 'ok');
    const button = document.getElementById('create-game');
    // Guard against a double tap creating two games; a back-navigation re-enables it.
    if (button) setTimeout(() => { button.disabled = true; }, 0);
  });
  window.addEventListener('pageshow', () => {
    const button = document.getElementById('create-game');
    if (button) button.disabled = false;
  });
  checkAll();
}
