// The team page's words for what the view names by id: ship kinds in the page language,
// our ships, corridors, planes, teams and trophy holders.

import { t, tn } from '../../lib/i18n.js';

/** The words, read from ctx.view at each call (the view is replaced on every update). */
export function makeWords(ctx) {
  const view = () => ctx.view;
  const kindName = (kind) => {
    const k = (view().fleet_kinds || {})[kind];
    if (!k) return kind;
    return (k.names && k.names[ctx.lang]) || k.name || kind;
  };
  // "ship-two 2" from the server becomes the kind's name in the page language plus the number.
  const shipLabel = (ship) => {
    if (!ship) return '';
    const n = /\s(\d+)$/.exec(ship.name || '');
    return n ? `${kindName(ship.kind)} ${n[1]}` : kindName(ship.kind);
  };
  const ownShip = (id) => ((view().sea && view().sea.ships) || []).find((s) => s.id === id);
  const ownShipName = (id) => (ownShip(id) ? shipLabel(ownShip(id)) : id);
  const shipAt = (square) => ((view().sea && view().sea.ships) || []).find((s) => s.squares.includes(square));
  const word = (key, fallback) => { const s = t(key); return s === key ? fallback : s; };
  const corridorName = (c) => word(`team.corridor.${c}`, c);
  const planeName = (k) => word(`team.plane.${k}`, k);
  const teamName = (id) => (view().teams && view().teams[id] && view().teams[id].name) || id;
  const holderName = (holder) => (String(holder).startsWith('ship:') ? t('team.by_ship', { ship: String(holder).slice(5) }) : holder);
  const planesText = (f, b) => `${tn('team.n_fighters', f, { n: f })} · ${tn('team.n_bombers', b, { n: b })}`;
  return { kindName, shipLabel, ownShip, ownShipName, shipAt, corridorName, planeName, teamName, holderName, planesText };
}
