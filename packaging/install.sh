#!/usr/bin/env bash
# `make install`: the release binaries (Swift runtime linked in), the counter page, systemd
# units, sysusers.d, tmpfiles.d and modules-load.d entries, udev rules, the pn533 blacklist,
# the polkit rule, the commented default configuration, man pages and shell completions,
# under DESTDIR for PREFIX. docs/install.md, "What is installed", says what each file is.
#
# PREFIX (default /usr/local), DESTDIR (default none), BIN (the built binaries; default
# .build/package/release, where `make release-products` builds them), GENERATE_MANUAL
# (swift-argument-parser's man page tool; default .build/package/debug/generate-manual;
# MAN_PAGES=no skips the pages).
set -euo pipefail
cd "$(dirname "$0")/.."

PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
BIN=${BIN:-.build/package/release}
GENERATE_MANUAL=${GENERATE_MANUAL:-.build/package/debug/generate-manual}
MAN_PAGES=${MAN_PAGES:-yes}

# Where systemd, udev, kmod and polkit look: the distribution's own folders for PREFIX=/usr,
# the local ones (or /etc, where a tool reads no local folder) otherwise.
if [ "$PREFIX" = /usr ]; then
    unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
    sysusersdir=$(pkg-config --variable=sysusersdir systemd 2>/dev/null || echo /usr/lib/sysusers.d)
    tmpfilesdir=$(pkg-config --variable=tmpfilesdir systemd 2>/dev/null || echo /usr/lib/tmpfiles.d)
    modulesloaddir=$(pkg-config --variable=modulesloaddir systemd 2>/dev/null || echo /usr/lib/modules-load.d)
    udevdir=$(pkg-config --variable=udevdir udev 2>/dev/null || echo /lib/udev)/rules.d
    # kmod reads both; the release's own place is beside udev's (/usr/lib from Debian 13).
    modprobedir=$(dirname "$(dirname "$udevdir")")/modprobe.d
    polkitdir=/usr/share/polkit-1/rules.d
else
    unitdir=$PREFIX/lib/systemd/system
    sysusersdir=$PREFIX/lib/sysusers.d
    tmpfilesdir=$PREFIX/lib/tmpfiles.d
    modulesloaddir=/etc/modules-load.d
    udevdir=/etc/udev/rules.d
    modprobedir=/etc/modprobe.d
    polkitdir=/etc/polkit-1/rules.d
fi

for binary in scanbridged scanbridge scanbridge-zxing; do
    [ -x "$BIN/$binary" ] || { echo "install: no $BIN/$binary; build it first (make install does)" >&2; exit 1; }
done

root=$DESTDIR
install -d "$root$PREFIX/bin" "$root$PREFIX/lib/scanbridge" "$root$PREFIX/share/scanbridge/web" "$root$unitdir" "$root$sysusersdir" \
    "$root$tmpfilesdir" "$root$modulesloaddir" "$root$udevdir" "$root$modprobedir" "$root$polkitdir" "$root/etc/scanbridge"
install -m 0755 "$BIN/scanbridged" "$BIN/scanbridge" "$root$PREFIX/bin/"
# The cameras' decoder process: the daemon looks for it in ../lib/scanbridge from its own folder.
install -m 0755 "$BIN/scanbridge-zxing" "$root$PREFIX/lib/scanbridge/"
install -m 0644 Web/* "$root$PREFIX/share/scanbridge/web/"

# The units name the binary by its installed path.
for unit in scanbridged.service scanbridged.socket scanbridged-http.socket; do
    sed "s|/usr/bin/scanbridged|$PREFIX/bin/scanbridged|" "service/$unit" > "$root$unitdir/$unit"
    chmod 0644 "$root$unitdir/$unit"
done
install -m 0644 service/scanbridge.sysusers "$root$sysusersdir/scanbridge.conf"
install -m 0644 service/scanbridge.tmpfiles "$root$tmpfilesdir/scanbridge.conf"
install -m 0644 service/scanbridge.modules-load "$root$modulesloaddir/scanbridge.conf"
install -m 0644 udev/70-scanbridge.rules "$root$udevdir/70-scanbridge.rules"
install -m 0644 udev/blacklist-pn533.conf "$root$modprobedir/scanbridge-blacklist-pn533.conf"
install -m 0644 service/50-scanbridge-pcsc.rules "$root$polkitdir/50-scanbridge-pcsc.rules"
# An operator's configuration is never replaced.
if [ ! -e "$root/etc/scanbridge/scanbridge.yaml" ]; then
    install -m 0644 service/scanbridge.yaml "$root/etc/scanbridge/scanbridge.yaml"
fi

if [ "$MAN_PAGES" = yes ]; then
    [ -x "$GENERATE_MANUAL" ] || { echo "install: no $GENERATE_MANUAL (make release-products builds it)" >&2; exit 1; }
    install -d "$root$PREFIX/share/man/man1" "$root$PREFIX/share/man/man8"
    date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}" +%F)
    "$GENERATE_MANUAL" "$BIN/scanbridge" --section 1 --date "$date" -o "$root$PREFIX/share/man/man1"
    "$GENERATE_MANUAL" "$BIN/scanbridged" --section 8 --date "$date" -o "$root$PREFIX/share/man/man8"
    # Blank lines are not mdoc: groff warns of each.
    sed -i '/^$/d' "$root$PREFIX/share/man/man1/scanbridge.1" "$root$PREFIX/share/man/man8/scanbridged.8"
    gzip -9nf "$root$PREFIX/share/man/man1/scanbridge.1" "$root$PREFIX/share/man/man8/scanbridged.8"
fi

install -d "$root$PREFIX/share/bash-completion/completions" "$root$PREFIX/share/zsh/vendor-completions" \
    "$root$PREFIX/share/fish/vendor_completions.d"
# bash-completion sources its files: a #! line has no use there.
"$BIN/scanbridge" --generate-completion-script bash | sed '1{/^#!/d}' \
    > "$root$PREFIX/share/bash-completion/completions/scanbridge"
"$BIN/scanbridge" --generate-completion-script zsh > "$root$PREFIX/share/zsh/vendor-completions/_scanbridge"
"$BIN/scanbridge" --generate-completion-script fish > "$root$PREFIX/share/fish/vendor_completions.d/scanbridge.fish"
chmod 0644 "$root$PREFIX"/share/{bash-completion/completions/scanbridge,zsh/vendor-completions/_scanbridge,fish/vendor_completions.d/scanbridge.fish}

echo "installed ScanBridge under ${DESTDIR:-/}$PREFIX"
