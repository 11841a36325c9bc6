#!/usr/bin/env bash
# Vendor the browser libraries that referee serves itself.
#
# Why vendored: the app runs on club Wi-Fi with no internet, so every asset is
# served from static/ -- no CDN, and no build step (the files are committed).
#
# Re-run this script to refresh the files after changing a pin below. It uses
# `npm pack`, which downloads one tarball from the npm registry and checks it
# against the registry's own integrity hash; we then compare that hash with the
# one pinned here, so a changed tarball behind an unchanged version fails loudly.
# No package.json, no node_modules: nothing is installed, only unpacked in /tmp.
set -euo pipefail

# ---- Pins: the ONLY place the versions live. -------------------------------
# socket.io-client 4.x speaks Socket.IO protocol v5 / Engine.IO v4, which is
# what python-socketio 5.x and python-engineio 4.x serve.
SOCKETIO_VERSION="4.8.4"
SOCKETIO_INTEGRITY="sha512-7wjKAvVXYOJsbmUgkWbnhPD4bFpkqrUR0++XOjpGFmqDqsqV1CI93VTraeExLxpjxEqrWgFoSRZu1ihjLWfkAA=="
# jsQR decodes a QR code from raw pixels. Chosen over qr-scanner (which spawns
# its worker from a blob: URL, so it needs CSP `worker-src blob:`) and
# html5-qrcode (375 KB, bundles its own UI): jsQR is one self-contained UMD
# file we can load with importScripts() in our own worker, CSP 'self' only.
# It is only fetched by phones without the native BarcodeDetector API.
JSQR_VERSION="1.4.0"
JSQR_INTEGRITY="sha512-dxLob7q65Xg2DvstYkRpkYtmKm2sPJ9oFhrhmudT1dZvNFFTlroai3AWSpLey/w5vMcLBXRgOJsbXpdN9HzU/A=="
# NoSleep.js's two silent looping videos (not its script): over plain http a page gets no screen
# wake lock, and a playing video is what keeps a phone's screen on (static/js/lib/timer.js ScreenWake).
NOSLEEP_VERSION="0.12.0"
NOSLEEP_INTEGRITY="sha512-9d1HbpKLh3sdWlhXMhU6MMH+wQzKkrgfRkYV0EBdvt99YJfj0ilCJrWRDYG2130Tm4GXbEoTCx5b34JSaP+HhA=="
# -----------------------------------------------------------------------------

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENDOR="$ROOT/static/vendor"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

command -v npm >/dev/null || { echo "vendor.sh: npm is needed (Node.js 18+)" >&2; exit 1; }

# fetch NAME VERSION INTEGRITY -> unpacks into $WORK/NAME/package
fetch() {
  local name="$1" version="$2" want="$3" got tgz
  mkdir -p "$WORK/$name"
  got="$(cd "$WORK/$name" && npm pack --json --silent "$name@$version" \
         | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["integrity"])')"
  if [[ "$got" != "$want" ]]; then
    echo "vendor.sh: $name@$version integrity mismatch" >&2
    echo "  pinned: $want" >&2
    echo "  got:    $got" >&2
    exit 1
  fi
  tgz="$(ls "$WORK/$name"/*.tgz)"
  tar -xzf "$tgz" -C "$WORK/$name"
  echo "fetched $name@$version ($got)"
}

# note DIR NAME VERSION INTEGRITY LICENSE-NAME EXTRA -> writes DIR/VERSION
note() {
  local dir="$1" name="$2" version="$3" integrity="$4" licence="$5" extra="$6"
  cat > "$dir/VERSION" <<NOTE
$name $version
licence: $licence (see LICENSE in this folder)
source: npm registry, package "$name", version $version
integrity: $integrity
refresh: edit the pins at the top of scripts/vendor.sh and run it
$extra
NOTE
}

# ---- socket.io client -------------------------------------------------------
fetch socket.io-client "$SOCKETIO_VERSION" "$SOCKETIO_INTEGRITY"
pkg="$WORK/socket.io-client/package"
out="$VENDOR/socket.io"
rm -rf "$out" && mkdir -p "$out"
cp "$pkg/dist/socket.io.min.js" "$pkg/dist/socket.io.min.js.map" "$pkg/LICENSE" "$out/"
note "$out" socket.io-client "$SOCKETIO_VERSION" "$SOCKETIO_INTEGRITY" MIT \
"files: socket.io.min.js (+ .map), the browser bundle; it defines the global io().
The bundle also contains engine.io-client, socket.io-parser and
@socket.io/component-emitter, all MIT, by the same authors."

# ---- jsQR -------------------------------------------------------------------
fetch jsqr "$JSQR_VERSION" "$JSQR_INTEGRITY"
pkg="$WORK/jsqr/package"
out="$VENDOR/jsqr"
rm -rf "$out" && mkdir -p "$out"
cp "$pkg/dist/jsQR.js" "$pkg/LICENSE" "$out/"
note "$out" jsqr "$JSQR_VERSION" "$JSQR_INTEGRITY" Apache-2.0 \
"files: jsQR.js, a UMD build; in a worker, importScripts() defines self.jsQR.
Used by static/js/lib/qr-worker.js only where BarcodeDetector is missing."

# ---- NoSleep.js's media ------------------------------------------------------
fetch nosleep.js "$NOSLEEP_VERSION" "$NOSLEEP_INTEGRITY"
pkg="$WORK/nosleep.js/package"
out="$VENDOR/nosleep"
rm -rf "$out" && mkdir -p "$out"
python3 - "$pkg/src/media.js" "$out" <<'PY'
import base64, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
for kind in ("webm", "mp4"):
    data = re.search(kind + r':\s*"data:video/' + kind + r';base64,([A-Za-z0-9+/=]+)"', text).group(1)
    open(f"{sys.argv[2]}/no-sleep.{kind}", "wb").write(base64.b64decode(data))
PY
cp "$pkg/LICENSE" "$out/"
note "$out" nosleep.js "$NOSLEEP_VERSION" "$NOSLEEP_INTEGRITY" MIT \
"files: no-sleep.webm and no-sleep.mp4, the two silent videos of src/media.js, decoded from
their data: URIs (NoSleep.js's script is not used: static/js/lib/timer.js plays them itself)."

echo "vendored into $VENDOR:"
(cd "$VENDOR" && find . -type f | sort | sed 's/^/  /')
