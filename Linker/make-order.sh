#!/usr/bin/env bash
# Writes Linker/scanbridged.order from a callgrind trace of a release build doing a counter's
# day in miniature (start, every driver looking for its devices, demo data import, scans of
# every kind through the handlers, a subscriber, lookups): first the functions a single scan
# runs once the daemon is going (scans one at a time to eight subscribers, lookups), then
# every other function it ran, each group in the order the daemon first ran them. See
# Linker/README.md. Needs valgrind and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

# Product by product: a release build of everything also links GRDB's dynamic library,
# which cannot take the static Swift runtime.
for product in scanbridged scanbridge; do
    swift build -c release --static-swift-stdlib --scratch-path .build-release --product "$product"
done
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

# The steady state: what the daemon runs for a scan, counted on its own (dump 2 of the trace).
callgrind_control --dump=setup "$daemon" >/dev/null
callgrind_control --zero "$daemon" >/dev/null
python3 - "$SCANBRIDGE_SOCKET" <<'PY'
import socket, sys, time
def connect():
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); return s, s.makefile("rb")
subscribers = [connect() for _ in range(8)]
for s, lines in subscribers:
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}\n'); lines.readline()
client, answers = connect()
texts = ["5901234123457", "bench-0000001", "https://repair.example.com/orders/ord_1001", "RM-1001"]
for i in range(200):
    client.sendall(('{"jsonrpc":"2.0","id":%d,"method":"scan.inject","params":{"device":"mock:till","text":"%s"}}\n'
                    % (i, texts[i % len(texts)])).encode())
    answers.readline()
    for s, lines in subscribers: lines.readline()
    client.sendall(b'{"jsonrpc":"2.0","id":0,"method":"products.lookup","params":{"code":"5901234123457"}}\n')
    answers.readline()
    time.sleep(0.02)
PY
callgrind_control --dump=steady "$daemon" >/dev/null
kill -TERM "$daemon"; wait "$daemon" || true

# The daemon's own functions: those of the steady state first, then the rest, each in
# first-run order (the trace's parts in the order they were written).
nm --defined-only "$bin/scanbridged" | awk '{print $3}' | sort -u >"$work/defined"
first_run() { grep -hE '^c?fn=' "$@" | sed -E 's/^c?fn=//' | awk '!seen[$0]++'; }
steady="$work/trace.2"
# A function ran in the steady state when a cost line follows its fn= line there.
awk '/^fn=/ {fn = substr($0, 4); next} /^[0-9+-]/ && fn != "" {print fn; fn = ""}' "$steady" | sort -u >"$work/hot"
first_run "$work/trace.1" "$work/trace.2" "$work/trace" | awk 'NR==FNR {defined[$0]; next} $0 in defined' "$work/defined" - >"$work/all"
{ awk 'NR==FNR {hot[$0]; next} $0 in hot' "$work/hot" "$work/all"
  awk 'NR==FNR {hot[$0]; next} !($0 in hot)' "$work/hot" "$work/all"; } >Linker/scanbridged.order
echo "Linker/scanbridged.order: $(wc -l <"$work/hot") steady-state functions first, $(wc -l <Linker/scanbridged.order) in all"
