#!/usr/bin/env bash
# `make test-package`: run by packaging/chroot.sh in a clean chroot of the package's release.
# Usage: check.sh NEW.deb [PREVIOUS.deb]
# Installs PREVIOUS with apt (the release's archive gives its dependencies), runs the daemon as
# its unit would, changes the configuration and leaves state behind, then upgrades to NEW and
# checks what a counter box gets: the operator's configuration and the journal kept, the user
# and groups, the socket's folder, the units enabled, binaries that run without the Swift
# toolchain, the daemon running as its user, a client of the clients' group reaching it on the
# system socket. Then removes and purges it. Without PREVIOUS, the upgrade starts from NEW
# itself restamped as the version before it in debian/changelog (0.1.0 was never packaged for
# Debian 13, so no older package installs there); the systemd unit's own confinement is the
# hardware lab's to test, under a real systemd.
set -euo pipefail

new=${1:?usage: check.sh NEW.deb [PREVIOUS.deb]}
previous=${2:-}
fail() { echo "check: $*" >&2; exit 1; }
install_package() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends "$1" >/dev/null; }

new_version=$(dpkg-deb -f "$new" Version)
if [ -z "$previous" ]; then
    work=$(mktemp -d)
    dpkg-deb -R "$new" "$work/root"
    before=$(zcat "$work/root/usr/share/doc/scanbridge/changelog.gz" | sed -n 's/^scanbridge (\(.*\)).*/\1/p' | sed -n 2p)
    [ -n "$before" ] || fail "debian/changelog names no version before $new_version"
    sed -i "s/^Version: .*/Version: $before/" "$work/root/DEBIAN/control"
    previous=$work/scanbridge_${before}_restamped.deb
    dpkg-deb --root-owner-group -Znone --build "$work/root" "$previous" >/dev/null
fi
previous_version=$(dpkg-deb -f "$previous" Version)
dpkg --compare-versions "$previous_version" lt "$new_version" || fail "$previous_version is not older than $new_version"

daemon=
stop_daemon() {
    [ -n "$daemon" ] || return 0
    kill -TERM "$daemon"
    wait "$daemon" || fail "the daemon did not stop cleanly: $(cat /tmp/scanbridged.log)"
    daemon=
}
trap '[ -z "$daemon" ] || kill -KILL "$daemon" 2>/dev/null || true' EXIT

# The daemon as its unit runs it, as its user, with its groups, folders and environment.
start_daemon() {
    setpriv --reuid=scanbridge --regid=scanbridge --init-groups \
        env -i STATE_DIRECTORY=/var/lib/scanbridge CONFIGURATION_DIRECTORY=/etc/scanbridge \
        SCANBRIDGE_SOCKET=/run/scanbridge/scanbridge.sock \
        /usr/bin/scanbridged --drivers mock --mock barcode:till-1 2>/tmp/scanbridged.log &
    daemon=$!
    for _ in $(seq 100); do [ -S /run/scanbridge/scanbridge.sock ] && return 0; sleep 0.1; done
    fail "no socket: $(cat /tmp/scanbridged.log)"
}

# A member of the clients' group, with no socket named, finds the system daemon and reads.
id scanbridge-check >/dev/null 2>&1 || useradd --system --no-create-home scanbridge-check
as_client() { setpriv --reuid=scanbridge-check --regid=scanbridge-check --init-groups env -i /usr/bin/scanbridge "$@"; }

echo "check: install $previous_version"
install_package "$previous"
install -d -o scanbridge -g scanbridge -m 0750 /var/lib/scanbridge
start_daemon
stop_daemon
journal=$(find /var/lib/scanbridge -type f | sort)
[ -n "$journal" ] || fail "the daemon left nothing in /var/lib/scanbridge"
echo "# an operator's line" >> /etc/scanbridge/scanbridge.yaml

echo "check: upgrade to $new_version"
install_package "$new"
[ "$(dpkg-query -W -f '${Version}' scanbridge)" = "$new_version" ] || fail "the upgrade left $(dpkg-query -W -f '${Version}' scanbridge)"
grep -q "^# an operator's line" /etc/scanbridge/scanbridge.yaml || fail "the upgrade replaced the operator's configuration"
[ "$(find /var/lib/scanbridge -type f | sort)" = "$journal" ] || fail "the upgrade lost the daemon's state"
# The configuration changed above is the one file that may differ from the package's md5sums.
changed=$(dpkg --verify scanbridge | grep -v ' c /etc/scanbridge/scanbridge.yaml$' || true)
[ -z "$changed" ] || fail "installed files differ from the package's md5sums: $changed"

getent passwd scanbridge >/dev/null || fail "no user scanbridge"
for group in scanbridge scanbridge-devices scanbridge-users scanbridge-operator scanbridge-admin; do
    getent group "$group" >/dev/null || fail "no group $group"
done
[ "$(stat -c '%a %U %G' /run/scanbridge)" = "2750 scanbridge scanbridge-users" ] \
    || fail "/run/scanbridge is $(stat -c '%a %U %G' /run/scanbridge)"
[ -L /etc/systemd/system/sockets.target.wants/scanbridged.socket ] || fail "scanbridged.socket is not enabled"
[ -L /etc/systemd/system/multi-user.target.wants/scanbridged.service ] || fail "scanbridged.service is not enabled"
[ ! -e /etc/systemd/system/sockets.target.wants/scanbridged-http.socket ] || fail "the gateway's socket is enabled"
units=$(dpkg -L scanbridge | grep '/systemd/system/scanbridged')
# shellcheck disable=SC2086 # one path a line, none with a space
systemd-analyze verify --man=no $units

# Without the toolchain's libraries on any path: the Swift runtime is in the binaries.
version=$(env -i /usr/bin/scanbridge --version)
[ "$version" = "$new_version" ] || fail "scanbridge --version says $version, the package $new_version"
[ "$(env -i /usr/bin/scanbridged --version)" = "$new_version" ] || fail "the CLI and the daemon differ in version"

start_daemon
[ "$(stat -c '%a %G' /run/scanbridge/scanbridge.sock)" = "660 scanbridge-users" ] \
    || fail "the socket is $(stat -c '%a %G' /run/scanbridge/scanbridge.sock)"
as_client devices --json >/dev/null 2>&1 && fail "a user outside scanbridge-users reached the daemon"
usermod --append --groups scanbridge-users scanbridge-check
as_client devices --json | grep -q '"mock:till-1"' || fail "a reader cannot list the devices: $(cat /tmp/scanbridged.log)"
hello=$(as_client call bridge.hello 2>/dev/null || true)
case "$hello" in *"\"$new_version\""*) ;; *) fail "bridge.hello does not say $new_version: $hello" ;; esac
stop_daemon
userdel scanbridge-check

echo "check: remove and purge"
dpkg --remove scanbridge >/dev/null
[ ! -e /usr/bin/scanbridged ] || fail "removing left /usr/bin/scanbridged"
[ -e /etc/scanbridge/scanbridge.yaml ] || fail "removing took the configuration"
[ -d /var/lib/scanbridge ] || fail "removing took the daemon's state"
dpkg --purge scanbridge >/dev/null
[ ! -e /etc/scanbridge/scanbridge.yaml ] || fail "purging left the configuration"
[ ! -e /var/lib/scanbridge ] || fail "purging left /var/lib/scanbridge"
echo "check: $previous_version → $new_version installed, upgraded, run, removed and purged"
