#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback for the relay's many-node tests (reel relay
# --database): `start DIR` creates and starts it in DIR and prints its address (the tests read
# it from REEL_TEST_DATABASE); `stop DIR` stops it; `restart DIR` starts it again on its port.
# Trust authentication, loopback only.
set -euo pipefail
action=${1:-}
dir=${2:-}
[ -n "$action" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|restart DIR" >&2; exit 2; }
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bin" ] || { echo "error: PostgreSQL's server is not installed (apt-get install postgresql)" >&2; exit 1; }
# PostgreSQL refuses to run as root: as root, its own user runs it.
as_owner=()
[ "$(id -u)" -eq 0 ] && as_owner=(runuser -u postgres --)
case "$action" in
start)
  mkdir -p "$dir"
  if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "${as_owner[@]}" "$bin/initdb" -D "$dir/data" -A trust -U reel --no-sync >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  echo "$port" >"$dir/port"
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
  echo "postgres://reel@127.0.0.1:$port/postgres?sslmode=disable"
  ;;
restart)
  port=$(cat "$dir/port")
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
  ;;
stop)
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  ;;
*)
  echo "usage: $0 start|stop|restart DIR" >&2
  exit 2
  ;;
esac
