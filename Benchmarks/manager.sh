#!/usr/bin/env bash
# The manager benchmark beside aiohttp + Pillow, both against one nginx on loopback. Prints JSON lines.
# Usage: Benchmarks/manager.sh DATA_FOLDER BENCH_BINARY
set -euo pipefail
data="$1"
bench="$2"
work="$(mktemp -d)"
port=18090
trap 'kill "$(cat "$work/nginx.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
/usr/bin/python3 "$(dirname "$0")/manager_bench.py" make "$data/manager"
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 2048; }
http {
    access_log off;
    sendfile on;
    keepalive_requests 100000;
    types { image/jpeg jpg; }
    server { listen 127.0.0.1:$port; root $data/manager; location / { } }
}
CONF
nginx -c "$work/nginx.conf" -p "$work/"
"$bench" manager "$data" "http://127.0.0.1:$port"
/usr/bin/python3 "$(dirname "$0")/manager_bench.py" cold "http://127.0.0.1:$port"
