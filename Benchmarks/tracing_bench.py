#!/usr/bin/env python3
"""What request tracing (OpenTelemetry over OTLP/HTTP) costs `webimage serve`, beside tracing off.

Two loads, each with wrk on loopback (2 threads, 8 connections, as `Benchmarks/serve_bench.py`):
  hits      one thumbnail URL again and again, answered from the memory tier (a `/request` span each);
  distinct  every request names a source URL of its own on the origin (`/v/N/photo-1mp.jpg`), so every request
            fetches, decodes, resizes and encodes (a `/request` span and five step spans each).
The sides alternate (off, on, off, on, off, on), a fresh server a run, each run starting once the machine is
idle (or after 30 s); the hits load then runs once more with gzip-compressed exports
(`OTEL_EXPORTER_OTLP_COMPRESSION=gzip`). The collector is nginx on loopback discarding every `POST /v1/traces`
with a 200 and an empty body, so that it costs the two cores next to nothing; its access log says how many exports
arrived and how big they were. Each server is stopped gracefully after its run, so that it sends what waits.

The origin is nginx too (a second server of the same nginx, as serve_bench.py's). The source is serve_bench.py's
1 MP JPEG (`convert photo-12mp.jpg -resize 1200x900 -quality 90`) when Benchmarks/data/photo-12mp.jpg (made by
`Benchmarks/run.sh`) and ImageMagick are here, else a photo-like 1200x900 PNG written here, made into a JPEG of the
same quality by `webimage convert`.

Prints one JSON line a run, then the medians and ratios. Usage:
    Benchmarks/tracing_bench.py [path/to/webimage] [SECONDS]   (default: .build/release/webimage, 10)
TRACING_CASES=distinct runs one load; TRACING_ROUNDS=5 alternates five times.
"""
import json
import math
import os
import random
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import zlib

WEBIMAGE = sys.argv[1] if len(sys.argv) > 1 else ".build/release/webimage"
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 10
ROUNDS = int(os.environ.get("TRACING_ROUNDS", "3"))
CASES = os.environ.get("TRACING_CASES", "hits distinct").split()  # TRACING_CASES=distinct: that load alone
ORIGIN, COLLECTOR, SERVE = 18121, 18122, 18123
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

from wrk_script import WRK_SCRIPT  # serve_bench.py's request script: `{n}` becomes the request's own number


def nginx_config(work):
    return f"""worker_processes 2;
daemon on;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    sendfile on;
    keepalive_requests 1000000;
    types {{ image/jpeg jpg; }}
    log_format export '$request_method $uri $status $content_length $request_length "$http_content_encoding"';
    server {{
        listen 127.0.0.1:{ORIGIN};
        root {work}/www;
        location ~ ^/v/[0-9]+/(?<file>.+)$ {{ alias {work}/www/$file; }}
    }}
    server {{
        # The collector: every export taken and thrown away (nginx reads and discards the body).
        listen 127.0.0.1:{COLLECTOR};
        client_max_body_size 16m;
        access_log {work}/collector.log export;
        location /v1/traces {{ return 200; }}
    }}
}}
"""


def system_ticks():
    with open("/proc/stat") as handle:
        values = [int(value) for value in handle.readline().split()[1:]]
    return sum(values), values[3] + values[4]  # all, idle + iowait


def wait_until_quiet(seconds=30):
    """Waits until the machine is idle for a whole second (90% of it) or `seconds` pass; returns the idle share of
    the last second (other work on a shared machine is reported, not hidden)."""
    deadline = time.monotonic() + seconds
    while True:
        before = system_ticks()
        time.sleep(1)
        after = system_ticks()
        idle = (after[1] - before[1]) / max(1, after[0] - before[0])
        if idle >= 0.9 or time.monotonic() > deadline:
            return idle


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def get(url):
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read()


