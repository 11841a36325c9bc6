// Translated strings for scripts.
//
// WHY: the server translates (Flask-Babel) and the page carries the results in
// a non-executed JSON block, so scripts never hold English text of their own
// and the Content-Security-Policy needs no inline script:
//
//   <script type="application/json" id="i18n">{"conn.syncing": "syncing…"}</script>
//
// base.html writes the block with id="i18n" (strings every page needs); a page
// may add more blocks marked data-i18n, which are merged over it.
//
// Placeholders are written {name} and filled from the params object. Plurals
// are objects keyed by Intl.PluralRules categories ("one", "few", "many",
// "other") so Czech's three forms work: {"conn.offline": {"one": "…", "few":
// "…", "other": "…"}} and tn("conn.offline", n, {n}).

let cache = null;

/** The page language, from <html lang>, e.g. "cs" or "en". */
export function pageLang() {
  const lang = (typeof document !== 'undefined' && document.documentElement.lang) || 'en';
  return lang;
}

/** Read and merge all string blocks once. Safe to call with no DOM (tests). */
export function loadStrings(doc = typeof document !== 'undefined' ? document : null) {
  const out = {};
  if (!doc) return out;
  const blocks = [doc.getElementById('i18n'), ...doc.querySelectorAll('script[type="application/json"][data-i18n]')];
  for (const block of blocks) {
    if (!block) continue;
    try {
      Object.assign(out, JSON.parse(block.textContent || '{}'));
    } catch (err) {
      // A broken block must not take the page down; show the keys instead.
      console.error('i18n: cannot parse a string block', err);
    }
  }
  return out;
}

function strings() {
  if (cache === null) cache = loadStrings();
  return cache;
}

/** Replace the strings (tests, or a page that fetched more). */
export function setStrings(map) {
  cache = { ...map };
}

/** Fill {name} placeholders. Unknown placeholders stay visible, on purpose. */
export function format(template, params = {}) {
  return String(template).replace(/\{(\w+)\}/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole);
}

/** Translate a key. Falls back to the key itself so a missing string shows. */
export function t(key, params = {}) {
  const value = strings()[key];
  if (value === undefined) return format(key, params);
  if (typeof value === 'object' && value !== null) return tn(key, params.n ?? 0, params);
  return format(value, params);
}

/** Translate a plural key for count n. params.n defaults to n. */
export function tn(key, n, params = {}) {
  const value = strings()[key];
  const all = { n, ...params };
  if (value === undefined) return format(key, all);
  if (typeof value !== 'object' || value === null) return format(value, all);
  let category = 'other';
  try {
    category = new Intl.PluralRules(pageLang()).select(n);
  } catch { /* old browser: "other" is always present */ }
  const form = value[category] ?? value.other ?? Object.values(value)[0];
  return format(form, all);
}
