#!/usr/bin/env bash
# make demo: the main job on the bundled examples — the founding report's three traps, each named by its
# cause, the corrected payload accepted, the same push made by the one builder, then a device-log analysis and
# a payload-site audit.
set -u
CLI=${1:-.build/debug/activity-push}
EX=examples/kora
NOW=1767225600   # the clock the examples were written for (UNIX seconds)
step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }
run() { # run a command, show its exit status; expected rejections (exit 1) are part of the demo
  "$@"; local rc=$?; echo "(exit $rc)"; [ $rc -le 1 ] || { echo "demo: unexpected exit $rc" >&2; exit 1; }
}

step "Trap 1: attributes and attributes-type at the payload root" \
     "activity-push check $EX/trap1-attributes-outside-aps.json --attributes $EX/KORAActivityAttributes.swift --now $NOW"
run "$CLI" check $EX/trap1-attributes-outside-aps.json --attributes $EX/KORAActivityAttributes.swift --now $NOW

step "Trap 2: alert text smuggled into attributes" \
     "activity-push check $EX/trap2-alert-in-attributes.json --attributes $EX/KORAActivityAttributes.swift --now $NOW"
run "$CLI" check $EX/trap2-alert-in-attributes.json --attributes $EX/KORAActivityAttributes.swift --now $NOW

step "Trap 3: attributes-type differs from the Swift type name in letter case" \
     "activity-push check $EX/trap3-type-name-case.json --attributes $EX/KORAActivityAttributes.swift --now $NOW"
run "$CLI" check $EX/trap3-type-name-case.json --attributes $EX/KORAActivityAttributes.swift --now $NOW

step "The corrected payload, with its APNs headers" \
     "activity-push check $EX/corrected-start.json --attributes $EX/KORAActivityAttributes.swift --headers $EX/headers.json --now $NOW"
run "$CLI" check $EX/corrected-start.json --attributes $EX/KORAActivityAttributes.swift --headers $EX/headers.json --now $NOW

step "The same push from the one builder (the only way every sending path makes a body)" \
     "activity-push build --attributes $EX/KORAActivityAttributes.swift --bundle-id com.example.kora --event start --attributes-json … --content-state-json … --alert-title … --alert-body …"
run "$CLI" build --attributes $EX/KORAActivityAttributes.swift --bundle-id com.example.kora --event start \
    --attributes-json '{"eventID": "ev-1042", "venueName": "Hall B"}' \
    --content-state-json '{"phase": "doors-open", "minutesLeft": 30}' \
    --alert-title "Doors are open" --alert-body "The show starts in 30 minutes"

step "The builder refuses trap 2 before anything is sent" \
     "activity-push build … --attributes-json '{\"eventID\": \"ev-1042\", \"venueName\": \"Hall B\", \"alert_title\": \"Doors are open\"}' --format text"
run "$CLI" build --attributes $EX/KORAActivityAttributes.swift --bundle-id com.example.kora --event start --format text \
    --attributes-json '{"eventID": "ev-1042", "venueName": "Hall B", "alert_title": "Doors are open"}' \
    --content-state-json '{"phase": "doors-open", "minutesLeft": 30}' \
    --alert-title "Doors are open" --alert-body "The show starts in 30 minutes"

if "$CLI" logs --help >/dev/null 2>&1; then
  step "Device log: the generic liveactivitiesd line, and the payload causes it can mean" \
       "activity-push logs Fixtures/logs/01-console-copy-attributes-outside-aps.txt"
  run "$CLI" logs Fixtures/logs/01-console-copy-attributes-outside-aps.txt
fi

if "$CLI" audit --help >/dev/null 2>&1; then
  step "Payload-site audit: every place a server builds a Live Activity payload" \
       "activity-push audit Fixtures/audit/python-kora-notify"
  run "$CLI" audit Fixtures/audit/python-kora-notify
fi
echo
echo "demo finished"
