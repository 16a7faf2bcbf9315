#!/usr/bin/env bash
# make demo, part 2: one Live Activity's whole life on serve + worker + mock-apns (TLS) over SQLite.
# The mock plays the app (--report-tokens-to): it posts two devices' push-to-start tokens, and each
# activity's update token once the device started it. Every process is stopped at the end.
set -u
CLI=${1:-.build/debug/activity-push}
EX=examples/kora
TYPE=KORAActivityAttributes
W=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$W"; }
trap cleanup EXIT
step() { printf '\n\033[1m== %s\033[0m\n' "$1"; }
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {'d': d}))" "$1"; }
first_line() { # wait (bounded) for a process's first stdout line
  local file=$1; for _ in $(seq 100); do [ -s "$file" ] && { head -1 "$file"; return 0; }; sleep 0.1; done
  echo "demo: no output in $file" >&2; exit 1
}
echo intake-secret > "$W/intake"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$W/AuthKey_DEMO123456.p8" 2>/dev/null

step "serve: the lifecycle API on a SQLite queue (the app's /v1/tokens takes its own bearer)"
"$CLI" serve --port 0 --database "$W/q.sqlite" --bundle-id com.example.kora --attributes $EX/$TYPE.swift \
  --intake-token-file "$W/intake" >"$W/serve.out" 2>"$W/serve.err" &
PIDS+=($!)
SERVE=$(first_line "$W/serve.out"); echo "serve at $SERVE"

step "mock-apns over TLS, playing the app: reports tokens to serve (activity id read from attributes.eventID)"
"$CLI" mock-apns --port 0 --tls-dir "$W/tls" --attributes $EX/$TYPE.swift --quiet \
  --report-tokens-to "$SERVE" --intake-token-file "$W/intake" --activity-id-attribute eventID >"$W/mock.out" 2>"$W/mock.err" &
PIDS+=($!)
MOCK=$(first_line "$W/mock.out" | sed 's/^mock-apns listening on //')
for _ in $(seq 100); do [ "$(wc -l <"$W/mock.out")" -ge 2 ] && break; sleep 0.1; done   # its CA line (bounded)
CA=$(sed -n 2p "$W/mock.out" | sed 's/^mock-apns ca //'); echo "mock at $MOCK (CA $CA)"
mockpost() { curl -s --http2 --cacert "$CA" -X POST "$MOCK$1" --data-binary "$2"; echo; }
api() { curl -s -X "$1" "$SERVE$2" -H 'Content-Type: application/json' ${3:+--data-binary "$3"}; }

step "Two devices post their push-to-start tokens (the app's pushToStartTokenUpdates handler)"
mockpost /_mock/devices/phone-1 "{\"attributesType\": \"$TYPE\"}"
mockpost /_mock/devices/phone-2 "{\"attributesType\": \"$TYPE\"}"

START='{"activityID": "game-42", "type": "KORAActivityAttributes",
  "attributes": {"eventID": "game-42", "venueName": "Arena"}, "contentState": {"phase": "pre-game", "minutesLeft": 30},
  "alert": {"title": "Kick-off soon", "body": "Arena, in 30 minutes"}, "deviceIDs": ["phone-1", "phone-2"]}'
step "POST /v1/activities: start game-42 on both (twice: the repeat sends nothing)"
api POST /v1/activities "$START" | field '(d["state"], [(x["deviceID"], x["state"]) for x in d["devices"]], len(d["pushes"]))'
api POST /v1/activities "$START" | field '("repeat:", d["state"], len(d["pushes"]), "pushes")'

step "POST /v1/activities/game-42/update before any update token: held per device (newest wins)"
api POST /v1/activities/game-42/update '{"contentState": {"phase": "first-half", "minutesLeft": 45}}' \
  | field '[(x["deviceID"], x["state"], x["held"]) for x in d["devices"]]'

# The worker needs an APNs key even against the mock (it signs every request): the throwaway key made above.
WORKER=("$CLI" worker --database "$W/q.sqlite" --url "$MOCK" --ca-file "$CA" --auth-key "$W/AuthKey_DEMO123456.p8"
  --team-id TEAMID1234 --drain --drain-wait 10)
step "worker --drain --drain-wait 10: sends the starts, waits for the update tokens they bring back, sends the released updates, exits"
"${WORKER[@]}" >"$W/worker.out" 2>"$W/worker.err" || { cat "$W/worker.err"; exit 1; }
api GET /v1/activities/game-42 | field '(d["state"], [(x["deviceID"], x["state"], x["updateToken"]) for x in d["devices"]], sorted(p["event"] + ":" + p["queueState"] for p in d["pushes"]))'

step "POST /v1/activities/game-42/end, then worker --drain again: the ends reach both"
api POST /v1/activities/game-42/end '{"contentState": {"phase": "full-time", "minutesLeft": 0}}' >/dev/null
"${WORKER[@]}" >>"$W/worker.out" 2>>"$W/worker.err" || { cat "$W/worker.err"; exit 1; }

step "GET /v1/activities/game-42: the timeline (each device, each push, its APNs answer)"
api GET /v1/activities/game-42 | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("state:", d["state"], "(" + str(d["endReason"]) + ")")
for x in d["devices"]: print("  device", x["deviceID"], x["state"], "push-to-start", x["pushToStartToken"], "update", x["updateToken"])
for p in d["pushes"]: print("  push", p["pushID"], p["event"].ljust(6), "→", p["deviceID"], p["target"], p["queueState"], p["status"], "priority", p["priority"])
for n in d["journal"]: print("  ·", (n["deviceID"] or "") + ":", n["note"])'

echo "(the same timeline as a page: $SERVE/activities/game-42)"

step "The mock's journal: what each device did"
curl -s --http2 --cacert "$CA" "$MOCK/_mock/journal" | python3 -c '
import json, sys, collections
entries = json.load(sys.stdin)
print(dict(collections.Counter((e.get("event"), (e.get("device") or {}).get("outcome")) for e in entries)))'

step "GET /metrics (lifecycle lines)"
api GET /metrics | grep -E '^activity_push_(activities|activity_tokens|budget_holds)'
echo
