#!/usr/bin/env bash
# `make test`: the phases of the test run (docs/testing.md, Running the tests), each timed,
# its output kept in .build/test-logs/. Ends with each phase's time, the 25 slowest tests and
# every skipped suite or test with its reason; exits non-zero when a phase failed.
#
#   lint      the code follows .swift-format, beside the build (one core is enough for it)
#   build     everything, with the explicit-import check
#   suites    every test but the hardware lab's, SCANBRIDGE_TEST_WIDTH tests at a time
#   lab       the hardware lab alone: its guests type at a scanner's pace, which the suites'
#             daemons, browsers and decoders on the same cores would stretch past the wedge's
#             bounds. Beside it, at the lowest priority, the fuzz targets' build and the make
#             targets in BESIDE_LAB (e.g. release-products; CI sets none), each in a
#             build folder of its own (SwiftPM lets one command at a time use a build folder)
#   fuzz      each fuzz target replays its seeds and runs FUZZ_TEST_SECONDS
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

# shellcheck disable=SC2016 # expanded by the inner shell
BESIDE_LAB=${BESIDE_LAB:-} nice -n 19 bash -c \
    'scripts/fuzz.sh --build-only && for target in $BESIDE_LAB; do make --no-print-directory "$target" || exit 1; done' \
    >"$logs/beside-lab.log" 2>&1 &
building=$!
beside_start=$(date +%s)
phase lab $SWIFT test --skip-build --filter HardwareLab
lab_status=$?
wait $building
beside_status=$?
times+=("$(printf '%-8s %5ss  %s' builds $(($(date +%s) - beside_start)) "$([ $beside_status = 0 ] && echo ok || echo FAILED)") (beside the lab: the fuzz targets ${BESIDE_LAB:-})")
if [ $beside_status != 0 ]; then
    tail -40 "$logs/beside-lab.log"
    failed+=(builds)
fi
[ $lab_status = 0 ] && [ $beside_status = 0 ] || exit 1

phase fuzz scripts/fuzz.sh --run-only "${FUZZ_TEST_SECONDS:-5}" || exit 1
