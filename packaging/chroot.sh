#!/usr/bin/env bash
# Debian releases in chroots, made with debootstrap from Debian's archive and cached between
# runs in SCANBRIDGE_CHROOTS (default /var/cache/scanbridge/chroots), so that a package is
# built and tested with its release's own libraries and tools:
#   packaging/chroot.sh build DIST       dpkg-buildpackage in DIST's build chroot; the package
#                                        and lintian's report land in .build/deb/DIST
#   packaging/chroot.sh dist DIST        that build, then packaging/dist.sh in the same chroot
#                                        (`make dist` uses the oldest release, whose binaries
#                                        run on both)
#   packaging/chroot.sh test DIST        packaging/check.sh in a clean chroot of DIST, on the
#                                        package `build` made (PREVIOUS=path.deb: the version
#                                        the upgrade starts from; check.sh says the default)
#   packaging/chroot.sh test-dist DIST   packaging/check-dist.sh on the tarball `make dist` made,
#                                        as a user, in a clean chroot of DIST with only the
#                                        libraries its README lists for DIST
#   packaging/chroot.sh shell DIST DIR CMD...   CMD in a clean chroot of DIST unpacked in DIR
# The build chroot (DIST-build) is kept, with its packages and SwiftPM's build folder in the
# checkout (.build/DIST), so a second build compiles only what changed. The Swift toolchain is
# the host's (neither release has Swift 6.1): its folder is mounted at the same path. Every
# mount lives in a mount namespace of its own, gone when the command ends. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."

cache=${SCANBRIDGE_CHROOTS:-/var/cache/scanbridge/chroots}
# shellcheck source=packaging/chroot-lib.sh
. packaging/chroot-lib.sh
[ "$(id -u)" -eq 0 ] || { echo "chroot: debootstrap and chroot need root" >&2; exit 1; }
usage="usage: packaging/chroot.sh build|dist|test|test-dist|shell DIST ..."
what=${1:?$usage}
dist=${2:?$usage}
case "$dist" in
bookworm) release=12 ;;
trixie) release=13 ;;
*) echo "chroot: $dist is not a release ScanBridge is packaged for (bookworm, trixie)" >&2; exit 64 ;;
esac
mkdir -p "$cache"

# The release's minimal system, with its package lists, packed once.
base() {
    local tar=$cache/$dist.tar
    if [ ! -f "$tar" ]; then
        local dir
        dir=$(mktemp -d "$cache/$dist.XXXXXX")
        bootstrap "$dist" "$(dpkg --print-architecture)" "$dir"
        tar -C "$dir" -cf "$tar.part" . && mv "$tar.part" "$tar"
        rm -rf "$dir" "$dir.log"
    fi
    echo "$tar"
}

# A clean system of the release, unpacked in $1.
fresh() {
    local tar
    tar=$(base)
    mkdir -p "$1"
    chmod 0755 "$1"
    tar -C "$1" -xf "$tar"
}

# The build chroot, kept between runs with its packages: the toolchain's folder and the
# checkout mounted in it.
build_root=$cache/$dist-build
toolchain=$(dirname "$(dirname "$(dirname "$(realpath "$(command -v "${SWIFT:-swift}")")")")")
build_binds="$PWD:/build/scanbridge $toolchain:$toolchain"
# This workplace's copies of the Swift packages, and git's note of where they are.
[ ! -d /opt/swift-packages ] || build_binds="$build_binds /opt/swift-packages:/opt/swift-packages"

prepare_build_root() {
    if [ ! -f "$build_root/.ready" ]; then
        rm -rf "$build_root"
        fresh "$build_root"
        apt_in "$build_root" update >/dev/null
        # The toolchain's own needs (a C and C++ linker and headers, Foundation's libcurl and
        # libxml2, the driver's ncurses), the release's lintian, and patchelf for make dist.
        apt_in "$build_root" install --no-install-recommends build-essential dpkg-dev lintian libcurl4-openssl-dev \
            libxml2-dev libncurses-dev libedit-dev zlib1g-dev uuid-dev patchelf >/dev/null
        touch "$build_root/.ready"
    fi
    [ ! -f /etc/gitconfig ] || cp /etc/gitconfig "$build_root/etc/gitconfig"
    BINDS=$build_binds apt_in "$build_root" build-dep --no-install-recommends /build/scanbridge >/dev/null
}

