#!/usr/bin/env bash
# Installs the Debian packages a make target needs, when they are missing, and checks for Swift.
# Usage: scripts/deps.sh build|demo|test|bench|package|arm64
#   build    what compiling ScanBridge needs (`make build`)
#   demo     that, and what `make demo` shows with
#   test     that, and the tools the tests run against (`make test`)
#   bench    test's, and the old camera decoder the benchmark weighs zxing-cpp against (`make bench`)
#   package  build, and what makes and checks the Debian package and the tarball (`make deb`,
#            `make test-package`, `make dist`, `make test-dist`)
#   arm64    build, and what the arm64 cross build and its emulated smoke need (`make arm64`)
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-build}
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

# Swift first: without it nothing here can be built, so nothing is installed for it.
if ! command -v swift >/dev/null 2>&1; then
    if [ -x /opt/swift/usr/bin/swift ]; then
        echo "Swift is in /opt/swift/usr/bin but not on PATH: export PATH=/opt/swift/usr/bin:\$PATH" >&2
    else
        echo "Swift 6 is not installed: get a Swift 6.1+ toolchain for Linux and put it on PATH." >&2
    fi
    exit 1
fi
# Package traits, which the build uses, came with Swift 6.1: an older toolchain (Debian 13's
# swiftlang is 6.0) would fail only after the packages were installed.
swift_version=$(swift --version 2>&1 | sed -n 's/.*Swift version \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p' | head -1)
if [ -n "$swift_version" ]; then
    read -r major minor <<< "$swift_version"
    if [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 1 ]; }; then
        echo "Swift $major.$minor is too old: ScanBridge needs Swift 6.1 or later ($(command -v swift))." >&2
        exit 1
    fi
fi

# Build: debian/control's Build-Depends, the one list of what compiling ScanBridge needs, with
# why each is there; debhelper (and the sequences it provides) only where a package is made.
required=()
# Where a dependency has alternatives (pkgconf | pkg-config), one installed is enough; else the
# first the archive has is installed.
build_depends() {
    sed -n '/^Build-Depends:/,/^[A-Z]/p' debian/control | sed '$d; s/^Build-Depends://; s/([^)]*)//g; s/\[[^]]*\]//g' \
        | tr ',' '\n' | sed 's/^ *//; s/ *$//' | sed '/^$/d'
}
# Optional groups: installed when they can be; when they cannot, what needs them is skipped
# with the reason, not failed.
optional_groups=()

case "$what" in
build) ;;
demo)
    # The demo's file camera shows QR codes drawn with qrencode.
    required+=(qrencode)
    ;;
bench)
    # The camera benchmark weighs zxing-cpp against the decoder cameras had before (libzbar,
    # libdmtx; the daemon does not link them) and against zbar-tools' zbarimg. The rest of the
    # benchmark runs what the tests run.
    required+=(libzbar-dev libdmtx-dev zbar-tools)
    ;&
