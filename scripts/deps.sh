#!/usr/bin/env bash
# Installs the Debian packages ScanBridge needs, when they are missing, and checks for Swift.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail

packages=(libsqlite3-dev util-linux "$@")
# The tests run the Python example handler (standard library only), and the hardware lab's
# guest runs scripts with /usr/bin/python3 (the host's root is the guest's): Debian's python3.
packages+=(python3)
# The PC/SC driver links libpcsclite; its tests run the real pcscd with vsmartcard's virtual
# reader (vpcd), and the benchmark compares with pcsc_scan (pcsc-tools). The hardware lab's
# guest runs the host's pcscd with libccid (USB CCID readers) for QEMU's usb-ccid reader.
# A second PC/SC client holding a reader exclusively in the tests is Perl's Chipcard::PCSC.
packages+=(libpcsclite-dev pcscd vsmartcard-vpcd pcsc-tools libccid libpcsc-perl)
# The keyboard-wedge driver decodes keys in the scanner's layout with libxkbcommon and
# xkb-data's layouts.
packages+=(libxkbcommon-dev xkb-data)
# Scanners (and cameras) are found and followed through libudev.
packages+=(libudev-dev)
# The camera driver decodes frames with libzbar (barcodes, QR) and libdmtx (Data Matrix),
# and its file camera reads PNG frames with libpng. Its tests and the demo draw labels with
# qrencode and zint, as does the camera benchmark, whose baseline is zbar-tools' zbarimg.
# Its v4l2 driver decodes USB cameras' MJPEG frames with libjpeg-turbo's TurboJPEG API
# (libturbojpeg0-dev; its tests make JPEGs with it too).
packages+=(libzbar-dev libdmtx-dev libpng-dev libturbojpeg0-dev qrencode zint zbar-tools)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
    echo "Installing Debian packages: ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The hardware lab (Tests/HardwareLab) boots a QEMU guest. Its packages are installed when
# they can be; when they cannot, the lab's tests are skipped with the reason, not failed.
lab_packages=(qemu-system-x86 busybox-static kmod v4l-utils)
lab_missing=()
for package in "${lab_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || lab_missing+=("$package")
done
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
# The lab fetches the guest's kernel with apt-get download, which needs the package lists.
if ((${#lab_missing[@]})) || ! apt-cache show linux-image-amd64 >/dev/null 2>&1; then
    $sudo apt-get update -qq || echo "apt-get update failed: the hardware lab may be skipped" >&2
fi
if ((${#lab_missing[@]})); then
    echo "Installing Debian packages for the hardware lab: ${lab_missing[*]}"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${lab_missing[@]}" \
        || echo "Could not install ${lab_missing[*]}: the hardware lab's tests will be skipped" >&2
fi

# The browser tests (the counter page, scanbridge.mjs, the WebDriver kit) drive Debian's
# headless Chromium through chromedriver. Installed when they can be; when they cannot, those
# tests are skipped with the reason, not failed.
browser_packages=(chromium chromium-driver)
browser_missing=()
for package in "${browser_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || browser_missing+=("$package")
done
if ((${#browser_missing[@]})); then
    echo "Installing Debian packages for the browser tests: ${browser_missing[*]}"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${browser_missing[@]}" \
        || echo "Could not install ${browser_missing[*]}: the browser tests will be skipped" >&2
fi

if ! command -v swift >/dev/null 2>&1; then
    if [ -x /opt/swift/usr/bin/swift ]; then
        echo "Swift is in /opt/swift/usr/bin but not on PATH: export PATH=/opt/swift/usr/bin:\$PATH" >&2
    else
        echo "Swift 6 is not installed: get a Swift 6.1+ toolchain for Linux and put it on PATH." >&2
    fi
    exit 1
fi
