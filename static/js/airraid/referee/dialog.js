// The reason dialog (void, end game, forfeit): a <dialog> where the browser has one, else a prompt.

import { t } from '../../lib/i18n.js';
import { $ } from '../../lib/dom.js';

/** Ask for a reason; resolves with the text, or null when cancelled (ctx.say tells a missing one). */
export function askReason(ctx, { title, text, ok, required = true }) {
  return new Promise((resolve) => {
    const dialog = $('reason-dialog');
    if (!dialog || typeof dialog.showModal !== 'function') {
      // eslint-disable-next-line no-alert
      const answer = window.prompt(`${title}\n${text}`);
      resolve(answer === null ? null : answer.trim());
      return;
    }
    $('reason-title').textContent = title;
    $('reason-text').textContent = text;
    $('reason-ok').textContent = ok;
    const input = $('reason-input');
    input.value = '';
    input.required = required;
    const done = () => {
      dialog.removeEventListener('close', done);
      if (dialog.returnValue !== 'ok') { resolve(null); return; }
      const reason = input.value.trim();
      if (required && !reason) { ctx.say(t('ref.reason_needed'), 'refused'); resolve(null); return; }
      resolve(reason);
    };
    dialog.returnValue = '';
    dialog.addEventListener('close', done);
    dialog.showModal();
    input.focus();
  });
}

/** Ask to confirm an action that cannot be taken back; resolves true or false. */
export function confirmAction(ctx, { title, text, ok }) {
  return new Promise((resolve) => {
    const dialog = $('reason-dialog');
    if (!dialog || typeof dialog.showModal !== 'function') {
      // eslint-disable-next-line no-alert
      resolve(window.confirm(`${title}\n${text}`));
      return;
    }
    $('reason-title').textContent = title;
    $('reason-text').textContent = text;
    $('reason-ok').textContent = ok;
    // The same dialog as a reason's, without the reason.
    const field = $('reason-input').closest('.field');
    field.hidden = true;
    const done = () => {
      dialog.removeEventListener('close', done);
      field.hidden = false;
      resolve(dialog.returnValue === 'ok');
    };
    dialog.returnValue = '';
    dialog.addEventListener('close', done);
    dialog.showModal();
    $('reason-ok').focus();
  });
}
