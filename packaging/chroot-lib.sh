# shellcheck shell=bash
# Sourced by packaging/chroot.sh and packaging/arm64.sh: making a Debian chroot and running
# commands in it. Needs root. Set DEBIAN_MIRROR to use another archive, APT_OPTIONS for
# options every apt-get in a chroot takes.
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# A minimal Debian DIST for ARCH in DIR (made anew), with a policy-rc.d: a package's postinst
# starts nothing in a chroot, whose own /run has no systemd in it either.
bootstrap() {
    local dist=$1 arch=$2 dir=$3
    rm -rf "$dir"
    mkdir -p "$dir"
    # The root of a system: its users (man-db's, the daemon's) walk through it.
    chmod 0755 "$dir"
    echo "debootstrap $dist ($arch) from $mirror" >&2
    if ! debootstrap --arch="$arch" --variant=minbase "$dist" "$dir" "$mirror" > "$dir.log" 2>&1; then
        tail -20 "$dir.log" >&2
        echo "debootstrap $dist $arch failed (log: $dir.log)" >&2
        return 1
    fi
    rm -f "$dir.log"
    printf '#!/bin/sh\nexit 101\n' > "$dir/usr/sbin/policy-rc.d"
    chmod 0755 "$dir/usr/sbin/policy-rc.d"
}

# Runs "$@" in the chroot at $1 with /proc, /sys, /dev, and a /run and /tmp of its own, in a
# mount namespace of its own, gone when the command ends; BINDS lists further
# "host-path:chroot-path" mounts.
enter() {
    local root=$1
    shift
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    # shellcheck disable=SC2016 # expanded by the inner bash
    unshare --mount --propagation private -- bash -euo pipefail -c '
        root=$1; binds=$2; shift 2
        mount -t proc proc "$root/proc"
        mount --rbind /sys "$root/sys"
        mount --rbind /dev "$root/dev"
        mount -t tmpfs tmpfs "$root/run"
        mount -t tmpfs tmpfs "$root/tmp"
        for bind in $binds; do
            mkdir -p "$root${bind#*:}"
            mount --bind "${bind%%:*}" "$root${bind#*:}"
        done
        exec chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            HOME=/root LANG=C.UTF-8 "$@"
    ' enter "$root" "${BINDS:-}" "$@"
}

# apt-get in the chroot at $1, unattended. Its downloads run as root: the chroot's _apt user
# cannot write the folders bound in.
apt_in() {
    local root=$1
    shift
    # shellcheck disable=SC2086 # APT_OPTIONS is a list of options
    enter "$root" env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Use-Pty=0 -o APT::Sandbox::User=root \
        ${APT_OPTIONS:-} "$@"
}
