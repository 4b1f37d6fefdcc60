#!/usr/bin/env bash
# `make test-dist`: run by packaging/chroot.sh, as a user who is not root, in a clean chroot
# where only the runtime libraries the tarball's README lists for that release are installed.
# Usage: check-dist.sh TARBALL FRAMES
# Checks the tarball against its .sha256, unpacks it in a folder of its own, starts the daemon
# there on a mock scanner and a file camera reading FRAMES (a QR code, so the decoder and its
# zxing-cpp run too), and has a subscriber receive a scan of each.
set -euo pipefail

tarball=${1:?usage: check-dist.sh TARBALL FRAMES}
frames=${2:?usage: check-dist.sh TARBALL FRAMES}
fail() { echo "check-dist: $*" >&2; exit 1; }
[ "$(id -u)" -ne 0 ] || fail "run it as a user who is not root"

(cd "$(dirname "$tarball")" && sha256sum --quiet -c "$(basename "$tarball").sha256") || fail "the SHA-256 does not match"
work=$(mktemp -d)
tar -C "$work" -xzf "$tarball"
top=$(find "$work" -mindepth 1 -maxdepth 1 -type d)
for binary in "$top/usr/local/bin/scanbridged" "$top/usr/local/bin/scanbridge" "$top/usr/local/lib/scanbridge/scanbridge-zxing"; do
    ! ldd "$binary" | grep 'not found' || fail "$binary misses a library"
done

export SCANBRIDGE_SOCKET=$work/scanbridge.sock
"$top/usr/local/bin/scanbridged" --drivers mock,file-camera --mock barcode:till-1 \
    --device "file-camera:$frames,fps=2,loop=yes" --database "$work/scanbridge.sqlite" 2> "$work/scanbridged.log" &
daemon=$!
watcher=
trap 'kill $daemon $watcher 2>/dev/null || true' EXIT
for _ in $(seq 100); do "$top/usr/local/bin/scanbridge" devices >/dev/null 2>&1 && break; sleep 0.1; done
"$top/usr/local/bin/scanbridge" watch --json --since 0 > "$work/events" &
watcher=$!
"$top/usr/local/bin/scanbridge" inject till-1 5901234123457 >/dev/null
for _ in $(seq 100); do
    grep -q '"5901234123457"' "$work/events" && grep -q '"kind":"qr"' "$work/events" && break
    sleep 0.1
done
grep -q '"5901234123457"' "$work/events" || fail "the subscriber got no scan: $(cat "$work/scanbridged.log")"
grep -q '"kind":"qr"' "$work/events" || fail "the camera's decoder read no QR code: $(cat "$work/scanbridged.log")"
kill -TERM "$daemon"
wait "$daemon" || fail "the daemon did not stop cleanly: $(cat "$work/scanbridged.log")"
daemon=
echo "check-dist: $(basename "$tarball") ran on $(. /etc/os-release && echo "$PRETTY_NAME") without root"
