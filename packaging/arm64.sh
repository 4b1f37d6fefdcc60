#!/usr/bin/env bash
# `packaging/arm64.sh`: scanbridged and scanbridge for arm64 (aarch64), cross-compiled on an
# amd64 machine, then the daemon's end-to-end smoke run under qemu-aarch64 (docs/arm64.md).
#
#   1. A Debian sid amd64 chroot holding Debian's own Swift (swiftlang): the only Debian
#      release whose Swift is new enough for Package.swift (tools 6.1, package traits).
#      Beside it, the arm64 build of the same swiftlang version unpacked (never installed: it
#      cannot be co-installed with the amd64 one): its aarch64 standard library, Foundation and
#      Dispatch, as modules and static libraries, and the aarch64 glibc module map.
#   2. An arm64 chroot of TARGET_DIST (default trixie, Debian 13) made by debootstrap, whose
#      second stage runs through qemu-aarch64 (binfmt_misc): its glibc, libstdc++ and the
#      build dependencies' arm64 -dev packages are the sysroot the binaries are linked against,
#      so they run on that release; it is also where the smoke runs.
#   3. A Swift SDK bundle in the build chroot ties the two: the target triple, the sysroot, the
#      aarch64 resource folders, lld as the linker (binutils' ld links only amd64).
#   4. swift build --swift-sdk for each product, in .build/arm64-TARGET_DIST of the checkout.
#   5. The smoke in the arm64 chroot: the daemon on a mock barcode scanner, a subscriber
#      watching, a scan injected, the scan seen by the subscriber, SIGTERM, exit status 0.
#
# Both chroots are cached in SCANBRIDGE_CHROOTS (default /var/cache/scanbridge/chroots), each
# made once (a .ready file marks a finished one), as are SwiftPM's build folder and the SDK:
# a second run rebuilds only what changed. Each step's time is printed at the end.
#
# CONFIG=debug|release (default release, as shipped; either links the Swift runtime in);
# PRODUCTS (default "scanbridged scanbridge"; scanbridge-zxing may be added);
# TARGET_DIST=trixie|sid; DEBIAN_MIRROR. Needs root (debootstrap, chroot, binfmt_misc),
# debootstrap and qemu-user-static on the host. Builds run under nice.
set -euo pipefail
cd "$(dirname "$0")/.."

cache=${SCANBRIDGE_CHROOTS:-/var/cache/scanbridge/chroots}
# shellcheck source=packaging/chroot-lib.sh
. packaging/chroot-lib.sh
# sid's Release file is valid for a week only; a mirror or archive snapshot a few weeks old is
# still what the two Swift builds are taken from, so its date is not checked.
APT_OPTIONS="-o Acquire::Check-Valid-Until=false"
target_dist=${TARGET_DIST:-trixie}
config=${CONFIG:-release}
products=${PRODUCTS:-scanbridged scanbridge}
build_root=$cache/sid-amd64-swift
target_root=$cache/$target_dist-arm64
triple=aarch64-unknown-linux-gnu
sdk_id=aarch64-debian-$target_dist
scratch=.build/arm64-$target_dist

fail() { echo "arm64: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "debootstrap, chroot and binfmt_misc need root"
command -v debootstrap >/dev/null || fail "debootstrap is missing (apt-get install debootstrap)"
[ -x /usr/bin/qemu-aarch64-static ] || fail "qemu-aarch64-static is missing (apt-get install qemu-user-static binfmt-support)"
case "$config" in debug | release) ;; *) fail "CONFIG is debug or release" ;; esac
# sid's Swift runtime, linked in, calls glibc 2.38's functions (the C23 strtol family, strlcpy):
# Debian 12's glibc is 2.36.
case "$target_dist" in
bookworm) fail "Debian 12's glibc is older than the one sid's Swift runtime was built for (2.38)" ;;
esac
mkdir -p "$cache"

timings=()
# Runs "$@" as one named step, and notes how long it took.
step() {
    local name=$1 start=$SECONDS
    shift
    echo "arm64: $name" >&2
    "$@"
    timings+=("$(printf '  %-44s %6d s' "$name" $((SECONDS - start)))")
}

# The kernel runs aarch64 programs through qemu-aarch64-static. The F flag (binfmt-support's
# default for qemu-user-static) opens the interpreter when it is registered, so the chroots
# need no copy of it.
binfmt() {
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64
    grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 || fail "binfmt_misc's qemu-aarch64 entry is disabled"
    grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 \
        || fail "binfmt_misc's qemu-aarch64 entry lacks the F flag: a chroot could not find the interpreter"
}

