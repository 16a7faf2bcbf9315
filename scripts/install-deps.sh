#!/usr/bin/env bash
# Installs the Debian packages the build, tests and demo need, only when something is missing.
# Used by `make demo`, `make test` and .ci/run. Add a package here when a module needs one.
set -euo pipefail
PKGS=(
  pkg-config
  libssl-dev             # ES256 provider tokens, TLS for the APNs client and mock-apns
  libnghttp2-dev         # ActivityPushHTTP2: the APNs client and the mock-apns server
  nghttp2-client         # h2load: the ceiling in `bench send`, mock tests
  libsqlite3-dev         # queue, default back end
  libpq-dev              # queue, PostgreSQL back end
  postgresql             # queue tests start their own server
  libmicrohttpd-dev      # console / HTTP API
  curl                   # mock tests talk to it with curl --http2
  python3
  chromium               # console browser test (Tests/browser/run.sh drives it headless)
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python packages the tests and benchmarks use (from PyPI): the JSON Schema cross-check and `bench validate`.
if ! python3 -c "import jsonschema, fastjsonschema" >/dev/null 2>&1; then
  echo "installing Python packages: jsonschema fastjsonschema"
  python3 -m pip install -q jsonschema fastjsonschema 2>&1 | grep -v "Running pip as the 'root' user" || true
fi
# aioapns (PyPI): the Python peer in `activity-push bench send`.
if ! python3 -c "import aioapns" >/dev/null 2>&1; then
  python3 -m pip install -q aioapns 2>&1 | grep -v "Running pip as the 'root' user" || true
fi
