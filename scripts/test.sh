#!/usr/bin/env bash
# `make test`: the phases of the test run (docs/testing.md, Running the tests), each timed,
# its output kept in .build/test-logs/. Ends with each phase's time, the 25 slowest tests and
# every skipped suite or test with its reason; exits non-zero when a phase failed.
#
#   lint      the code follows .swift-format, beside the build (one core is enough for it)
#   build     everything, with the explicit-import check
#   suites    every test but the hardware lab's, SCANBRIDGE_TEST_WIDTH tests at a time
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

lint() { $SWIFT format lint --strict --recursive --parallel Sources Plugins Tests Benchmarks Fuzz Package.swift; }
lint >"$logs/lint.log" 2>&1 &
linting=$!
lint_start=$(date +%s)
phase build $SWIFT build --build-tests --explicit-target-dependency-import-check error || exit 1
wait $linting
lint_status=$?
times=("$(printf '%-8s %5ss  %s' lint $(($(date +%s) - lint_start)) "$([ $lint_status = 0 ] && echo ok || echo FAILED)")" "${times[@]}")
if [ $lint_status != 0 ]; then
    cat "$logs/lint.log"
    failed+=(lint)
    exit 1
fi

phase suites $SWIFT test --skip-build --skip HardwareLab || exit 1

phase lab $SWIFT test --skip-build --filter HardwareLab || exit 1
