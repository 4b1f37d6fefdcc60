#!/usr/bin/env bash
# Writes Linker/scanbridged.order: the functions a daemon runs, in the order it first runs
# them, from a callgrind trace of a release build doing a counter's day in miniature (start,
# every driver looking for its devices, demo data import, scans of every kind through the
# handlers, a subscriber, lookups). See Linker/README.md. Needs valgrind and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

swift build -c release --static-swift-stdlib --scratch-path .build-release
bin=.build-release/release
work=$(mktemp -d /tmp/scanbridge-order.XXXX)
trap 'kill -TERM "$daemon" 2>/dev/null || true; rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the DWARF 5 the toolchain writes; the symbol table is enough.
strip --strip-debug -o "$work/scanbridged" "$bin/scanbridged"
export SCANBRIDGE_SOCKET="$work/s.sock"

valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no \
    --callgrind-out-file="$work/trace" "$work/scanbridged" --socket "$SCANBRIDGE_SOCKET" \
    --database "$work/db.sqlite" --mock barcode:till --mock nfc:desk --mock qr:bench \
    --log-level warning 2>"$work/log" &
daemon=$!
for _ in $(seq 1 600); do [ -S "$SCANBRIDGE_SOCKET" ] && break; sleep 0.1; done

cli() { "$bin/scanbridge" "$@" >/dev/null; }
cli products import demo/catalog.csv
cli orders import demo/orders.json
cli inject till 5901234123457
cli inject till 4006381333931
cli inject desk --uid 04A1B2C3D4E5F6
cli inject bench https://repair.example.com/orders/ord_1001 --symbology qr
cli inject bench DEVICE:dev_56 --symbology qr
cli lookup 5901234123457
cli cards list
cli devices
# A subscriber that never reads, and a burst of scans in batches, as the memory benchmark does.
python3 - "$SCANBRIDGE_SOCKET" <<'PY'
import socket, sys
stalled = socket.socket(socket.AF_UNIX); stalled.connect(sys.argv[1])
stalled.sendall(b'{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}\n')
injector = socket.socket(socket.AF_UNIX); injector.connect(sys.argv[1])
answers = injector.makefile("rb")
for batch in range(20):
    requests = ",".join('{"jsonrpc":"2.0","id":%d,"method":"scan.inject","params":{"device":"mock:till","text":"bench-%07d"}}'
                        % (i, i) for i in range(batch * 256, batch * 256 + 256))
    injector.sendall(("[" + requests + "]\n").encode())
    answers.readline()
PY
kill -TERM "$daemon"; wait "$daemon" || true

# Functions in first-run order, only those the daemon itself defines.
nm --defined-only "$bin/scanbridged" | awk '{print $3}' | sort -u >"$work/defined"
grep -E '^c?fn=' "$work/trace" | sed -E 's/^c?fn=//' | awk '!seen[$0]++' \
    | awk 'NR==FNR {defined[$0]; next} $0 in defined' "$work/defined" - >Linker/scanbridged.order
echo "Linker/scanbridged.order: $(wc -l <Linker/scanbridged.order) functions"
