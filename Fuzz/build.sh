#!/usr/bin/env bash
# Builds the libFuzzer harnesses into .build/fuzz: ActivityPushCore, Diagnosis, HTTP2 and Mock compiled with
# -sanitize=fuzzer,address (coverage + AddressSanitizer), then one executable per Fuzz/Targets/<name>.swift.
# Not part of `swift build`; `make fuzz` calls it. Usage: Fuzz/build.sh [target ...]
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFTC=${SWIFTC:-swiftc}
OUT=.build/fuzz
mkdir -p "$OUT"
FLAGS=(-O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -g -package-name ActivityPush)

newer() {  # newer OUTPUT INPUT...: true when OUTPUT is missing or older than an input
    local output=$1; shift
    [ -e "$output" ] || return 0
    for input in "$@"; do [ "$input" -nt "$output" ] && return 0; done
    return 1
}

mapfile -t CORE < <(find Sources/ActivityPushCore -name '*.swift' | sort)
if newer "$OUT/libActivityPushCore.a" "${CORE[@]}"; then
    echo "fuzz: compiling ActivityPushCore (instrumented)"
    "$SWIFTC" "${FLAGS[@]}" -wmo -module-name ActivityPushCore -emit-module -emit-module-path "$OUT/ActivityPushCore.swiftmodule" \
        -emit-library -static -o "$OUT/libActivityPushCore.a" "${CORE[@]}"
fi
mapfile -t DIAGNOSIS < <(find Sources/ActivityPushDiagnosis -name '*.swift' | sort)
if newer "$OUT/libActivityPushDiagnosis.a" "${DIAGNOSIS[@]}" "$OUT/libActivityPushCore.a"; then
    echo "fuzz: compiling ActivityPushDiagnosis (instrumented)"
    "$SWIFTC" "${FLAGS[@]}" -wmo -module-name ActivityPushDiagnosis -I "$OUT" \
        -emit-module -emit-module-path "$OUT/ActivityPushDiagnosis.swiftmodule" \
        -emit-library -static -o "$OUT/libActivityPushDiagnosis.a" "${DIAGNOSIS[@]}"
fi
C_MODULES=(-I Sources/CNghttp2 -I Sources/COpenSSL -I Sources/CEpoll)
mapfile -t HTTP2 < <(find Sources/ActivityPushHTTP2 -name '*.swift' | sort)
if newer "$OUT/libActivityPushHTTP2.a" "${HTTP2[@]}"; then
    echo "fuzz: compiling ActivityPushHTTP2 (instrumented)"
    "$SWIFTC" "${FLAGS[@]}" -wmo -module-name ActivityPushHTTP2 "${C_MODULES[@]}" \
        -emit-module -emit-module-path "$OUT/ActivityPushHTTP2.swiftmodule" \
        -emit-library -static -o "$OUT/libActivityPushHTTP2.a" "${HTTP2[@]}"
fi
mapfile -t MOCK < <(find Sources/ActivityPushMock -name '*.swift' | sort)
if newer "$OUT/libActivityPushMock.a" "${MOCK[@]}" "$OUT/libActivityPushCore.a" "$OUT/libActivityPushHTTP2.a"; then
    echo "fuzz: compiling ActivityPushMock (instrumented)"
    "$SWIFTC" "${FLAGS[@]}" -wmo -enable-testing -module-name ActivityPushMock -I "$OUT" "${C_MODULES[@]}" \
        -emit-module -emit-module-path "$OUT/ActivityPushMock.swiftmodule" \
        -emit-library -static -o "$OUT/libActivityPushMock.a" "${MOCK[@]}"
fi

TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=($(ls Fuzz/Targets | sed 's/\.swift$//'))
for target in "${TARGETS[@]}"; do
    if [ "$target" = mock-request ]; then
        driver=(Tests/ActivityPushMockTests/MockFuzzDriver.swift)
        libs=(-lActivityPushMock -lActivityPushHTTP2 -lActivityPushCore -lnghttp2 -lssl -lcrypto)
        deps=("$OUT/libActivityPushMock.a")
    else
        driver=(Tests/ActivityPushCoreTests/FuzzInputDrivers.swift)
        libs=(-lActivityPushDiagnosis -lActivityPushCore)
        deps=("$OUT/libActivityPushDiagnosis.a" "$OUT/libActivityPushCore.a")
    fi
    if newer "$OUT/fuzz-$target" "Fuzz/Targets/$target.swift" "${driver[@]}" "${deps[@]}"; then
        echo "fuzz: linking fuzz-$target"
        "$SWIFTC" "${FLAGS[@]}" -module-name FuzzTarget -I "$OUT" "${C_MODULES[@]}" -L "$OUT" \
            "${driver[@]}" "Fuzz/Targets/$target.swift" "${libs[@]}" -o "$OUT/fuzz-$target" 2>&1 \
            | grep -v "Cannot export local symbol" || true
        [ -x "$OUT/fuzz-$target" ] || { echo "fuzz: building fuzz-$target failed" >&2; exit 1; }
    fi
done
