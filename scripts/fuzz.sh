#!/usr/bin/env bash
# Builds the fuzz targets (docs/testing.md, Fuzzing) with libFuzzer and AddressSanitizer, then runs each
# for a set time from its seed corpus, with its dictionary (Fuzz/Dictionaries/<Target>.dict) when it has
# one. Fails when a target finds a crash, leaving the input.
# Usage: scripts/fuzz.sh [--build-only | --run-only] SECONDS_PER_TARGET [Target ...]
#   (default: every Fuzz/Fuzz* folder; --build-only takes no SECONDS). `make test` builds the
#   targets beside the hardware lab and runs them after it.
set -euo pipefail
cd "$(dirname "$0")/.."
build_them=yes run_them=yes
case "${1:-}" in
--build-only) run_them=no; shift; set -- 0 "$@" ;;
--run-only) build_them=no; shift ;;
esac
seconds=${1:?seconds per target}
shift
if (($#)); then
    targets=("$@")
else
    # Every folder of Fuzz/ is a target but the shared code and the seeds.
    targets=()
    for dir in Fuzz/Fuzz*/; do
        name=$(basename "$dir")
        [ "$name" = FuzzSupport ] || targets+=("$name")
    done
fi

build=.build/fuzz
# Every module is built with ASan and libFuzzer's coverage; only the fuzz executables link
# libFuzzer itself (Package.swift), since a daemon or a CLI linked with it would lack a target.
# lld, because gold warns at every ASan symbol it cannot export. Without the package's traits:
# no target reads TLS or the shop's shared store, and each would build a sanitized BoringSSL.
flags=(-Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,indirect-calls,trace-cmp,inline-8bit-counters,pc-table
    -Xswiftc -use-ld=lld --disable-default-traits)
if [ $build_them = yes ]; then
    for target in "${targets[@]}"; do
        SCANBRIDGE_FUZZ=1 "${SWIFT:-swift}" build -c debug --build-path "$build" "${flags[@]}" --product "$target"
    done
fi
[ $run_them = yes ] || exit 0

# libFuzzer checks each input for leaks; these are the runtime's, not ScanBridge's.
# Swift's own backtracer would take the signal of a Swift trap first, and trips ASan reading
# the stack; without it libFuzzer reports the trap and keeps the input.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0"
# The frame and config targets write each input to a file, as their readers take a path:
# in a folder of the build's, removed at the end, never the machine's /tmp.
export TMPDIR=$PWD/$build/tmp
mkdir -p "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT

failed=()
summary=()
for target in "${targets[@]}"; do
    # New inputs go to the working corpus, kept between runs; the committed seeds are read only.
    corpus=$build/corpus/$target
    crashes=$build/crashes/$target
    mkdir -p "$corpus" "$crashes"
    log=$build/logs/$target.log
    mkdir -p "$(dirname "$log")"
    # The tokens of the target's input, which libFuzzer inserts as it mutates.
    dictionary=()
    [ -f "Fuzz/Dictionaries/$target.dict" ] && dictionary=(-dict="Fuzz/Dictionaries/$target.dict")
    echo "Fuzzing $target for ${seconds}s"
    if "$build/debug/$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 "${dictionary[@]}" \
        -artifact_prefix="$crashes/" "$corpus" "Fuzz/Corpus/$target" >"$log" 2>&1; then
        status=ok
    else
        status=CRASH
        failed+=("$target")
        grep -E "ERROR|Fatal error|fuzz check failed|Test unit written" "$log" >&2 || tail -20 "$log" >&2
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    summary+=("$(printf '%-16s %12s executions  %s' "$target" "${runs:-?}" "$status")")
done

printf '%s\n' "${summary[@]}"
if ((${#failed[@]})); then
    echo "Crashes in ${failed[*]}: the inputs are in $build/crashes/; reproduce with $build/debug/<Target> <input>" >&2
    exit 1
fi
