#!/usr/bin/env bash
# Starts (or stops) a throwaway PostgreSQL server for the queue tests and benchmark.
#
#   scripts/pg-test-server.sh start DIR   # initdb into DIR/data, listen on a free 127.0.0.1 port,
#                                         # print the connection URL (postgres://postgres@127.0.0.1:PORT/postgres)
#   scripts/pg-test-server.sh stop DIR    # fast shutdown, then DIR can be deleted
#   scripts/pg-test-server.sh restart DIR # start a stopped server again, same data and port (outage tests)
#
# With PG_TEST_OWNER_PID=PID, `start` also leaves a watchdog that stops the server and deletes DIR once that
# process is gone, so a test run that is killed (timeout, crash, ^C) leaves no server behind; its atexit
# cleanup only runs on a normal exit.
#
# PostgreSQL refuses to run as root, so when run as root the server runs as the `postgres` user (or `nobody`)
# via runuser. Binaries: $PG_BIN, else the newest /usr/lib/postgresql/*/bin (Debian's postgresql package).
set -euo pipefail
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|restart DIR" >&2; exit 2; }
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
[ -x "$PG_BIN/initdb" ] || { echo "$0: PostgreSQL server binaries not found (apt-get install postgresql, or set PG_BIN)" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    local user=postgres
    id -u postgres >/dev/null 2>&1 || user=nobody
    runuser -u "$user" -- "$@"
  else
    "$@"
  fi
}

case "$cmd" in
start)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" -eq 0 ]; then
    user=postgres; id -u postgres >/dev/null 2>&1 || user=nobody
    chown "$user" "$dir"; chmod 700 "$dir"
    runuser -u "$user" -- test -x "$dir" || { echo "$0: user $user cannot reach $dir (make its parent directories world-searchable, e.g. chmod 755)" >&2; exit 1; }
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  as_owner "$PG_BIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=on -c max_connections=50" \
    start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
  echo "$port" > "$dir/port"
  if [ -n "${PG_TEST_OWNER_PID:-}" ]; then
    owner=$PG_TEST_OWNER_PID self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
    setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done
      [ -d "$2/data" ] && "$0" stop "$2"; rm -rf "$2"' "$self" "$owner" "$dir" </dev/null >/dev/null 2>&1 &
  fi
  echo "postgres://postgres@127.0.0.1:$port/postgres"
  ;;
restart)
  [ -f "$dir/port" ] || { echo "$0: no server was started in $dir" >&2; exit 1; }
  dir=$(cd "$dir" && pwd)
  port=$(cat "$dir/port")
  as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=on -c max_connections=50" \
    start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
  echo "postgres://postgres@127.0.0.1:$port/postgres"
  ;;
stop)
  [ -d "$dir/data" ] || exit 0
  as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  ;;
*) echo "usage: $0 start|stop|restart DIR" >&2; exit 2 ;;
esac
