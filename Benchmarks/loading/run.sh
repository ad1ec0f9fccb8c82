#!/usr/bin/env bash
# Loopback download benchmark: 200 files of 100 KB from nginx (one worker), 8 at a time, through our downloader,
# curl --parallel and Python aiohttp in one run; then the cost of a coalesced join and memory per download.
# Needs: nginx (apt install nginx-light), hyperfine, python3 with aiohttp (pip install aiohttp).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
port=18089
trap 'kill "$(cat "$work/nginx.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/www"
python3 - "$work/www" <<'PY'
import os, sys
for i in range(200):
    with open(os.path.join(sys.argv[1], f"img{i:03d}.jpg"), "wb") as f:
        f.write(os.urandom(100 * 1024))
PY
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
    server {
        listen 127.0.0.1:$port;
        root $work/www;
        location / { }
        location /drip/ { alias $work/www/; limit_rate 64; }
    }
}
CONF
nginx -c "$work/nginx.conf" -p "$work/"
for i in $(seq -f "%03g" 0 199); do
    echo "url = \"http://127.0.0.1:$port/img$i.jpg\""; echo 'output = "/dev/null"'
done > "$work/curl.cfg"
(cd "$here" && swift build -c release >/dev/null)
echo "== curl --parallel --parallel-max 8"
hyperfine -N -w 2 -r 10 "curl -s --parallel --parallel-max 8 -K $work/curl.cfg" | grep -E "Time|Range"
echo "== python aiohttp, 8 at a time"
python3 "$here/aio.py" "http://127.0.0.1:$port"
echo "== swift-web-image ImageDownloader"
"$here/.build/release/loadbench" "http://127.0.0.1:$port"
