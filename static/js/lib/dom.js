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
