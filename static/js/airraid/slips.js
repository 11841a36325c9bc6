// The Print button of the slips page (no inline script under the CSP).
for (const button of document.querySelectorAll('[data-print]')) {
  button.addEventListener('click', () => window.print());
}