test)
    # The tests run the Python example handler (standard library only), and the hardware
    # lab's guest runs scripts with /usr/bin/python3 (the host's root is the guest's).
    required+=(util-linux python3)
    # The PC/SC tests run the real pcscd with vsmartcard's virtual reader (vpcd), and the
    # benchmark compares with pcsc_scan (pcsc-tools). The hardware lab's guest runs the host's
    # pcscd with libccid (USB CCID readers) for QEMU's usb-ccid reader. A second PC/SC client
    # holding a reader exclusively is Perl's Chipcard::PCSC.
    required+=(pcscd vsmartcard-vpcd pcsc-tools libccid libpcsc-perl)
    # The virtual NTAG 424 DNA (VirtualNTAG424) makes its Secure Unique NFC messages with
    # python3-cryptography, an AES and CMAC of its own beside the daemon's libcrypto calls.
    required+=(python3-cryptography)
    # The camera tests and the demo draw labels with qrencode and zint, as does the camera
    # benchmark.
    required+=(qrencode zint)
    # The shared store's tests start a private PostgreSQL server of their own from Debian's
    # binaries (TestPostgres): the machine's own cluster is not used. The TLS tests, the
    # store's and the gateway's, make their certificates with openssl; the snapshot's test
    # compares counters' copies with the sqlite3 shell.
    required+=(postgresql openssl sqlite3)
    # The service's units are checked by systemd-analyze and started by
    # systemd-socket-activate; the hardware lab's systemd guest installs the package of the
    # debug binaries, which debhelper makes (debian/rules).
    required+=(systemd dpkg-dev debhelper)
    # The JavaScript client's types are checked by Debian's TypeScript compiler
    # (scripts/check-types.sh). The Python client's tests (clients/python/run-tests.sh) run
    # offline: Debian's pytest, and the package built in a venv with Debian's setuptools and wheel;
    # they validate the daemon's answers against contract/openrpc.json with Debian's jsonschema.
    required+=(node-typescript python3-venv python3-pytest python3-setuptools python3-wheel python3-jsonschema)
    # The hardware lab (Tests/HardwareLab) boots a QEMU guest; NSS's certutil makes the
    # certificates of the virtual card QEMU's USB card reader holds.
    optional_groups+=("hardware lab:qemu-system-x86 busybox-static kmod v4l-utils libnss3-tools")
    # The browser tests drive Debian's headless Chromium through chromedriver.
    optional_groups+=("browser tests:chromium chromium-driver")
    ;;
package)
    # dpkg-buildpackage and debhelper make the package, lintian checks it, debootstrap makes the
    # chroot of each release it is built and tested in (packaging/chroot.sh); the tarball's
    # test shows its camera a QR code drawn with qrencode.
    required+=(dpkg-dev debhelper lintian debootstrap qrencode)
    ;;
arm64)
    # The arm64 chroots are made by debootstrap; their programs run through qemu-aarch64,
    # registered with binfmt_misc (packaging/arm64.sh).
    required+=(debootstrap qemu-user-static binfmt-support)
    ;;
*)
    echo "usage: scripts/deps.sh build|demo|test|bench|package|arm64" >&2
    exit 64
    ;;
esac

missing() {
    for package in "$@"; do
        installed "$package" || echo "$package"
    done
}

updated=no
update() {
    if [ $updated = no ]; then
        $sudo apt-get update -qq || echo "apt-get update failed" >&2
        updated=yes
    fi
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
while read -r dependency; do
    case "$dependency" in debhelper-compat | dh-sequence-*) continue ;; esac
    satisfied=no
    IFS='|' read -r -a choices <<< "$dependency"
    for choice in "${choices[@]}"; do
        if installed "${choice// /}"; then satisfied=yes; fi
    done
    if [ $satisfied = no ]; then
        choice=${choices[0]// /}
        for other in "${choices[@]}"; do
            if apt-cache show "${other// /}" >/dev/null 2>&1; then choice=${other// /}; break; fi
        done
        required+=("$choice")
    fi
done < <(build_depends)

mapfile -t absent < <(missing "${required[@]}")
if ((${#absent[@]})); then
    echo "Installing Debian packages: ${absent[*]}"
    update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${absent[@]}"
fi

for group in "${optional_groups[@]}"; do
    name=${group%%:*}
    read -r -a packages <<< "${group#*:}"
    mapfile -t absent < <(missing "${packages[@]}")
    if ((${#absent[@]})); then
        echo "Installing Debian packages for the $name: ${absent[*]}"
        update
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${absent[@]}" \
            || echo "Could not install ${absent[*]}: the $name will be skipped" >&2
    fi
done

# The lab fetches the guest's kernel with apt-get download, which needs the package lists.
if [ "$what" = test ] && ! apt-cache show linux-image-amd64 >/dev/null 2>&1; then
    update
fi