in_build_root() {
    BINDS=$build_binds enter "$build_root" env -C /build/scanbridge \
        PATH="$toolchain/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$@"
}

build() {
    prepare_build_root
    rm -f "$build_root"/build/scanbridge_* "$build_root"/build/scanbridge-dbgsym_*
    echo "chroot: dpkg-buildpackage in $dist" >&2
    in_build_root env SCANBRIDGE_SCRATCH=".build/$dist" dpkg-buildpackage --build=binary --no-sign >&2
    local out=.build/deb/$dist
    rm -rf "$out" && mkdir -p "$out"
    mv "$build_root"/build/scanbridge_* "$build_root"/build/scanbridge-dbgsym_* "$out/" 2>/dev/null || true
    local package
    package=$(ls "$out"/scanbridge_*.deb)
    # Lintian of the release, at the pedantic level: only what debian/*.lintian-overrides
    # justifies may be reported, and the report is kept beside the package. One overrides file
    # serves both releases, whose lintians know different tags: an override only the other
    # release needs is not reported (unused, mismatched, or a tag this lintian no longer has).
    BINDS="$PWD/$out:/out" enter "$build_root" lintian --pedantic --display-info \
        --suppress-tags unused-override,mismatched-override,alien-tag \
        --fail-on error,warning,info,pedantic "/out/$(basename "$package")" | tee "$out/lintian.txt" >&2
    echo "$package"
}

case "$what" in
build) build ;;
dist)
    # The binaries of the package's build, with the release's own libZXing beside the decoder.
    build >/dev/null
    in_build_root env BIN=".build/$dist/release" GENERATE_MANUAL=".build/$dist/debug/generate-manual" packaging/dist.sh
    ;;
test)
    package=$(ls .build/deb/"$dist"/scanbridge_*.deb 2>/dev/null) \
        || { echo "chroot: no package for $dist: packaging/chroot.sh build $dist first" >&2; exit 1; }
    root=$(mktemp -d "$cache/$dist-test.XXXXXX")
    trap 'rm -rf "$root"' EXIT
    fresh "$root"
    apt_in "$root" update >/dev/null
    mkdir -p "$root/check"
    cp packaging/check.sh "$package" "$root/check/"
    args=("/check/$(basename "$package")")
    if [ -n "${PREVIOUS:-}" ]; then
        cp "$PREVIOUS" "$root/check/" && args+=("/check/$(basename "$PREVIOUS")")
    fi
    echo "chroot: packaging/check.sh in a clean $dist"
    enter "$root" /check/check.sh "${args[@]}"
    ;;
test-dist)
    tarball=$(ls .build/dist/scanbridge-*-linux-*.tar.gz 2>/dev/null) \
        || { echo "chroot: no tarball: make dist first" >&2; exit 1; }
    root=$(mktemp -d "$cache/$dist-test.XXXXXX")
    trap 'rm -rf "$root"' EXIT
    fresh "$root"
    apt_in "$root" update >/dev/null
    libraries=$(tar -xzOf "$tarball" --wildcards '*/README' \
        | sed -n "s/^  Debian $release: apt-get install --no-install-recommends //p")
    [ -n "$libraries" ] || { echo "chroot: the tarball's README lists no libraries for Debian $release" >&2; exit 1; }
    # shellcheck disable=SC2086 # a list of package names
    apt_in "$root" install --no-install-recommends $libraries >/dev/null
    enter "$root" useradd --create-home tester
    home=$root/home/tester
    cp "$tarball" "$tarball.sha256" packaging/check-dist.sh "$home/"
    mkdir -p "$home/frames"
    qrencode -s 6 -m 4 -o "$home/frames/order.png" "https://app.repairminder.com/orders/ord_1002"
    enter "$root" chown -R tester:tester /home/tester
    echo "chroot: packaging/check-dist.sh in a clean $dist, as a user"
    enter "$root" setpriv --reuid=tester --regid=tester --init-groups env HOME=/home/tester \
        /home/tester/check-dist.sh "/home/tester/$(basename "$tarball")" /home/tester/frames
    ;;
shell)
    dir=${3:?usage: packaging/chroot.sh shell DIST DIR CMD...}
    shift 3
    [ -d "$dir/usr" ] || fresh "$dir"
    enter "$dir" "$@"
    ;;
*) echo "$usage" >&2; exit 64 ;;
esac
