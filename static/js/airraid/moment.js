// The end of a round as a moment every screen shows: "Time!" at 0:00, and "Round N is over" when
// it closes, whoever closed it (the clock or the referee).
//
// WHY a banner of its own: at 0:00 the pages used to go straight on to the next round's planning,
// and a pilot in the middle of rock-paper-scissors learnt nothing. The banner stays a few seconds
// over whatever the page shows next, and says what 0:00 means in this game (the ruleset's
// `at_zero`: "wait" lets the duels that were due be finished; "end" ends the round at once).
//
//   const moment = new RoundMoment();
//   moment.see(view);                  // with every view the page takes
//   countdown onEnd: () => moment.timeUp(view)

import { t } from '../lib/i18n.js';

const SHOWN_MS = 7000;

export class RoundMoment {
  constructor(parent = document.body) {
    this.el = document.createElement('div');
    this.el.className = 'round-moment';
    this.el.setAttribute('role', 'status');
    this.el.setAttribute('aria-live', 'assertive');
    this.el.hidden = true;
    this.title = document.createElement('strong');
    this.text = document.createElement('span');
    this.el.append(this.title, this.text);
    this.el.addEventListener('click', () => this.hide());
    parent.append(this.el);
    this.last = null;
    this.timer = null;
    this.timeUpFor = null;
  }

  /** Take a view: when the round that was in the air has closed, say so. */
  see(view) {
    const r = (view && view.round) || {};
    const now = { round: r.round, phase: r.phase, over: view && view.phase === 'over', early: r.ended_early };
    const was = this.last;
    this.last = now;
    if (!was || was.phase !== 'airborne' || !was.round) return;
    if (now.round === was.round && now.phase === 'airborne' && !now.over) return;
    // A game that ended (a fleet sunk, a surrender) is not "Time!": the winner banner says why.
    if (now.over) this.show(t('moment.over'), t('moment.game_over'));
    // The referee ended it with time on the clock: say so, not "Time!".
    else if (now.early === was.round) this.show(t('moment.ended'), t('moment.referee_ended', { n: was.round }));
    else this.show(t('moment.time'), t('moment.round_over', { n: was.round }));
  }

  /** The countdown reached 0:00 while the round is still in the air. */
  timeUp(view) {
    const r = (view && view.round) || {};
    if (r.phase !== 'airborne' || this.timeUpFor === r.round) return;
    this.timeUpFor = r.round;
    this.show(t('moment.time'), r.at_zero === 'wait' ? t('moment.finish_duels') : t('moment.round_ends'));
  }

  show(title, text) {
    this.title.textContent = title;
    this.text.textContent = text;
    this.el.hidden = false;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.hide(), SHOWN_MS);
  }

  hide() {
    clearTimeout(this.timer);
    this.el.hidden = true;
  }
}