def start_server(work, run, side):
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("OTEL_", "IMGPROXY_", "WEBIMAGE_"))}
    arguments = [WEBIMAGE, "serve", "--bind", f"127.0.0.1:{SERVE}", "--insecure", "--allow-loopback-sources",
                 "--cache-dir", os.path.join(work, f"cache-{run}"), "--workers", "2", "--queue", "4096"]
    if side != "off":
        arguments += ["--open-telemetry", "--open-telemetry-endpoint", f"http://127.0.0.1:{COLLECTOR}/v1/traces"]
    if side == "on, gzip":
        env["OTEL_EXPORTER_OTLP_COMPRESSION"] = "gzip"
    log = os.path.join(work, f"serve-{run}.log")
    server = subprocess.Popen(arguments, env=env, stdout=subprocess.DEVNULL, stderr=open(log, "w"),
                              start_new_session=True)
    deadline = time.time() + 60
    while True:
        if server.poll() is not None:
            raise SystemExit(f"webimage serve exited with {server.returncode}; see {log}")
        try:
            get(f"http://127.0.0.1:{SERVE}/health")
            return server, log
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)


def stop_server(server):
    """A graceful stop: the exporter sends what waits before the process ends."""
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def exports_since(path, offset):
    """(POSTs answered 200, body bytes, gzip-encoded POSTs, other lines) in the collector's log after `offset`."""
    posts = size = gzipped = other = 0
    with open(path) as handle:
        handle.seek(offset)
        for line in handle:
            match = re.match(r'^POST /v1/traces 200 (\d+) \d+ "(.*)"$', line.rstrip())
            if match:
                posts += 1
                size += int(match.group(1))
                gzipped += match.group(2) == "gzip"
            else:
                other += 1
    return posts, size, gzipped, other


def dropped_spans(log):
    """Spans the server said it dropped (its line was full) or lost (an export failed)."""
    dropped, lost = 0, 0
    with open(log, errors="replace") as handle:
        for line in handle:
            match = re.search(r"(\d+) spans dropped", line)
            if match:
                dropped += int(match.group(1))
            lost += "traces to" in line and "being lost" in line
    return dropped, lost


def run_once(work, run, case, side, path):
    server, log = start_server(work, run, side)
    try:
        url = f"http://127.0.0.1:{SERVE}{path}"
        if case == "hits":
            for _ in range(3):  # rendered, written to disk on its first repeat, then answered from memory
                status, body = get(url)
                assert status == 200 and body, "the hot URL does not answer"
        else:
            status, body = get(url.replace("{n}", "0"))
            assert status == 200 and body, "the distinct URLs do not answer"
        idle = wait_until_quiet()
        collector_log = os.path.join(work, "collector.log")
        offset = os.path.getsize(collector_log)
        cpu_before = cpu_seconds(server.pid)
        output = subprocess.run(
            ["wrk", "-t2", "-c8", f"-d{SECONDS}s", "--timeout", "60s", "-s", os.path.join(work, "bench.lua"),
             f"http://127.0.0.1:{SERVE}", path, str(run * 1_000_000_000)],
            capture_output=True, text=True, check=True).stdout
        cpu = cpu_seconds(server.pid) - cpu_before
    finally:
        stop_server(server)
    result = json.loads(re.search(r"^RESULT (\{.*\})$", output, re.M).group(1))
    posts, size, gzipped, other = exports_since(collector_log, offset)
    dropped, lost = dropped_spans(log)
    row = {"case": case, "side": side, "run": run, "requests_per_s": result["requests"] / result["seconds"],
           "p50_ms": result["p50"], "p99_ms": result["p99"], "requests": result["requests"],
           "errors": result["errors"], "server_cpu_us_per_request": 1e6 * cpu / max(1, result["requests"]),
           "idle_before": round(idle, 3), "exports": posts, "export_bytes": size, "gzip_exports": gzipped,
           "collector_other_lines": other, "spans_dropped": dropped, "export_failures_logged": lost}
    print(json.dumps(row), flush=True)
    return row


def photo_png(path, width=1200, height=900):
    """A photo-like 8-bit RGB PNG without an image library: smooth colour fields with texture and noise from a
    seeded generator, so that a JPEG of it costs to decode what a photo does (flat colour would be cheap)."""
    generator = random.Random(1)
    rows = []
    for y in range(height):
        row = bytearray(b"\x00")  # filter: none
        for x in range(width):
            red = 128 + 100 * math.sin(x / 97 + y / 143)
            green = 255 * y / height
            blue = 128 + 90 * math.cos((x - y) / 61)
            noise = generator.randrange(-20, 21)
            row += bytes(max(0, min(255, int(value) + noise)) for value in (red, green, blue))
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 6))
                   + chunk(b"IEND", b""))


