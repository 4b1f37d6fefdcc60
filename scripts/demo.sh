#!/usr/bin/env bash
# `make demo`: the daemon on the embedded defaults (a SQLite file under .demo/, mock devices
# playing the demo scripts), and its events flowing in this terminal. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=.build/debug
data="${SCANBRIDGE_DATA:-$PWD/.demo}"
export SCANBRIDGE_SOCKET="$data/scanbridge.sock"
mkdir -p "$data"

"$bin/scanbridged" --config demo/scanbridge.yaml --socket "$SCANBRIDGE_SOCKET" --database "$data/scanbridge.sqlite" \
    2>>"$data/scanbridged.log" &
daemon=$!
stop() {
    kill -TERM "$daemon" 2>/dev/null || true
    wait "$daemon" 2>/dev/null || true
}
trap stop EXIT
trap 'exit 0' INT TERM

for _ in $(seq 1 100); do
    "$bin/scanbridge" devices >/dev/null 2>&1 && break
    kill -0 "$daemon" 2>/dev/null || { echo "scanbridged did not start; see $data/scanbridged.log" >&2; tail -5 "$data/scanbridged.log" >&2; exit 1; }
    sleep 0.1
done

echo "ScanBridge demo: daemon log in $data/scanbridged.log, socket $SCANBRIDGE_SOCKET"
echo "Try in another terminal: SCANBRIDGE_SOCKET=$SCANBRIDGE_SOCKET $bin/scanbridge inject till-1 5901234123457"
echo
"$bin/scanbridge" devices
echo
echo "Watching scans (Ctrl-C to stop):"
"$bin/scanbridge" watch
