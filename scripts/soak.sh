#!/usr/bin/env bash
# `make soak` (not part of `make test`): a worker drain of $SOAK_PUSHES (default 20 000) pushes on PostgreSQL against
# mock-apns with mixed faults (503, 429, graceful and abrupt GOAWAY, drops before and after processing, delays);
# two workers, one killed with SIGKILL mid-run and restarted; the PostgreSQL server stopped for a few seconds and
# restarted. Prints pushes lost (must be 0), duplicates by cause, attempts per push and wall time; exit 1 on a loss.
#
#   scripts/soak.sh [path/to/activity-push]      (default .build/debug/activity-push)
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=$(realpath "${1:-.build/debug/activity-push}")
N=${SOAK_PUSHES:-20000}
FAULTS=${SOAK_FAULTS:-'503:share=0.5%,429=1:share=1%,goaway:share=0.3%,goaway-abrupt:share=0.2%,drop-before:share=0.2%,drop-after:share=0.2%,delay=20ms:all'}
dir=$(mktemp -d /tmp/ap-soak-XXXXXX); chmod 755 "$dir"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  scripts/pg-test-server.sh stop "$dir/pg" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
started=$(date +%s.%N)

url=$(scripts/pg-test-server.sh start "$dir/pg")
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/AuthKey_SOAKTEST01.p8" 2>/dev/null
"$CLI" mock-apns --tls-dir "$dir/tls" --accept-any-token --quiet --journal "$dir/mock.ndjson" --faults "$FAULTS" \
  >"$dir/mock.out" 2>"$dir/mock.err" &
pids+=($!)
for _ in $(seq 100); do grep -q "mock-apns ca " "$dir/mock.out" 2>/dev/null && break; sleep 0.1; done
mock=$(sed -n 's/^mock-apns listening on //p' "$dir/mock.out")
ca=$(sed -n 's/^mock-apns ca //p' "$dir/mock.out")
[ -n "$mock" ] || { echo "soak: mock-apns did not start: $(cat "$dir/mock.err")" >&2; exit 2; }

python3 -c "import sys; [print('%08x' % i + 'ab' * 28) for i in range($N)]" > "$dir/tokens.txt"
"$CLI" queue enqueue --database "$url" --bundle-id com.example.soak --tokens-file "$dir/tokens.txt" \
  --event update --content-state-json '{"minutesLeft":5}' >/dev/null

worker() {  # name
  "$CLI" worker --database "$url" --url "$mock" --ca-file "$ca" --auth-key "$dir/AuthKey_SOAKTEST01.p8" \
    --team-id TEAMSOAK01 --drain --drain-wait 30 --lease 15 --server-error-delay 2 --max-attempts 20 \
    --name "$1" --format json >"$dir/$1.json" 2>"$dir/$1.err" &
  last=$!
  pids+=("$last")
}
delivered() { local k; k=$(grep -c "\"status\":200" "$dir/mock.ndjson" 2>/dev/null) || true; echo "${k:-0}"; }

worker A; a=$last; worker B; b=$last
while [ "$(delivered)" -lt $((N / 4)) ]; do sleep 0.2; done
{ kill -9 "$a"; wait "$a"; } 2>/dev/null || true; echo "soak: worker A killed with SIGKILL at $(delivered) deliveries; restarting it as A2"
worker A2; a2=$last
while [ "$(delivered)" -lt $((N / 2)) ]; do sleep 0.2; done
scripts/pg-test-server.sh stop "$dir/pg"; echo "soak: PostgreSQL stopped at $(delivered) deliveries"
sleep 5
scripts/pg-test-server.sh restart "$dir/pg" >/dev/null; echo "soak: PostgreSQL restarted"
status=0
for p in "$b" "$a2"; do wait "$p" || status=$?; done
ended=$(date +%s.%N)
[ "$status" -eq 0 ] || { echo "soak: a worker failed (exit $status):"; tail -n 3 "$dir"/B.err "$dir"/A2.err; }
"$CLI" queue journal --database "$url" --limit 10000000 --format json > "$dir/queue-journal.ndjson"
"$CLI" queue status --database "$url" --format json > "$dir/status.json"

python3 - "$dir" "$N" "$started" "$ended" <<'PY'
import json, sys, collections
d, n, t0, t1 = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
mock = [json.loads(l) for l in open(d + "/mock.ndjson") if l.strip()]
delivered = collections.Counter(e.get("apns-id") for e in mock if e.get("status") == 200)
journal = [json.loads(l) for l in open(d + "/queue-journal.ndjson") if l.strip()]
by_push = collections.defaultdict(list)
for row in journal: by_push[row["apnsID"]].append(row)
status = json.load(open(d + "/status.json"))
counts = status.get("status", status).get("counts", {})
lost = n - len(delivered)
causes = collections.Counter()
for apns_id, copies in delivered.items():
    extra = copies - 1
    if extra <= 0: continue
    rows = by_push.get(apns_id, [])
    unknown = sum(1 for r in rows if "(may-have-been-processed)" in (r.get("note") or ""))
    explained = min(extra, unknown)
    causes["may have been processed (drop, abrupt GOAWAY, deadline)"] += explained
    if extra > explained:
        causes["worker killed or lease expired (attempt not journaled)"] += extra - explained
attempts = collections.Counter(len([r for r in rows if r["outcome"] not in ("superseded",)]) for rows in by_push.values())
print(f"soak: {n} pushes, wall {t1 - t0:.1f} s; queue {counts}")
print(f"  pushes lost: {lost}")
print(f"  deliveries (200): {sum(delivered.values())}, duplicates: {sum(delivered.values()) - len(delivered)}")
for cause, k in causes.most_common(): print(f"    {cause}: {k}")
faults = collections.Counter(f for e in mock for f in str(e.get("fault") or "").split(",") if f and not f.startswith("delay"))
print("  mock faults:", dict(faults))
print("  attempts per push (journal rows):", " ".join(f"{k}×{v}" for k, v in sorted(attempts.items())))
sys.exit(1 if lost else 0)
PY
