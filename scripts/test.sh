#!/usr/bin/env bash
# `make test`: the phases of the test run (docs/testing.md, Running the tests), each timed,
# its output kept in .build/test-logs/. Ends with each phase's time, the 25 slowest tests and
# every skipped suite or test with its reason; exits non-zero when a phase failed.
#
#   lint      the code follows .swift-format, beside the build (one core is enough for it)
#   types     the JavaScript client's types (scripts/check-types.sh), beside the build, in seconds
#   build     everything, with the explicit-import check
#   suites    every test but the hardware lab's, SCANBRIDGE_TEST_WIDTH tests at a time
#   python    the Python client's pytest tests against the built daemon (clients/python)
#   lab       the hardware lab alone: its guests type at a scanner's pace, and anything heavy
#             on the same cores (the suites' daemons, a build even at the lowest priority)
#             stretches them past the wedge's bounds and doubles the lab's time
#
# The fuzz targets' seeds are replayed in the suites (FuzzSeedTests); the sanitized libFuzzer
# runs are `make fuzz`'s, and the release package's build and checks `make test-package`'s.
set -uo pipefail
cd "$(dirname "$0")/.."
export SWIFT=${SWIFT:-swift}
logs=.build/test-logs
mkdir -p "$logs"
rm -f "$logs"/*.log

times=()
failed=()
# phase NAME COMMAND…: runs it with its output in $logs/NAME.log (and on this terminal).
phase() {
    local name=$1 start status
    shift
    start=$(date +%s)
    echo "== $name: $*"
    "$@" 2>&1 | tee "$logs/$name.log"
    status=${PIPESTATUS[0]}
    times+=("$(printf '%-8s %5ss  %s' "$name" $(($(date +%s) - start)) "$([ "$status" = 0 ] && echo ok || echo FAILED)")")
    [ "$status" = 0 ] || failed+=("$name")
    return "$status"
}

summary() {
    echo
    echo "== Phases"
    printf '%s\n' "${times[@]}"
    local results
    results=$(cat "$logs"/suites.log "$logs"/lab.log 2>/dev/null)
    echo
    echo "== The 25 slowest tests"
    grep -v '^. Test run with' <<<"$results" |
        sed -n 's/^. Test \(.*\) \(passed\|failed\) after \([0-9.]*\) seconds.*/\3 \1/p' |
        sort -rn | head -25 | awk '{ printf "%8.1fs  %s\n", $1, substr($0, index($0, " ") + 1) }'
    local skipped
    # A skip line ends with "skipped" or "skipped: reason"; a test whose name holds the word does not.
    skipped=$(grep -E '^. (Suite|Test) .* skipped(\.|: .*)?$' <<<"$results" | sed 's/^. //')
    if [ -n "$skipped" ]; then
        echo
        echo "== Skipped, with the reason"
        echo "$skipped"
    fi
    if ((${#failed[@]})); then
        echo
        echo "FAILED: ${failed[*]} (logs in $logs/)"
    fi
}
trap summary EXIT

# beside NAME COMMAND…: runs it in the background, beside the build, with its output in
# $logs/NAME.log; joined NAME waits for it and times it, and shows its output only when it failed.
declare -A beside_pid beside_start
beside() {
    local name=$1
    shift
    beside_start[$name]=$(date +%s)
    "$@" >"$logs/$name.log" 2>&1 &
    beside_pid[$name]=$!
}
joined() {
    local name=$1 status
    wait "${beside_pid[$name]}"
    status=$?
    times=("$(printf '%-8s %5ss  %s' "$name" $(($(date +%s) - beside_start[$name])) "$([ $status = 0 ] && echo ok || echo FAILED)")" "${times[@]}")
    [ $status = 0 ] && return 0
    cat "$logs/$name.log"
    failed+=("$name")
    return 1
}

lint() { $SWIFT format lint --strict --recursive --parallel Sources Plugins Tests Benchmarks Fuzz Package.swift; }
beside lint lint
beside types scripts/check-types.sh
phase build $SWIFT build --build-tests --explicit-target-dependency-import-check error || exit 1
joined types
joined lint
((${#failed[@]} == 0)) || exit 1

phase suites $SWIFT test --skip-build --skip HardwareLab || exit 1

phase python clients/python/run-tests.sh || exit 1

phase lab $SWIFT test --skip-build --filter HardwareLab || exit 1