def source_image(www):
    """serve_bench.py's 1 MP JPEG when ImageMagick and Benchmarks/data/photo-12mp.jpg are here, else a photo-like
    PNG of the same size made into a JPEG of the same quality by `webimage convert`."""
    target = os.path.join(www, "photo-1mp.jpg")
    original = os.path.join(DATA, "photo-12mp.jpg")
    if os.path.exists(original) and subprocess.run(
            ["convert", original, "-resize", "1200x900", "-quality", "90", target]).returncode == 0:
        return "photo-12mp.jpg resized by ImageMagick, as serve_bench.py"
    png = os.path.join(www, "photo-1mp.png")
    photo_png(png)
    subprocess.run([WEBIMAGE, "convert", png, target, "--quality", "90"], check=True, stdout=subprocess.DEVNULL)
    return "a generated photo-like PNG through `webimage convert --quality 90`"


def main():
    work = tempfile.mkdtemp(prefix="tracing-bench-")
    os.chmod(work, 0o755)
    www = os.path.join(work, "www")
    os.makedirs(www)
    made = source_image(www)
    print(f"source: 1200x900 JPEG ({made}), {os.path.getsize(os.path.join(www, 'photo-1mp.jpg'))} bytes",
          file=sys.stderr)
    with open(os.path.join(work, "bench.lua"), "w") as handle:
        handle.write(WRK_SCRIPT)
    with open(os.path.join(work, "nginx.conf"), "w") as handle:
        handle.write(nginx_config(work))
    open(os.path.join(work, "collector.log"), "w").close()
    subprocess.run(["nginx", "-c", os.path.join(work, "nginx.conf"), "-p", work + "/"], check=True)
    source = urllib.parse.quote(f"http://127.0.0.1:{ORIGIN}/v/{{n}}/photo-1mp.jpg", safe="").replace("%7Bn%7D", "{n}")
    paths = {"hits": "/_/w:300/plain/" + source.replace("{n}", "0") + "@jpg",
             "distinct": "/_/w:300/plain/" + source + "@jpg"}
    rows = []
    try:
        run = 0
        for case in CASES:
            sides = ["off", "on"] * ROUNDS + (["on, gzip"] if case == "hits" else [])
            for side in sides:
                run += 1
                rows.append(run_once(work, run, case, side, paths[case]))
    finally:
        with open(os.path.join(work, "nginx.pid")) as handle:
            os.kill(int(handle.read()), signal.SIGTERM)
    for case in CASES:
        medians = {}
        for side in ("off", "on", "on, gzip"):
            runs = [row for row in rows if row["case"] == case and row["side"] == side]
            if not runs:
                continue
            medians[side] = {key: statistics.median(row[key] for row in runs)
                             for key in ("requests_per_s", "p50_ms", "p99_ms", "server_cpu_us_per_request")}
            medians[side]["rates"] = [round(row["requests_per_s"], 1) for row in runs]
            medians[side]["exports"] = sum(row["exports"] for row in runs)
            medians[side]["export_bytes"] = sum(row["export_bytes"] for row in runs)
            medians[side]["spans_dropped"] = sum(row["spans_dropped"] for row in runs)
            print(json.dumps({"case": case, "side": side, "median": medians[side]}), flush=True)
        for side in ("on", "on, gzip"):
            if side in medians:
                print(f"{case}: {side} / off = "
                      f"{medians[side]['requests_per_s'] / medians['off']['requests_per_s']:.3f} in requests/s, "
                      f"{medians[side]['server_cpu_us_per_request'] / medians['off']['server_cpu_us_per_request']:.3f}"
                      " in server CPU a request", flush=True)
        # Each round's on run against the off run just before it: the machine's speed drifts between rounds.
        off = [row for row in rows if row["case"] == case and row["side"] == "off"]
        on = [row for row in rows if row["case"] == case and row["side"] == "on"]
        ratios = [round(b["requests_per_s"] / a["requests_per_s"], 3) for a, b in zip(off, on)]
        print(f"{case}: on / off by round = {ratios}, median {statistics.median(ratios):.3f}", flush=True)
    shutil.rmtree(work, ignore_errors=True)


main()
