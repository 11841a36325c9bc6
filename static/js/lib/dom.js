// Build DOM nodes without innerHTML: the CSP allows no inline script, and text set this way
// can never be read as markup (player names come from people).

/** Make an element: el('button', {class: 'btn', dataset: {kind: 'x'}, onclick: fn, text: 'Go'}, child, …).
 *  Children may be nodes, strings, numbers or (nested) arrays of them; null, undefined and false are skipped. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

/** The JSON of a <script type="application/json" id=…> block (the json_block macro), or `fallback`. */
export function readJson(id, fallback = null) {
  const node = document.getElementById(id);
  if (!node) return fallback;
  try { return JSON.parse(node.textContent || 'null') ?? fallback; } catch { return fallback; }
}

/** The element with this id (shorthand for pages that look up many). */
export const $ = (id) => document.getElementById(id);

/**
 * The page's result line: what just happened, where the thumb is (the result_line macro's
 * `<p class="result" role="status">`, styled by `.result[data-kind]`). Returns
 * `say(text, kind = 'ok', detail = '')`, which sets `data-kind` and writes the text in a
 * `<span>` and a non-empty detail in a `<span class="detail">` under it; `say.clear()` empties
 * the line (`.result:empty` hides it), `say.kind()` reads its kind and `say.kind(k)` changes it.
 * Options: `capitalise` (server messages and ship names start in lower case), `kindFor(kind)`
 * (a page's own rule for the kind shown), `after(text, kind, detail)` (called after each write,
 * and after a clear with no arguments). Without an element every call does nothing.
 */
export function resultLine(node, { capitalise = false, kindFor = (kind) => kind, after = () => {} } = {}) {
  const cap = (s) => (capitalise && s ? String(s).charAt(0).toLocaleUpperCase() + String(s).slice(1) : s);
  function say(text, kind = 'ok', detail = '') {
    if (!node) return;
    const shown = kindFor(kind);
    node.dataset.kind = shown;
    node.replaceChildren(...[el('span', { text: cap(text) }), detail ? el('span', { class: 'detail', text: detail }) : null].filter(Boolean));
    after(text, shown, detail);
  }
  say.clear = () => {
    if (!node) return;
    node.replaceChildren();
    delete node.dataset.kind;
    after();
  };
  say.kind = (kind) => {
    if (!node) return undefined;
    if (kind !== undefined) node.dataset.kind = kind;
    return node.dataset.kind;
  };
  say.node = node;
  return say;
}
