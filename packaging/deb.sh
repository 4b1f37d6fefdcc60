#!/usr/bin/env bash
# `make deb`: a Debian package of what `make install` installs for PREFIX=/usr, with the
# maintainer scripts in packaging/debian/, checked by lintian (no error allowed). Prints the
# package's path. BIN as for install.sh; OUT (default .build/deb) holds the result; LINTIAN=no
# skips the check (a package of debug binaries, which name the toolchain's runtime folder);
# COMPRESS=none packs it uncompressed (the hardware lab's package of the debug binaries, which
# xz would take most of a minute over and the guest unpacks at once).
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-.build/deb}
version=$(sed -n 's/.*current = "\(.*\)".*/\1/p' Sources/ScanBridgeRPC/ScanBridgeVersion.swift)
arch=$(dpkg --print-architecture)
root=$(realpath -m "$OUT/root")
rm -rf "$root"
mkdir -p "$root/DEBIAN" "$root/usr/share/doc/scanbridge"

PREFIX=/usr DESTDIR="$root" packaging/install.sh >/dev/null
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/scanbridged" "$root/usr/bin/scanbridge" \
    "$root/usr/lib/scanbridge/scanbridge-zxing"

install -m 0644 packaging/debian/copyright "$root/usr/share/doc/scanbridge/copyright"
install -D -m 0644 packaging/debian/lintian-overrides "$root/usr/share/lintian/overrides/scanbridge"
when=$(date -u -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")
printf 'scanbridge (%s) unstable; urgency=medium\n\n  * Release %s.\n\n -- ScanBridge developers <maintainers@scanbridge.example>  %s\n' \
    "$version" "$version" "$when" | gzip -9n > "$root/usr/share/doc/scanbridge/changelog.gz"
chmod 0644 "$root/usr/share/doc/scanbridge/changelog.gz"

# The shared libraries the binaries link, as the packages (and versions) that provide them.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: scanbridge\n\nPackage: scanbridge\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O "$root/usr/bin/scanbridged" "$root/usr/bin/scanbridge" \
    "$root/usr/lib/scanbridge/scanbridge-zxing" \
    | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" \
    packaging/debian/control.in > "$root/DEBIAN/control"
echo /etc/scanbridge/scanbridge.yaml > "$root/DEBIAN/conffiles"
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$root/DEBIAN/"

package=$OUT/scanbridge_${version}_${arch}.deb
dpkg-deb --root-owner-group "-Z${COMPRESS:-xz}" --build "$root" "$package" >/dev/null
if [ "${LINTIAN:-yes}" != no ]; then lintian --fail-on error "$package" >&2; fi
echo "$package"