# The build dependencies (debian/control's Build-Depends, less debhelper's, git and the
# pkg-config tool, which run on the build machine), as arm64 packages. g++ brings the
# release's libstdc++ headers and the C runtime start files (crtbegin.o) of its GCC.
target_packages="g++ libpcsclite-dev libpng-dev libseccomp-dev libsqlite3-dev libssl-dev libturbojpeg0-dev
    libudev-dev libusb-1.0-0-dev libxkbcommon-dev libzxing-dev xkb-data"

prepare_target_root() {
    [ -f "$target_root/.ready" ] && return 0
    bootstrap "$target_dist" arm64 "$target_root" || fail "no $target_dist arm64 chroot"
    apt_in "$target_root" update >/dev/null
    # shellcheck disable=SC2086 # a list of package names
    apt_in "$target_root" install --no-install-recommends $target_packages >/dev/null
    apt_in "$target_root" clean
    touch "$target_root/.ready"
}

# Debian's Swift for amd64 and, unpacked in /opt/swift-aarch64, the arm64 build of the same
# version: swift-frontend reads only modules of its own version, so the two must match.
prepare_build_root() {
    [ -f "$build_root/.ready" ] && return 0
    bootstrap sid amd64 "$build_root"
    enter "$build_root" dpkg --add-architecture arm64
    apt_in "$build_root" update >/dev/null
    # build-essential: the package manifest and SwiftPM's build plugins are built for, and
    # run on, amd64. git: SwiftPM resolves the dependencies with it.
    apt_in "$build_root" install --no-install-recommends swiftlang build-essential git pkgconf ca-certificates >/dev/null
    local version
    # shellcheck disable=SC2016 # dpkg-query's format
    version=$(enter "$build_root" dpkg-query -W -f='${Version}' swiftlang)
    enter "$build_root" bash -c "rm -rf /opt/swift-aarch64 /tmp/arm64 && mkdir -p /opt/swift-aarch64 /tmp/arm64 && cd /tmp/arm64 \
        && apt-get download -q -o APT::Sandbox::User=root -o Acquire::Check-Valid-Until=false swiftlang:arm64=$version \
        && dpkg-deb -x swiftlang_*_arm64.deb /opt/swift-aarch64" \
        || fail "sid has no arm64 swiftlang $version (the two architectures' builds can differ for a while)"
    apt_in "$build_root" clean
    touch "$build_root/.ready"
}

# The Swift SDK bundle (SwiftPM's cross-compilation description), written each run: the
# sysroot is the arm64 chroot, bound at /sysroot in the build chroot.
write_sdk() {
    local bundle=$build_root/opt/swift-sdks/$sdk_id.artifactbundle
    rm -rf "$bundle"
    mkdir -p "$bundle/$sdk_id"
    cat > "$bundle/info.json" <<EOF
{
  "schemaVersion": "1.0",
  "artifacts": {
    "$sdk_id": { "type": "swiftSDK", "version": "1", "variants": [ { "path": "$sdk_id" } ] }
  }
}
EOF
    cat > "$bundle/$sdk_id/swift-sdk.json" <<EOF
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "$triple": {
      "sdkRootPath": "/sysroot",
      "swiftResourcesPath": "/sysroot/usr/lib/swift",
      "swiftStaticResourcesPath": "/sysroot/usr/lib/swift_static",
      "toolsetPaths": [ "toolset.json" ]
    }
  }
}
EOF
    # lld, Swift's own, links (binutils' ld is the build machine's): swiftc links every product.
    cat > "$bundle/$sdk_id/toolset.json" <<EOF
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": [ "-use-ld=lld" ] }
}
EOF
}

# pkg-config answers for the arm64 sysroot: its .pc files, its paths prefixed with /sysroot.
# SwiftPM reads .pc files itself, from PKG_CONFIG_PATH (not PKG_CONFIG_LIBDIR).
build_env=(PKG_CONFIG_SYSROOT_DIR=/sysroot
    PKG_CONFIG_PATH=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig)
# The aarch64 resource folders are bound where a Swift SDK's sysroot has them: the driver
# looks for the static runtime's swiftrt.o in SYSROOT/usr/lib/swift_static whatever the SDK
# says (swiftStaticResourcesPath is not passed to the link). Their clang folders are relative
# links to ../clang/17: it is bound beside them.
swift_aarch64=$build_root/opt/swift-aarch64/usr/libexec/swift/lib
build_binds="$PWD:/build/scanbridge $target_root:/sysroot $swift_aarch64/swift:/sysroot/usr/lib/swift
    $swift_aarch64/swift_static:/sysroot/usr/lib/swift_static $swift_aarch64/clang:/sysroot/usr/lib/clang"
