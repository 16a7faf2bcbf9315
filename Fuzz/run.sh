#!/usr/bin/env bash
# Runs each libFuzzer harness for a bounded time: `make fuzz` (FUZZ_SECONDS per target, default 180).
# Working corpus: .build/fuzz/corpus/<target> (seeded from Fuzz/Corpus/<target> and the fixtures);
# crashes, timeouts and slow inputs land in .build/fuzz/artifacts/<target>/. Usage: Fuzz/run.sh [target ...]
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${FUZZ_SECONDS:-180}
OUT=.build/fuzz
# LeakSanitizer reports the drivers' one-time global schema at exit: Swift keeps pointers in enum payloads'
# spare bits, where it cannot see them. Memory growth per input is caught by -rss_limit_mb instead.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=($(ls Fuzz/Targets | sed 's/\.swift$//'))
Fuzz/build.sh "${TARGETS[@]}" || exit 1

seeds() {  # fixture files that make good starting points for each target
    case $1 in
        json-validator) find Fixtures/cases -name '*.json' -size -64k ;;
        swift-source) find Fixtures -name '*.swift' -size -64k ;;
        device-log) find Fixtures/logs -type f ! -name '*.expected.json' -size -256k ;;
        payload-audit) find Fixtures/audit -type f \( -name '*.ts' -o -name '*.py' -o -name '*.swift' -o -name '*.js' \) -size -64k ;;
        mock-request) ;;
    esac
}
status=0
for target in "${TARGETS[@]}"; do
    corpus=$OUT/corpus/$target
    artifacts=$OUT/artifacts/$target
    mkdir -p "$corpus" "$artifacts"
    cp -n Fuzz/Corpus/"$target"/* "$corpus"/ 2>/dev/null
    seeds "$target" | while read -r file; do cp -n "$file" "$corpus/seed-$(echo "$file" | md5sum | cut -c1-12)"; done
    max_len=65536
    [ "$target" = device-log ] && max_len=262144
    echo "fuzz: $target for ${SECONDS_PER_TARGET}s"
    "$OUT/fuzz-$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=2 -rss_limit_mb=2048 -max_len=$max_len \
        -report_slow_units=1 -print_final_stats=1 -detect_leaks=0 -artifact_prefix="$artifacts/" "$corpus" \
        > "$OUT/$target.log" 2>&1
    rc=$?
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|Slowest unit" "$OUT/$target.log" | tail -3
    # The slowest input of the corpus, timed one by one (instrumented build: an upper bound).
    find "$corpus" -type f | head -5000 | xargs "$OUT/fuzz-$target" -rss_limit_mb=2048 2>&1 \
        | sed -n 's/^Executed \(.*\) in \([0-9]*\) ms$/\2 \1/p' | sort -n | tail -1 \
        | awk -v t="$target" '{ print "fuzz: " t " slowest input " $1 " ms: " $2 }'
    if [ $rc -ne 0 ]; then
        echo "fuzz: $target FAILED (exit $rc); see $OUT/$target.log and $artifacts/" >&2
        status=1
    fi
done
exit $status
