// QR decoding off the main thread, for phones without BarcodeDetector
// (notably iPhones). A classic worker from our own origin, so the CSP needs no
// blob: or 'unsafe-eval' (the reason we vendor jsQR rather than qr-scanner).
//
// In:  {id, width, height, buffer}  RGBA pixels (ArrayBuffer, transferred)
// Out: {id, text}                    the decoded text, or null

/* global jsQR */
importScripts('../../vendor/jsqr/jsQR.js');  // resolved against this file's URL

self.onmessage = (ev) => {
  const { id, width, height, buffer } = ev.data;
  let text = null;
  try {
    // Printed slips are dark on light: skip the inverted pass, it halves the work.
    const code = jsQR(new Uint8ClampedArray(buffer), width, height, { inversionAttempts: 'dontInvert' });
    text = code ? code.data : null;
  } catch (err) {
    text = null;
  }
  self.postMessage({ id, text });
};