# This workplace's copies of the Swift packages, and git's note of where they are.
[ ! -d /opt/swift-packages ] || build_binds="$build_binds /opt/swift-packages:/opt/swift-packages"

swift_build() {
    [ ! -f /etc/gitconfig ] || cp /etc/gitconfig "$build_root/etc/gitconfig"
    # The Swift runtime linked in, in either configuration: the arm64 system has no Swift.
    local flags=(--swift-sdks-path /opt/swift-sdks --swift-sdk "$sdk_id" --scratch-path "$scratch" -c "$config"
        --static-swift-stdlib)
    BINDS=$build_binds enter "$build_root" env -C /build/scanbridge "${build_env[@]}" \
        nice -n 10 swift build "${flags[@]}" --product "$1"
}

bin_path() {
    BINDS=$build_binds enter "$build_root" env -C /build/scanbridge \
        swift build --swift-sdks-path /opt/swift-sdks --swift-sdk "$sdk_id" --scratch-path "$scratch" -c "$config" --show-bin-path
}

# The daemon's smoke, in the arm64 chroot (every program there, bash included, runs through
# qemu-aarch64): mock devices, a subscriber, a scan, SIGTERM.
smoke() {
    local bin=$1
    rm -rf "$target_root/smoke"
    mkdir -p "$target_root/smoke"
    for product in scanbridged scanbridge; do cp "$bin/$product" "$target_root/smoke/"; done
    # shellcheck disable=SC2016 # expanded by the chroot's bash
    enter "$target_root" bash -euo pipefail -c '
        D=$(mktemp -d)
        cd /smoke
        echo "smoke: uname -m says $(uname -m)"
        export CONFIGURATION_DIRECTORY=$D/no-config SCANBRIDGE_SOCKET=$D/s.sock
        ./scanbridged --drivers mock --mock barcode:till-1 --socket $D/s.sock --database $D/db.sqlite 2>$D/daemon.log &
        daemon=$!
        start=$SECONDS
        until ./scanbridge devices >/dev/null 2>&1; do
            kill -0 $daemon 2>/dev/null || { cat $D/daemon.log; echo "smoke: the daemon died" >&2; exit 1; }
            [ $((SECONDS - start)) -lt 120 ] || { cat $D/daemon.log; echo "smoke: the daemon did not answer in 120 s" >&2; exit 1; }
            sleep 0.5
        done
        echo "smoke: the daemon answered after $((SECONDS - start)) s"
        ./scanbridge devices
        ./scanbridge watch --json --since 0 > $D/events 2>$D/watch.log &
        watcher=$!
        # Time for the subscriber to connect, so that the scan reaches it live (with
        # --since 0 it would otherwise come as the replay of the journal).
        sleep 2
        ./scanbridge inject till-1 5901234123457
        start=$SECONDS
        until grep -q 5901234123457 $D/events; do
            [ $((SECONDS - start)) -lt 60 ] || { cat $D/watch.log $D/daemon.log; echo "smoke: no event in 60 s" >&2; exit 1; }
            sleep 0.5
        done
        echo "smoke: the subscriber got: $(grep 5901234123457 $D/events | head -1)"
        kill $watcher 2>/dev/null || true
        kill -TERM $daemon
        status=0
        wait $daemon || status=$?
        [ $status -eq 0 ] || { cat $D/daemon.log; echo "smoke: the daemon exited $status on SIGTERM" >&2; exit 1; }
        echo "smoke: the daemon exited 0 on SIGTERM"
    '
}

total=$SECONDS
step "binfmt_misc: qemu-aarch64" binfmt
step "chroot: sid amd64 with swiftlang" prepare_build_root
step "chroot: $target_dist arm64 (sysroot, smoke)" prepare_target_root
step "Swift SDK bundle" write_sdk
echo "arm64: $(enter "$build_root" swift --version 2>&1 | head -1)" >&2
for product in $products; do
    step "swift build -c $config --product $product" swift_build "$product"
done
bin=$(bin_path)
bin=${bin#/build/scanbridge/}
! command -v file >/dev/null || for product in $products; do file "$bin/$product"; done
step "smoke under qemu-aarch64" smoke "$bin"
timings+=("$(printf '  %-44s %6d s' total $((SECONDS - total)))")
echo "arm64: times on $(nproc) cores:"
printf '%s\n' "${timings[@]}"
