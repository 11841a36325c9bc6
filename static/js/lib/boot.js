// Loads a phone page's scripts once the page has been drawn.
//
// WHY: on a slow phone link the stylesheet, the Socket.IO client and the page's
// modules download at once and share the bandwidth, so the server-rendered page
// (readable without any script) is first shown only after all of them arrived:
// about 2 s on slow 3G. This small module is the page's only script tag: like any
// module it runs after the stylesheet has loaded, then waits one frame (or 100 ms
// in a background tab, where frames stop) and only then fetches the rest.
//
//   {{ m.after_first_paint('js/airraid/team.js', preload=[...]) }}   in a template's scripts block makes
//   <script type="module" src="(boot.js)" data-module="(the page's module)"
//           data-preload="(the modules it imports, all the way down)"
//           data-socketio="(the vendored Socket.IO client)"></script>
//
// WHY the preload list: a module's imports are only discovered once it has arrived, so a page
// split into modules (airraid/team.js → team/sea-tab.js → lib/sea-editor.js → lib/sea.js → …)
// costs one round trip per level of imports, 400 ms each on slow 3G. Asking for them all at
// once makes it one.

const tag = document.querySelector('script[data-module]');

function classicScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.onload = resolve;
    script.onerror = reject;
    document.head.append(script);
  });
}

if (tag) {
  await new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });
  const module = tag.dataset.module;
  // Fetch the page's modules while the Socket.IO client comes; run them only after (they need `io`).
  for (const href of [module, ...(tag.dataset.preload || '').split(' ').filter(Boolean)]) {
    const preload = document.createElement('link');
    preload.rel = 'modulepreload';
    preload.href = href;
    document.head.append(preload);
  }
  if (tag.dataset.socketio) {
    // Without the client the page still imports, and conn.js says what is missing.
    try { await classicScript(tag.dataset.socketio); } catch { /* conn.js reports it */ }
  }
  await import(module);
}
