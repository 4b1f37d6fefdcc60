#!/usr/bin/env bash
# `make dist`: scanbridge-VERSION-linux-ARCH.tar.gz and its .sha256 in .build/dist, for machines
# that install no package (another program's CI above all): what `make install` installs for
# PREFIX=/usr/local, under one folder, with a README. The binaries have the Swift runtime
# linked in; the cameras' decoder carries its zxing-cpp library beside it (Debian 12 and 13
# ship different ones), so the same tarball runs on both with only the libraries README lists
# (packaging/check-dist.sh, run in a chroot of each by `make test-dist`). BIN as for
# packaging/install.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-.build/package/release}
version=$(sed -n 's/.*current = "\(.*\)".*/\1/p' Sources/ScanBridgeRPC/ScanBridgeVersion.swift)
name=scanbridge-$version-linux-$(uname -m)
out=.build/dist
rm -rf "${out:?}/$name" "$out/$name".tar.gz*
mkdir -p "$out/$name"
stage=$(realpath "$out/$name")

PREFIX=/usr/local DESTDIR="$stage" BIN="$BIN" packaging/install.sh >/dev/null
strip --strip-unneeded "$stage/usr/local/bin/scanbridged" "$stage/usr/local/bin/scanbridge" \
    "$stage/usr/local/lib/scanbridge/scanbridge-zxing"

# The decoder's zxing-cpp, beside it and found there first, with its licence.
decoder=$stage/usr/local/lib/scanbridge/scanbridge-zxing
zxing=$(ldd "$decoder" | awk '/libZXing/ {print $3}')
[ -n "$zxing" ] || { echo "dist: the decoder links no libZXing" >&2; exit 1; }
install -m 0644 "$(realpath "$zxing")" "$stage/usr/local/lib/scanbridge/$(basename "$zxing")"
patchelf --set-rpath '$ORIGIN' "$decoder"
zxing_package=$(dpkg -S "$(realpath "$zxing")" | cut -d: -f1)
install -D -m 0644 "/usr/share/doc/$zxing_package/copyright" "$stage/usr/local/share/doc/scanbridge/zxing-cpp.copyright"
install -m 0644 debian/copyright "$stage/usr/local/share/doc/scanbridge/copyright"
install -m 0644 CHANGELOG.md "$stage/usr/local/share/doc/scanbridge/CHANGELOG.md"

# The runtime libraries, per release: what the binaries link, by the packages that ship them.
# packaging/check-dist.sh installs exactly the line of its release, and nothing else.
libraries12="libc6 libgcc-s1 libstdc++6 libpcsclite1 libpng16-16 libseccomp2 libsqlite3-0 libssl3 libturbojpeg0 libudev1 libusb-1.0-0 libxkbcommon0 xkb-data"
libraries13="libc6 libgcc-s1 libstdc++6 libpcsclite1 libpng16-16t64 libseccomp2 libsqlite3-0 libssl3t64 libturbojpeg0 libudev1 libusb-1.0-0 libxkbcommon0 xkb-data"

sed -e "s/@VERSION@/$version/g" -e "s/@NAME@/$name/g" -e "s/@LIBRARIES12@/$libraries12/" \
    -e "s/@LIBRARIES13@/$libraries13/" packaging/dist-README.in > "$stage/README"

tar -C "$out" --owner=0 --group=0 --numeric-owner --sort=name \
    --mtime="@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}" -czf "$out/$name.tar.gz" "$name"
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
rm -rf "$stage"
echo "$out/$name.tar.gz"
