#!/usr/bin/env bash
# What users run: the release binary sends to many tokens and drains a queue against mock-apns over TLS.
# Used by `make test` (after `make release`). Usage: scripts/release-smoke.sh [CLI] [PUSHES]
# Checks, from the mock's own journal: every push arrived exactly once (no token twice), none lost, and the
# CLI's exit status and summary agree with it. Exits non-zero with one line naming what went wrong.
set -euo pipefail
CLI=${1:-.build/release/activity-push}
N=${2:-5000}
[ -x "$CLI" ] || { echo "release-smoke: $CLI is not built (run make release)" >&2; exit 2; }
CLI=$(readlink -f "$CLI")
WORK=$(mktemp -d)
MOCK_PID=""
cleanup() { [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
fail() { echo "release-smoke: FAILED: $*" >&2; [ -f "$WORK/mock.err" ] && tail -5 "$WORK/mock.err" >&2; exit 1; }
cd "$(dirname "$0")/.."

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/AuthKey_SMOKE12345.p8" 2>/dev/null
chmod 600 "$WORK/AuthKey_SMOKE12345.p8"
AUTH=(--auth-key "$WORK/AuthKey_SMOKE12345.p8" --key-id SMOKE12345 --team-id TEAMID1234)

start_mock() {
  "$CLI" mock-apns --port 0 --quiet --tls-dir "$WORK/tls" "${AUTH[@]}" >"$WORK/mock.out" 2>"$WORK/mock.err" &
  MOCK_PID=$!
  for _ in $(seq 1 100); do grep -q '^mock-apns listening on' "$WORK/mock.out" 2>/dev/null && break; sleep 0.1; done
  URL=$(sed -n 's/^mock-apns listening on \(.*\)$/\1/p' "$WORK/mock.out" | head -1)
  [ -n "$URL" ] || fail "mock-apns did not start"
  CA="$WORK/tls/ca.pem"
}
stop_mock() { kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; MOCK_PID=""; }
# Accepted deliveries in the mock's journal: total, and distinct tokens.
journal_counts() {
  python3 - "$URL" "$CA" <<'PY'
import json, subprocess, sys
url, ca = sys.argv[1], sys.argv[2]
total, tokens, since = 0, set(), 0
while True:  # the mock speaks HTTP/2 only: read its journal pages with curl
    page = subprocess.run(["curl", "-sS", "--http2", "--max-time", "60", "--cacert", ca,
                           f"{url}/_mock/journal?since={since}&limit=5000"], check=True, capture_output=True).stdout
    entries = json.loads(page)
    if not entries:
        break
    since += len(entries)
    for entry in entries:
        if entry.get("status") == 200 and entry.get("method") == "POST" and entry.get("path", "").startswith("/3/device/"):
            total += 1
            tokens.add(entry.get("token"))  # redacted to its first 8 hex digits: the tokens below are random
print(total, len(tokens))
PY
}
# 1. send to N tokens from a file (one update payload, many tokens).
start_mock
# Random tokens, so that the first 8 hex digits the mock's journal keeps tell them apart.
python3 -c "import secrets,sys; [print(secrets.token_hex(32)) for _ in range(int(sys.argv[1]))]" "$N" >"$WORK/tokens.txt"
PUSH=(--bundle-id com.example.kora --attributes examples/kora/KORAActivityAttributes.swift
      --event update --content-state-json '{"phase": "on-stage", "minutesLeft": 0}')
set +e
"$CLI" send --url "$URL" --ca-file "$CA" "${AUTH[@]}" "${PUSH[@]}" --tokens-file "$WORK/tokens.txt" \
  >"$WORK/send.out" 2>"$WORK/send.err"
rc=$?
set -e
[ $rc -eq 0 ] || fail "send to $N tokens exited $rc: $(tail -3 "$WORK/send.err")"
read -r total distinct < <(journal_counts)
[ "$total" -eq "$N" ] && [ "$distinct" -eq "$N" ] || fail "send: mock journal has $total accepted, $distinct distinct tokens (expected $N each)"
echo "release-smoke: send --tokens-file: $N tokens, $total accepted at the mock, each once"
stop_mock

# 2. enqueue N pushes (one fan-out) and drain them with one worker.
start_mock
DB="$WORK/queue.sqlite"
"$CLI" queue enqueue --database "$DB" "${PUSH[@]}" --tokens-file "$WORK/tokens.txt" >/dev/null \
  || fail "queue enqueue of $N pushes failed"
set +e
timeout 300 "$CLI" worker --database "$DB" --url "$URL" --ca-file "$CA" "${AUTH[@]}" --drain >"$WORK/worker.out" 2>"$WORK/worker.err"
rc=$?
set -e
[ $rc -eq 0 ] || fail "worker --drain exited $rc: $(tail -3 "$WORK/worker.err")"
read -r total distinct < <(journal_counts)
[ "$total" -eq "$N" ] && [ "$distinct" -eq "$N" ] || fail "worker: mock journal has $total accepted, $distinct distinct tokens (expected $N each)"
echo "release-smoke: worker --drain: $N pushes, $total accepted at the mock, each once"
