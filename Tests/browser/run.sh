#!/usr/bin/env bash
# Browser test of the admin console: headless Chromium drives the real page served by `activity-push serve`,
# which sends through the APNs client to `activity-push mock-apns --h2c`.
# usage: Tests/browser/run.sh [path/to/activity-push]   (default .build/debug/activity-push)
# Exit 0 on pass; 0 with "SKIP" only when no Chromium can be found or installed; 1 on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
CLI="${1:-.build/debug/activity-push}"
if [ ! -x "$CLI" ]; then echo "console browser test: $CLI not built (run swift build first)" >&2; exit 1; fi

find_chromium() {
  for c in "${CHROMIUM:-}" chromium chromium-browser google-chrome-stable google-chrome; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return 0; }
  done
  return 1
}
CHROME="$(find_chromium || true)"
if [ -z "$CHROME" ]; then
  echo "console browser test: installing chromium (Debian package)…" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  if { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium; } >/dev/null 2>&1; then
    CHROME="$(find_chromium || true)"
  fi
fi
if [ -z "$CHROME" ]; then
  echo "console browser test: SKIP (no Chromium and it cannot be installed here)"
  exit 0
fi
if ! command -v openssl >/dev/null 2>&1; then echo "console browser test: openssl is needed to make a test key" >&2; exit 1; fi

OUT="${CONSOLE_TEST_OUT:-.build/console-test}"
mkdir -p "$OUT"
exec python3 Tests/browser/console_test.py --cli "$CLI" --chromium "$CHROME" --out "$OUT" \
  --attributes Tests/browser/fixtures/PizzaDeliveryAttributes.swift
