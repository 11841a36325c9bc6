// Change sets: the server's "changes" push turns the view a page holds into the next one.
// The same rules as referee/web/changes.py (docs/web-contract.md, "changes"):
//   an object merges key by key (null removes the key), {"$set": v} is v as written,
//   {"$list": [[i, change] | [i, n, [items]], ...]} edits a list step by step,
//   anything else (text, number, true/false, a list) is that value.
// WHY a copy: the page may keep (and change) the view it was given, and a change set that
// does not fit must leave the held view as it was, so a half-applied view is never shown.

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Return `base` changed by `change`; `base` is left as it was. Throws on a malformed change. */
export function applyChanges(base, change) {
  if (!isObject(change)) return change;
  const keys = Object.keys(change);
  if (keys.length === 1 && keys[0] === '$set') return change.$set;
  if (keys.length === 1 && keys[0] === '$list') return applyList(base, change.$list);
  const out = isObject(base) ? { ...base } : {};
  for (const key of keys) {
    const sub = change[key];
    if (sub === null) { delete out[key]; continue; }
    const value = applyChanges(Object.prototype.hasOwnProperty.call(out, key) ? out[key] : undefined, sub);
    // A key named __proto__ must stay a key, as JSON.parse makes it, not set the prototype.
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function applyList(base, steps) {
  if (!Array.isArray(base) || !Array.isArray(steps)) throw new Error('a $list edit needs a list to edit');
  const out = base.slice();
  for (const step of steps) {
    const at = Array.isArray(step) ? step[0] : undefined;
    if (!Number.isInteger(at) || at < 0 || at > out.length) throw new Error('not a step of a $list edit');
    if (step.length === 2 && at < out.length) {
      out[at] = applyChanges(out[at], step[1]);
    } else if (step.length === 3 && Number.isInteger(step[1]) && step[1] >= 0 && Array.isArray(step[2])) {
      out.splice(at, step[1], ...step[2]);
    } else {
      throw new Error('not a step of a $list edit');
    }
  }
  return out;
}

/** A deep copy of a JSON value. */
export function copyJSON(value) {
  if (value === undefined || value === null || typeof value !== 'object') return value;
  return typeof structuredClone === 'function' ? structuredClone(value) : JSON.parse(JSON.stringify(value));
}
