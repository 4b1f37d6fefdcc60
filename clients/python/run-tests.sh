#!/usr/bin/env bash
# Tests the Python client against this checkout's daemon and CLI (.build/debug, or
# SCANBRIDGE_BIN_DIR): installs the package into a venv in .build/python-venv and runs its
# tests with pytest, through the package's own fixture. Arguments go to pytest.
#
# Offline by design: pytest, and jsonschema for the contract's tests, are Debian's python3-pytest
# and python3-jsonschema (scripts/deps.sh test installs them), seen through the venv's system
# site packages, and the package is built with Debian's setuptools and wheel, never fetched
# from PyPI. A missing part skips the run, or fails it under CI=true.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${SCANBRIDGE_BIN_DIR:-$root/.build/debug}
venv=$root/.build/python-venv
python=${PYTHON:-/usr/bin/python3}

missing=()
[ -x "$bin/scanbridged" ] || missing+=("$bin/scanbridged (swift build)")
[ -x "$bin/scanbridge" ] || missing+=("$bin/scanbridge (swift build)")
[ -x "$python" ] || missing+=("$python (python3)")
"$python" -c 'import ensurepip, venv' 2>/dev/null || missing+=("the venv module (python3-venv)")
"$python" -c 'import pytest, setuptools, wheel, jsonschema' 2>/dev/null \
    || missing+=("pytest, setuptools, wheel and jsonschema for $python (python3-pytest python3-setuptools python3-wheel python3-jsonschema)")
if ((${#missing[@]})); then
    if [ "${CI:-}" = true ]; then
        printf 'Python client tests: missing %s\n' "${missing[@]}" >&2
        exit 1
    fi
    printf 'Python client tests skipped: missing %s\n' "${missing[@]}"
    exit 0
fi

# A venv made by another Python (or left half-made) is made again.
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import pytest' 2>/dev/null; then
    rm -rf "$venv"
    "$python" -m venv --system-site-packages "$venv"
fi
# Built in a copy, so the checkout gets no build/ or egg-info of setuptools'.
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cp -r "$here/pyproject.toml" "$here/README.md" "$here/src" "$build/"
"$venv/bin/python" -m pip install --quiet --no-index --no-build-isolation --no-deps --force-reinstall "$build"

cd "$here"
SCANBRIDGE_DAEMON=$bin/scanbridged SCANBRIDGE_CLI=$bin/scanbridge \
    "$venv/bin/python" -m pytest -p no:cacheprovider -ra "$@"
