// Scan a QR code with the phone camera: the defender scans the bomber's slip,
// a player scans the team QR to join.
//
// WHY two decoders: the native BarcodeDetector API is fast and free, but only
// some browsers have it (Chrome on Android does, Safari on iPhone does not).
// Elsewhere frames go to static/js/qr-worker.js, which runs the vendored jsQR.
//
// WHY a fallback is still needed in the page: the camera (getUserMedia) works
// only in a secure context (https, or localhost). Over plain http on the club
// LAN the browser refuses it; then scannerAvailable() is false and the page
// shows the "type the square" field instead. (A phone's own camera app can
// still open a QR that holds a URL.)
//
//   import { startScanner, scannerAvailable } from './scan.js';
//   if (scannerAvailable()) {
//     const scanner = await startScanner(videoEl, { onResult: (text) => { ... } });
//     ...; scanner.stop();
//   }

/** True when this page may open the camera at all. */
export function scannerAvailable() {
  return Boolean(globalThis.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
}

async function nativeDetector() {
  const BD = globalThis.BarcodeDetector;
  if (!BD) return null;
  try {
    const formats = await BD.getSupportedFormats();
    if (!formats.includes('qr_code')) return null;
    return new BD({ formats: ['qr_code'] });
  } catch {
    return null;
  }
}

/**
 * Start the camera in `video` and report decoded texts.
 * options:
 *   onResult(text)    each new text (the same text again only after repeatMs)
 *   onError(err)      camera refused or failed
 *   intervalMs        pause between frames (150)
 *   repeatMs          how long the same text is ignored (2500)
 *   maxSide           frames are scaled to at most this many px for jsQR (640)
 *   workerUrl         the jsQR worker (default: qr-worker.js beside this file)
 * Returns {stop(), engine: 'native'|'jsqr'}.
 */
export async function startScanner(video, options = {}) {
  const {
    onResult = () => {},
    onError = (err) => console.error(err),
    intervalMs = 150,
    repeatMs = 2500,
    maxSide = 640,
    workerUrl = new URL('./qr-worker.js', import.meta.url),
  } = options;

  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: { ideal: 'environment' }, width: { ideal: 1280 }, height: { ideal: 720 } },
      audio: false,
    });
  } catch (err) {
    onError(err);
    throw err;
  }
  video.setAttribute('playsinline', '');   // iOS: no fullscreen takeover
  video.muted = true;
  video.srcObject = stream;
  await video.play().catch(() => {});

  const detector = await nativeDetector();
  let worker = null;
  let canvas = null;
  let ctx = null;
  if (!detector) {
    worker = new Worker(workerUrl);
    canvas = document.createElement('canvas');
    ctx = canvas.getContext('2d', { willReadFrequently: true });
  }

  let stopped = false;
  let timer = null;
  let lastText = null;
  let lastAt = 0;
  let nextId = 0;

  const report = (text) => {
    if (!text) return;
    const now = Date.now();
    if (text === lastText && now - lastAt < repeatMs) return;
    lastText = text;
    lastAt = now;
    onResult(text);
  };

  const decodeWithWorker = () => new Promise((resolve) => {
    const w = video.videoWidth;
    const h = video.videoHeight;
    if (!w || !h) { resolve(null); return; }
    const scale = Math.min(1, maxSide / Math.max(w, h));
    canvas.width = Math.round(w * scale);
    canvas.height = Math.round(h * scale);
    ctx.drawImage(video, 0, 0, canvas.width, canvas.height);
    const img = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const id = ++nextId;
    const onMessage = (ev) => {
      if (ev.data.id !== id) return;
      worker.removeEventListener('message', onMessage);
      resolve(ev.data.text);
    };
    worker.addEventListener('message', onMessage);
    worker.postMessage({ id, width: img.width, height: img.height, buffer: img.data.buffer }, [img.data.buffer]);
  });

  // One frame in flight at a time: a slow phone decodes fewer frames rather
  // than queueing up stale ones.
  const loop = async () => {
    if (stopped) return;
    try {
      if (video.readyState >= 2) {
        if (detector) {
          const codes = await detector.detect(video);
          if (codes.length) report(codes[0].rawValue);
        } else {
          report(await decodeWithWorker());
        }
      }
    } catch { /* a bad frame: try the next one */ }
    if (!stopped) timer = setTimeout(loop, intervalMs);
  };
  loop();

  return {
    engine: detector ? 'native' : 'jsqr',
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const track of stream.getTracks()) track.stop();
      video.srcObject = null;
      if (worker) worker.terminate();
    },
  };
}
