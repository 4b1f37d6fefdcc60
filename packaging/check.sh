#!/usr/bin/env bash
# `make test-package`: installs the package `make deb` built on this machine, checks what a
# counter box gets (the user and groups, the socket's folder, units enabled, binaries that
# run without the Swift toolchain, the daemon run by its unit, or as its unit would run it
# where systemd does not run the machine, a client in the clients' group reaching it on the
# system socket), then removes and purges it.
# Changes the machine: run it in a throwaway one.
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" -eq 0 ] || { echo "check: installing a package needs root" >&2; exit 1; }
package=$(ls -t .build/deb/scanbridge_*.deb | head -1)
fail() { echo "check: $*" >&2; exit 1; }

DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "./$package" >/dev/null
daemon=
cleanup() {
    [ -z "$daemon" ] || kill -KILL "$daemon" 2>/dev/null || true
    userdel scanbridge-check 2>/dev/null || true
    dpkg --purge scanbridge >/dev/null 2>&1 || true
}
trap cleanup EXIT

getent passwd scanbridge >/dev/null || fail "no user scanbridge"
for group in scanbridge scanbridge-devices scanbridge-users scanbridge-operator scanbridge-admin; do
    getent group "$group" >/dev/null || fail "no group $group"
done
[ "$(stat -c '%a %U %G' /run/scanbridge)" = "2750 scanbridge scanbridge-users" ] \
    || fail "/run/scanbridge is $(stat -c '%a %U %G' /run/scanbridge)"
[ -L /etc/systemd/system/sockets.target.wants/scanbridged.socket ] || fail "scanbridged.socket is not enabled"
[ -L /etc/systemd/system/multi-user.target.wants/scanbridged.service ] || fail "scanbridged.service is not enabled"
[ ! -e /etc/systemd/system/sockets.target.wants/scanbridged-http.socket ] || fail "the gateway's socket is enabled"
systemd-analyze verify --man=no /lib/systemd/system/scanbridged.service /lib/systemd/system/scanbridged.socket \
    /lib/systemd/system/scanbridged-http.socket

# Without the toolchain's libraries on any path: the Swift runtime is in the binaries.
version=$(env -i /usr/bin/scanbridge --version)
[ "$version" = "$(env -i /usr/bin/scanbridged --version)" ] || fail "the CLI and the daemon differ in version"

# A member of the clients' group, with no socket named, finds the system daemon and reads.
id scanbridge-check >/dev/null 2>&1 || useradd --system --no-create-home --groups scanbridge-users scanbridge-check
reads() {
    setpriv --reuid=scanbridge-check --regid=scanbridge-check --init-groups env -i /usr/bin/scanbridge devices --json \
        | grep -q '"mock:till-1"'
}

if [ -d /run/systemd/system ]; then
    # systemd runs this machine: the hardened unit itself, on mock devices, through its socket.
    mkdir -p /run/systemd/system/scanbridged.service.d
    printf '[Service]\nExecStart=\nExecStart=/usr/bin/scanbridged --drivers mock --mock barcode:till-1\n' \
        > /run/systemd/system/scanbridged.service.d/check.conf
    systemctl daemon-reload
    systemctl restart scanbridged.service
    reads || fail "a reader cannot list the devices: $(journalctl -u scanbridged -n 20 --no-pager)"
    systemctl is-active --quiet scanbridged.service || fail "the service is not active"
    rm -r /run/systemd/system/scanbridged.service.d
    systemctl daemon-reload
else
    # No systemd (a container): the daemon as the unit would run it, as its user, with its
    # groups, folders and environment; the unit's confinement is the hardware lab's to test.
    install -d -o scanbridge -g scanbridge -m 0750 /var/lib/scanbridge
    setpriv --reuid=scanbridge --regid=scanbridge --init-groups \
        env -i STATE_DIRECTORY=/var/lib/scanbridge CONFIGURATION_DIRECTORY=/etc/scanbridge \
        SCANBRIDGE_SOCKET=/run/scanbridge/scanbridge.sock \
        /usr/bin/scanbridged --drivers mock --mock barcode:till-1 2>/tmp/scanbridged-check.log &
    daemon=$!
    for _ in $(seq 100); do [ -S /run/scanbridge/scanbridge.sock ] && break; sleep 0.1; done
    [ "$(stat -c '%a %G' /run/scanbridge/scanbridge.sock)" = "660 scanbridge-users" ] \
        || fail "the socket is $(stat -c '%a %G' /run/scanbridge/scanbridge.sock): $(cat /tmp/scanbridged-check.log)"
    reads || fail "a reader cannot list the devices: $(cat /tmp/scanbridged-check.log)"
    kill -TERM "$daemon"
    wait "$daemon" || fail "the daemon did not stop cleanly: $(cat /tmp/scanbridged-check.log)"
    daemon=
fi
userdel scanbridge-check

dpkg --remove scanbridge >/dev/null
[ ! -e /usr/bin/scanbridged ] || fail "removing left /usr/bin/scanbridged"
[ -e /etc/scanbridge/scanbridge.yaml ] || fail "removing took the configuration"
dpkg --purge scanbridge >/dev/null
[ ! -e /etc/scanbridge/scanbridge.yaml ] && [ ! -e /var/lib/scanbridge ] || fail "purging left files"
echo "check: $package installs, runs and goes"
