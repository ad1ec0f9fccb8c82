"""`webimage serve` beside thumbor and nginx's image_filter module, with wrk on loopback (issue 15).

Usage: serve_bench.py DATA WORK WEBIMAGE THUMBOR [SECONDS]

One nginx is the origin for every server (and, on a second port, runs image_filter on the same files). Each case
is run on each server in turn with wrk (2 threads, 8 connections): "distinct" gives every request a source URL of
its own (`/v/N/FILE` on the origin), so nothing is cached and every request fetches, decodes, resizes and encodes;
"hot" repeats one URL, which `webimage serve` answers from its result cache, beside nginx serving the same bytes as
a static file. Prints one JSON line per result (requests/s, p50 and p99 latency, peak RSS).
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

DATA, WORK, WEBIMAGE, THUMBOR = sys.argv[1:5]
SECONDS = int(sys.argv[5]) if len(sys.argv) > 5 else 10
ORIGIN, FILTER, SERVE, THUMBOR_PORT = 18101, 18102, 18103, 18104
WWW = os.path.join(WORK, "www")
OURS = "swift-web-image"

# (name, file on the origin, output width, output extension)
CASES = [
    ("12 MP JPEG → 300 px wide", "photo-12mp.jpg", 300, "jpg"),
    ("1 MP JPEG → 300 px wide", "photo-1mp.jpg", 300, "jpg"),
    ("animated GIF 640×480, 20 frames → 200 px wide", "pan-640x480-20.gif", 200, "gif"),
]

WRK_SCRIPT = """
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) pattern = args[1]; n = 0 end
function request()
  n = n + 1
  return wrk.format(nil, (string.gsub(pattern, "{n}", tostring(id * 10000000 + n))))
