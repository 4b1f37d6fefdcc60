#!/usr/bin/env bash
# `make demo`: the daemon on the embedded defaults (a SQLite file under .demo/, mock devices
# playing the demo scripts), and its events flowing in this terminal. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=.build/debug
data="${SCANBRIDGE_DATA:-$PWD/.demo}"
export SCANBRIDGE_SOCKET="$data/scanbridge.sock"
# The embedded defaults and the demo's own configuration, never one installed on the machine.
export CONFIGURATION_DIRECTORY="$data/no-config"
mkdir -p "$data"

daemon=
stop() {
    [ -n "$daemon" ] || return 0
    kill -TERM "$daemon" 2>/dev/null || true
    wait "$daemon" 2>/dev/null || true
    daemon=
}
trap stop EXIT
trap 'exit 0' INT TERM

# Starts the daemon with these extra options and waits until it answers.
start() {
    "$bin/scanbridged" --socket "$SCANBRIDGE_SOCKET" --database "$data/scanbridge.sqlite" "$@" \
        2>>"$data/scanbridged.log" &
    daemon=$!
    for _ in $(seq 1 100); do
        "$bin/scanbridge" devices >/dev/null 2>&1 && return 0
        kill -0 "$daemon" 2>/dev/null || break
        sleep 0.1
    done
    echo "scanbridged did not start; see $data/scanbridged.log" >&2
    tail -5 "$data/scanbridged.log" >&2
    exit 1
}

# First the demo data (re-importing is an idempotent upsert), before any mock device scans.
start --drivers mock
"$bin/scanbridge" products import demo/catalog.csv
"$bin/scanbridge" orders import demo/orders.json
"$bin/scanbridge" customers set rN7nDemoWalletAda --name "Ada Lovelace" --email ada@example.com >/dev/null
"$bin/scanbridge" cards link 04A1B2C3D4E5F6 rN7nDemoWalletAda --name "Ada's card" >/dev/null
"$bin/scanbridge" cards link 04112233445566 rN7nDemoWalletAda --name "Old keyring" >/dev/null
"$bin/scanbridge" cards block 04112233445566 >/dev/null
stop

# A file camera at the repair bench: 4 s of an empty bench, a repair-order label (drawn by
# qrencode) held in view for 2 s, 4 s of empty bench again, over and over; each showing is
# one scan resolved by order-lookup.
camera=()
if command -v qrencode >/dev/null 2>&1; then
    frames="$data/bench-camera"
    rm -rf "$frames" && mkdir -p "$frames"
    for i in $(seq 1 8) $(seq 13 20); do
        { printf 'P5\n320 240\n255\n'; head -c $((320 * 240)) /dev/zero | tr '\0' '\377'; } >"$frames/$(printf %02d "$i").pgm"
    done
    for i in 09 10 11 12; do qrencode -s 6 -m 4 -o "$frames/$i.png" "https://app.repairminder.com/orders/ord_1002"; done
    camera=(--device "file-camera:$frames,fps=2,loop=yes,out-of-view=1500")
else
    echo "qrencode is missing (scripts/deps.sh installs it): no file camera in this demo" >&2
fi

# The gateway on loopback, for the counter page and the JavaScript client: a reader token for
# them, made anew at each demo (a day's lifetime, so the old ones lapse by themselves), and
# DEMO_ORIGIN, a web POS in development elsewhere on this machine, allowed to call it.
http=${DEMO_HTTP:-127.0.0.1:8765}
start --config demo/scanbridge.yaml --http "$http" --allow-origin "${DEMO_ORIGIN:-http://localhost:5173}" "${camera[@]}"
rm -f "$data/reader.token"
"$bin/scanbridge" tokens create --name "demo counter page" --role reader --expires 1d \
    --secret-file "$data/reader.token" >/dev/null

echo "ScanBridge demo: daemon log in $data/scanbridged.log, socket $SCANBRIDGE_SOCKET"
echo "Counter page (a reader token in the address): http://$http/#token=$(cat "$data/reader.token")"
echo "Try in another terminal: export SCANBRIDGE_SOCKET=$SCANBRIDGE_SOCKET; then"
echo "  $bin/scanbridge lookup 5901234123457        $bin/scanbridge inject till-1 5901234123457"
echo "  $bin/scanbridge cards arm rN7nNewWallet      $bin/scanbridge inject counter-reader --uid 04AABBCCDDEEFF"
echo
"$bin/scanbridge" devices
echo
echo "Watching scans (Ctrl-C to stop):"
"$bin/scanbridge" watch