end
function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format('RESULT {"requests": %d, "seconds": %f, "p50": %f, "p99": %f, "errors": %d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors.connect + errors.read + errors.write + errors.timeout + errors.status))
end
"""


def nginx_config():
    return f"""worker_processes 2;
daemon on;
pid {WORK}/nginx.pid;
error_log {WORK}/nginx-error.log;
load_module /usr/lib/nginx/modules/ngx_http_image_filter_module.so;
events {{ worker_connections 4096; }}
http {{
    # On, as `webimage serve` writes a line per request too: the hot rows compare the same work.
    access_log {WORK}/nginx-access.log;
    sendfile on;
    keepalive_requests 1000000;
    types {{ image/jpeg jpg; image/gif gif; image/png png; }}
    server {{
        listen 127.0.0.1:{ORIGIN};
        root {WWW};
        location ~ ^/v/[0-9]+/(?<file>.+)$ {{ alias {WWW}/$file; }}
    }}
    server {{
        listen 127.0.0.1:{FILTER};
        location ~ ^/w(?<width>[0-9]+)/v/[0-9]+/(?<file>.+)$ {{
            alias {WWW}/$file;
            image_filter resize $width -;
            image_filter_buffer 64M;
            image_filter_jpeg_quality 80;
        }}
    }}
}}
"""


def wait_until_answering(url, process=None, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if process is not None and process.poll() is not None:
            raise SystemExit(f"the server for {url} exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                response.read()
                return
        except Exception:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer within {seconds} s")


def peak_rss_mb(pids):
    """The sum of the peak resident sets (VmHWM) of `pids` and their children, in MB."""
    total = 0
    seen = set()
    pending = list(pids)
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmHWM:"):
                        total += int(line.split()[1])
            with open(f"/proc/{pid}/task/{pid}/children") as handle:
                pending += [int(child) for child in handle.read().split()]
        except OSError:
            pass
    return total / 1024


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def wrk(url_pattern, seconds=SECONDS):
    """(requests/s, p50 ms, p99 ms, requests, errors) for `url_pattern` ({n}: a number of each request's own)."""
    parts = urllib.parse.urlsplit(url_pattern.replace("{n}", "0"))
    base = f"{parts.scheme}://{parts.netloc}"
    path = url_pattern[len(base):]
    output = subprocess.run(
        ["wrk", "-t2", "-c8", f"-d{seconds}s", "--timeout", "60s", "-s", os.path.join(WORK, "bench.lua"), base,
         path], capture_output=True, text=True, check=True).stdout
    match = re.search(r"^RESULT (\{.*\})$", output, re.M)
    if not match:
        raise SystemExit("wrk printed no result:\n" + output)
    result = json.loads(match.group(1))
    return (result["requests"] / result["seconds"], result["p50"], result["p99"], result["requests"],
            result["errors"])


def emit(case, impl, rate, p50, p99, errors, rss=None):
    suffix = f", {errors} errors" if errors else ""
    print(json.dumps({"suite": "serve", "name": f"{case}: requests/s", "impl": impl + suffix, "value": rate,
                      "unit": "req/s"}, ensure_ascii=False))
    print(json.dumps({"suite": "serve", "name": f"{case}: p50 latency", "impl": impl, "value": p50, "unit": "ms"},
                     ensure_ascii=False))
    print(json.dumps({"suite": "serve", "name": f"{case}: p99 latency", "impl": impl, "value": p99, "unit": "ms"},
                     ensure_ascii=False))
    if rss is not None:
        print(json.dumps({"suite": "serve", "name": f"{case}: peak RSS", "impl": impl, "value": rss, "unit": "MB"},
                         ensure_ascii=False))
    sys.stdout.flush()


def serve_path(options, source_path, ext):
    source = urllib.parse.quote(f"http://127.0.0.1:{ORIGIN}{source_path}", safe="").replace("%7Bn%7D", "{n}")
    return f"http://127.0.0.1:{SERVE}/_/{options}/plain/{source}@{ext}"


def main():
    os.makedirs(WWW, exist_ok=True)
    os.chmod(WORK, 0o755)
    for name in ("photo-12mp.jpg", "pan-640x480-20.gif"):
        target = os.path.join(WWW, name)
        if not os.path.exists(target):
            subprocess.run(["cp", os.path.join(DATA, name), target], check=True)
    if not os.path.exists(os.path.join(WWW, "photo-1mp.jpg")):
        subprocess.run(["convert", os.path.join(DATA, "photo-12mp.jpg"), "-resize", "1200x900", "-quality", "90",
                        os.path.join(WWW, "photo-1mp.jpg")], check=True)
    with open(os.path.join(WORK, "bench.lua"), "w") as handle:
        handle.write(WRK_SCRIPT)
    with open(os.path.join(WORK, "nginx.conf"), "w") as handle:
        handle.write(nginx_config())
    with open(os.path.join(WORK, "thumbor.conf"), "w") as handle:
        handle.write("LOADER = 'thumbor.loaders.http_loader'\nSTORAGE = 'thumbor.storages.no_storage'\n"
                     "RESULT_STORAGE = None\nALLOW_UNSAFE_URL = True\nQUALITY = 80\nMAX_AGE = 31536000\n")

    processes = []
    subprocess.run(["nginx", "-c", os.path.join(WORK, "nginx.conf"), "-p", WORK + "/"], check=True)
    try:
        serve = subprocess.Popen([WEBIMAGE, "serve", "--bind", f"127.0.0.1:{SERVE}", "--insecure",
                                  "--allow-loopback-sources", "--cache-dir", os.path.join(WORK, "cache"),
                                  "--workers", "2", "--queue", "4096"],
                                 stdout=subprocess.DEVNULL, stderr=open(os.path.join(WORK, "serve.log"), "w"),
                                 start_new_session=True)
        processes.append(serve)
        thumbor = subprocess.Popen([THUMBOR, "-p", str(THUMBOR_PORT), "-i", "127.0.0.1", "-c",
                                    os.path.join(WORK, "thumbor.conf"), "--processes", "2", "-l", "error"],
                                   stdout=subprocess.DEVNULL, stderr=open(os.path.join(WORK, "thumbor.log"), "w"),
                                   start_new_session=True)
        processes.append(thumbor)
        wait_until_answering(f"http://127.0.0.1:{SERVE}/health", serve)
        wait_until_answering(f"http://127.0.0.1:{THUMBOR_PORT}/healthcheck", thumbor)
        wait_until_answering(f"http://127.0.0.1:{ORIGIN}/photo-1mp.jpg")

        for case, name, width, ext in CASES:
            distinct = f"/v/{{n}}/{name}"
            targets = [
                (OURS, serve_path(f"w:{width}", distinct, ext), [serve.pid]),
                ("thumbor 7.8 (Pillow 12), 2 processes", f"http://127.0.0.1:{THUMBOR_PORT}/unsafe/{width}x0/"
                 f"127.0.0.1:{ORIGIN}{distinct}", [thumbor.pid]),
                ("nginx image_filter, 2 workers", f"http://127.0.0.1:{FILTER}/w{width}{distinct}", None),
            ]
            if ext == "gif":  # the others answer the first frame only: so does this row
                targets.insert(1, (OURS + ", first frame only", serve_path(f"w:{width}/frame:0", distinct, ext),
                                   [serve.pid]))
            for impl, url, pids in targets:
                wait_until_answering(url.replace("{n}", "0"))
                rate, p50, p99, _, errors = wrk(url)
                emit(f"{case}, distinct URLs", impl, rate, p50, p99, errors, peak_rss_mb(pids) if pids else None)

            # Hot: one URL again and again; nginx serves the bytes `webimage serve` answered as a static file.
            hot = serve_path(f"w:{width}", f"/{name}", ext)
            with urllib.request.urlopen(hot) as response:
                body = response.read()
            static_name = f"hot-{width}-{name}"
            with open(os.path.join(WWW, static_name), "wb") as handle:
                handle.write(body)
            rate, p50, p99, _, errors = wrk(hot)
            emit(f"{case}, hot cache ({len(body)} bytes)", OURS, rate, p50, p99, errors)
            rate, p50, p99, _, errors = wrk(f"http://127.0.0.1:{ORIGIN}/{static_name}")
            emit(f"{case}, hot cache ({len(body)} bytes)", "nginx, the same bytes as a static file", rate, p50, p99,
                 errors)

        # Memory over many requests: resident set before and after 100 000 hot requests and a distinct-URL run.
        hot = serve_path("w:300", "/photo-1mp.jpg", "jpg")
        before = rss_mb(serve.pid)
        total = 0
        while total < 100_000:
            total += wrk(hot, seconds=10)[3]
        after_hot = rss_mb(serve.pid)
        distinct_requests = wrk(serve_path("w:300", "/v/{n}/photo-1mp.jpg", "jpg"), seconds=30)[3]
        after_distinct = rss_mb(serve.pid)
        for label, value in ((f"before (after the runs above)", before),
                             (f"after {total} more hot requests", after_hot),
                             (f"after {distinct_requests} more distinct 1 MP renders", after_distinct)):
            print(json.dumps({"suite": "serve", "name": "`webimage serve` resident set " + label, "impl": OURS,
                              "value": value, "unit": "MB"}, ensure_ascii=False))
    finally:
        for process in processes:  # each leads a session of its own: thumbor's forked processes go too
            os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        try:
            with open(os.path.join(WORK, "nginx.pid")) as handle:
                os.kill(int(handle.read()), signal.SIGTERM)
        except OSError:
            pass


main()
