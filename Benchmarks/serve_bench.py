"""`webimage serve` beside thumbor and nginx's image_filter module, with wrk on loopback (issue 15).

Usage: serve_bench.py DATA WORK WEBIMAGE THUMBOR BENCH [SECONDS]

One nginx is the origin for every server (and, on a second port, runs image_filter on the same files). Each case
is run on each server in turn with wrk (2 threads, 8 connections): "distinct" gives every request a source URL of
its own (`/v/N/FILE` on the origin), so nothing is cached and every request fetches, decodes, resizes and encodes;
"hot" repeats one URL, which `webimage serve` answers from its result cache, beside nginx serving the same bytes as
a static file. Prints one JSON line per result (requests/s, p50 and p99 latency, peak RSS). Every run starts
once the machine has been idle for a second, so that no server's work left from the run before is measured.

The distinct-URL rows of `webimage serve` and thumbor alternate, three runs each, and report medians. Beside them,
the decoder's floor: BENCH (WebImageBenchmarks) times one request's scaled decode and encode on one core, through
our coders and through TurboJPEG directly, and the floor is the requests/s those times allow on the cores that wrk
and the origin nginx leave (their CPU time read from /proc during our runs); a second floor row times it on every
core at once, since a VM's cores need not be independent. Both are timed right before each of our runs, and each
run's rate is set against the floor timed beside it (a ratio a run), since the machine's speed drifts. For a progressive source our server
stopped reading early, a second floor times the prefix it read (cut at the last whole scan), both sides on the same
bytes. The origin's access log says how many of each source's bytes it sent.
"""
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

DATA, WORK, WEBIMAGE, THUMBOR, BENCH = sys.argv[1:6]
SECONDS = int(sys.argv[6]) if len(sys.argv) > 6 else 10
ROUNDS = 3
CORES = os.cpu_count()
ORIGIN, FILTER, SERVE, THUMBOR_PORT = 18101, 18102, 18103, 18104
WWW = os.path.join(WORK, "www")
OURS = "swift-web-image"
THUMBOR_NAME = "thumbor 7.8 (Pillow 12), 2 processes"

# (name, file on the origin, output width, output extension)
CASES = [case for case in [
    ("12 MP JPEG → 300 px wide", "photo-12mp.jpg", 300, "jpg"),
    ("1 MP JPEG → 300 px wide", "photo-1mp.jpg", 300, "jpg"),
    ("12 MP progressive JPEG → 300 px wide", "photo-12mp-progressive.jpg", 300, "jpg"),
    ("animated GIF 640×480, 20 frames → 200 px wide", "pan-640x480-20.gif", 200, "gif"),
] if os.environ.get("SERVE_CASES", "") in case[1]]  # SERVE_CASES: only the cases whose file names contain it

from wrk_script import WRK_SCRIPT  # noqa: E402 (beside this file)


def nginx_config():
    return f"""worker_processes 2;
daemon on;
pid {WORK}/nginx.pid;
error_log {WORK}/nginx-error.log;
load_module /usr/lib/nginx/modules/ngx_http_image_filter_module.so;
events {{ worker_connections 4096; }}
http {{
    # On, as `webimage serve` writes a line per request too: the hot rows compare the same work. The bytes sent
    # of each body say how much of a source a server read; the connection serial, how many connections it opened.
    log_format sent '$request_uri $body_bytes_sent $connection';
    access_log {WORK}/nginx-access.log sent;
    sendfile on;
    keepalive_requests 1000000;
    types {{ image/jpeg jpg; image/gif gif; image/png png; }}
    server {{
        listen 127.0.0.1:{ORIGIN};
        root {WWW};
        location ~ ^/v/[0-9]+/(?<file>.+)$ {{ alias {WWW}/$file; }}
    }}
    server {{
        # reuseport: the kernel spreads wrk's eight connections over both workers. Without it one worker could
        # take them all, and image_filter's rows read half its rate in some invocations (43-57 against 95-100).
        listen 127.0.0.1:{FILTER} reuseport;
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


def nginx_workers():
    try:
        with open(os.path.join(WORK, "nginx.pid")) as handle:
            master = int(handle.read())
        with open(f"/proc/{master}/task/{master}/children") as handle:
            return [int(child) for child in handle.read().split()]
    except OSError:
        return []


def process_cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


def system_ticks():
    with open("/proc/stat") as handle:
        values = [int(value) for value in handle.readline().split()[1:]]
    return sum(values), values[3] + values[4]  # all, idle + iowait


def wait_until_quiet(seconds=120):
    """Waits until the machine is idle for a whole second (at least 90% of it), or `seconds` pass. A server keeps
    rendering the requests it had accepted when wrk stopped (thumbor's animated GIFs take seconds each): the next
    run, whoever's it is, must not share the cores with that tail."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        before = system_ticks()
        time.sleep(1)
        after = system_ticks()
        if (after[1] - before[1]) >= 0.9 * max(1, after[0] - before[0]):
            return
    print(f"warning: the machine was still busy {seconds} s after a run", file=sys.stderr)


RUNS = [0]


def wrk(url_pattern, seconds=SECONDS):
    """(requests/s, p50 ms, p99 ms, requests, errors, usage) for `url_pattern` ({n}: a number of each request's
    own); usage: the cores wrk and nginx used during the run and the share of all cores left idle."""
    wait_until_quiet()
    parts = urllib.parse.urlsplit(url_pattern.replace("{n}", "0"))
    base = f"{parts.scheme}://{parts.netloc}"
    path = url_pattern[len(base):]
    workers = nginx_workers()
    nginx_before, children_before = process_cpu_seconds(workers), resource.getrusage(resource.RUSAGE_CHILDREN)
    ticks_before, started = system_ticks(), time.monotonic()
    output = subprocess.run(
        ["wrk", "-t2", "-c8", f"-d{seconds}s", "--timeout", "60s", "-s", os.path.join(WORK, "bench.lua"), base,
         path, str(RUNS[0] * 1_000_000_000)], capture_output=True, text=True, check=True).stdout
    RUNS[0] += 1  # every run's numbers are its own: no run asks for a URL an earlier one rendered
    elapsed = time.monotonic() - started
    ticks_after, children_after = system_ticks(), resource.getrusage(resource.RUSAGE_CHILDREN)
    usage = {
        "wrk": (children_after.ru_utime + children_after.ru_stime - children_before.ru_utime
                - children_before.ru_stime) / elapsed,
        "nginx": (process_cpu_seconds(workers) - nginx_before) / elapsed,
        "idle": (ticks_after[1] - ticks_before[1]) / max(1, ticks_after[0] - ticks_before[0]),
    }
    match = re.search(r"^RESULT (\{.*\})$", output, re.M)
    if not match:
        raise SystemExit("wrk printed no result:\n" + output)
    result = json.loads(match.group(1))
    return (result["requests"] / result["seconds"], result["p50"], result["p99"], result["requests"],
            result["errors"], usage)


def downloaded_bytes():
    """The source bytes `webimage serve` has read so far (its /metrics)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{SERVE}/metrics") as response:
        for line in response.read().decode().splitlines():
            if line.startswith("webimage_download_bytes_total "):
                return float(line.split()[1])
    return 0.0


def origin_bytes_sent(name):
    """(requests, mean bytes sent, connections used) of the origin's answers for /v/N/`name` so far, and forgets
    them."""
    log = os.path.join(WORK, "nginx-access.log")
    sent, connections = [], set()
    with open(log) as handle:
        for line in handle:
            uri, count, connection = line.rstrip().rsplit(" ", 2)
            if uri.startswith("/v/") and uri.endswith("/" + name):
                sent.append(int(count))
                connections.add(connection)
    open(log, "w").close()
    subprocess.run(["nginx", "-c", os.path.join(WORK, "nginx.conf"), "-p", WORK + "/", "-s", "reopen"], check=True)
    return len(sent), (sum(sent) / len(sent) if sent else 0), len(connections)


def floor_times(name, width):
    """This case's scaled decode and encode on one core: {implementation: ms} from WebImageBenchmarks."""
    output = subprocess.run(["taskset", "-c", "0", BENCH, "serve-floor", os.path.join(WWW, name), str(width)],
                            capture_output=True, text=True, check=True).stdout
    return {row["impl"]: row["value"] for row in map(json.loads, output.splitlines())}


def busy_floor_times(name, width):
    """The same on every core at once, one copy per core: {implementation: mean of the copies' ms}. Two vCPUs of a
    VM need not be independent cores (a decode beside another was 0-33% slower on the benchmark machine), so the
    one-core floor times the cores can promise more than the cores give."""
    copies = [subprocess.Popen(["taskset", "-c", str(core), BENCH, "serve-floor", os.path.join(WWW, name), str(width)],
                               stdout=subprocess.PIPE, text=True) for core in range(CORES)]
    rows = {}
    for copy in copies:
        output, _ = copy.communicate()
        for row in map(json.loads, output.splitlines()):
            rows.setdefault(row["impl"], []).append(row["value"])
    return {impl: sum(values) / len(values) for impl, values in rows.items()}


def scan_ends(path):
    """Where each scan's entropy-coded data of the JPEG at `path` ends (the offset of the marker after it), if its
    frame is progressive (SOF2); [] otherwise."""
    with open(path, "rb") as handle:
        data = handle.read()
    ends, position, progressive = [], 2, False
    while position + 4 <= len(data) and data[position] == 0xFF:
        marker = data[position + 1]
        if marker == 0xD9:
            break
        length = data[position + 2] << 8 | data[position + 3]
        progressive |= marker == 0xC2
        position += 2 + length
        if marker == 0xDA:
            # The data runs to the next marker that is not a stuffed zero or a restart marker.
            while position + 1 < len(data) and not (data[position] == 0xFF and data[position + 1] != 0
                                                     and not 0xD0 <= data[position + 1] <= 0xD7):
                position += 1
            ends.append(position)
    return ends if progressive else []


def prefix_floor_times(name, width, bytes_read):
    """For a progressive source a server stopped reading early: the floor on the prefix it read (cut at the last
    scan that ended within `bytes_read`, closed with an end-of-image marker), as (prefix bytes, {impl: ms}), or
    None when the file is not progressive or was read to its last scan."""
    path = os.path.join(WWW, name)
    every = scan_ends(path)
    ends = [end for end in every if end <= bytes_read]
    if not ends or ends[-1] == every[-1]:
        return None
    with open(path, "rb") as handle:
        prefix = handle.read(ends[-1]) + b"\xff\xd9"
    prefix_name = "prefix-" + name
    with open(os.path.join(WWW, prefix_name), "wb") as handle:
        handle.write(prefix)
    return len(prefix), floor_times(prefix_name, width)


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


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
    for name in ("photo-12mp.jpg", "photo-12mp-progressive.jpg", "pan-640x480-20.gif"):
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

    # Each invocation numbers its URLs from 0: a cache left by an earlier one would answer them as hits.
    shutil.rmtree(os.path.join(WORK, "cache"), ignore_errors=True)
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
            # Measured while every server is idle, pinned to one core, right before each of our runs: this
            # machine's speed drifts by a fifth within minutes (other guests on the host), so a floor timed once
            # per case can be a different machine's from the run it is set against.
            round_floors, round_busy_floors = [], []
            alternating = [
                (OURS, serve_path(f"w:{width}", distinct, ext), [serve.pid]),
                (THUMBOR_NAME, f"http://127.0.0.1:{THUMBOR_PORT}/unsafe/{width}x0/127.0.0.1:{ORIGIN}{distinct}",
                 [thumbor.pid]),
            ]
            runs = {impl: [] for impl, _, _ in alternating}
            # What the origin did for each request served: bytes sent, connections opened, requests answered.
            origin_side = {impl: [] for impl, _, _ in alternating}
            for _ in range(ROUNDS):
                if ext == "jpg":
                    wait_until_quiet()
                    round_floors.append(floor_times(name, width))
                    round_busy_floors.append(busy_floor_times(name, width))
                for impl, url, pids in alternating:
                    wait_until_answering(url.replace("{n}", "0"))
                    origin_bytes_sent(name)
                    downloaded = downloaded_bytes() if impl == OURS else 0
                    result = wrk(url)
                    # What the origin sent overstates what a server that stops reading took: loopback's socket
                    # buffers accept megabytes before the server closes. Ours counts what it read.
                    requests, origin_sent, connections = origin_bytes_sent(name)
                    sent = origin_sent if impl != OURS else (downloaded_bytes() - downloaded) / max(1, result[3])
                    runs[impl].append((result, sent))
                    served = max(1, result[3])
                    origin_side[impl].append((origin_sent * requests / served, connections / served, requests / served))
            for impl, _, pids in alternating:
                results = [result for result, _ in runs[impl]]
                rates = [round(result[0], 1) for result in results]
                emit(f"{case}, distinct URLs", impl, median(rates), median([r[1] for r in results]),
                     median([r[2] for r in results]), sum(r[4] for r in results), peak_rss_mb(pids))
                print(json.dumps({"suite": "serve", "name": f"{case}, distinct URLs: requests/s of each run",
                                  "impl": impl, "value": median(rates),
                                  "unit": "req/s median (runs in order: " + ", ".join(map(str, rates)) + ")"},
                                 ensure_ascii=False))
            ours = [result for result, _ in runs[OURS]]
            idle = median([result[5]["idle"] for result in ours])
            left = CORES - median([result[5]["wrk"] for result in ours]) - median([result[5]["nginx"] for result in ours])
            floors = {impl: median([times[impl] for times in round_floors]) for impl in (round_floors or [{}])[0]}
            busy_floors = {impl: median([times[impl] for times in round_busy_floors])
                           for impl in (round_busy_floors or [{}])[0]}
            # Each of our runs against the floor timed just before it, on the cores wrk and nginx left in that run.
            for label, timed in (("", round_floors), (" with every core decoding at once", round_busy_floors)):
                if not timed:
                    continue
                ratios = []
                for result, times in zip(ours, timed):
                    run_left = CORES - result[5]["wrk"] - result[5]["nginx"]
                    ratios.append(round(result[0] / (run_left * 1000 / times[OURS]), 3))
                print(json.dumps({"suite": "serve", "name": f"{case}, distinct URLs: our requests/s ÷ our floor{label}",
                                  "impl": OURS + ", each run against the floor timed just before it",
                                  "value": median(ratios),
                                  "unit": "× median (runs in order: " + ", ".join(map(str, ratios)) + ")"},
                                 ensure_ascii=False))
            for impl, ms in floors.items():
                print(json.dumps({"suite": "serve", "name": f"{case}, distinct URLs: requests/s",
                                  "impl": f"decoder's floor: {impl}, {ms:.2f} ms a request on one core, "
                                          f"on the {left:.2f} cores wrk and nginx left",
                                  "value": left * 1000 / ms, "unit": "req/s"}, ensure_ascii=False))
            for impl, ms in busy_floors.items():
                print(json.dumps({"suite": "serve", "name": f"{case}, distinct URLs: requests/s",
                                  "impl": f"decoder's floor with every core decoding at once: {impl}, {ms:.2f} ms a "
                                          f"request, on the {left:.2f} cores wrk and nginx left",
                                  "value": left * 1000 / ms, "unit": "req/s"}, ensure_ascii=False))
            # A progressive source our server stopped reading early: the floor on the bytes it read too (every
            # server idle again), ours and TurboJPEG on the same prefix.
            ours_read = median([bytes_sent for _, bytes_sent in runs[OURS]])
            prefix = prefix_floor_times(name, width, ours_read) if ext == "jpg" else None
            if prefix is not None:
                prefix_size, prefix_floors = prefix
                for impl, ms in prefix_floors.items():
                    print(json.dumps({"suite": "serve", "name": f"{case}, distinct URLs: requests/s",
                                      "impl": f"decoder's floor on the {prefix_size}-byte prefix our server read: "
                                              f"{impl}, {ms:.2f} ms a request on one core, on the {left:.2f} cores "
                                              "wrk and nginx left",
                                      "value": left * 1000 / ms, "unit": "req/s"}, ensure_ascii=False))
            print(json.dumps({"suite": "serve", "name": f"{case}, distinct URLs: CPU left idle during our runs",
                              "impl": OURS, "value": 100 * idle, "unit": "%"}, ensure_ascii=False))
            size = os.path.getsize(os.path.join(WWW, name))
            for impl, _, _ in alternating:
                sent = median([bytes_sent for _, bytes_sent in runs[impl]])
                print(json.dumps({"suite": "serve", "name": f"{case}, distinct URLs: source bytes read a request",
                                  "impl": impl, "value": 100 * sent / size, "unit": f"% of {size} bytes"},
                                 ensure_ascii=False))
                origin_sent = median([row[0] for row in origin_side[impl]])
                print(json.dumps({"suite": "serve", "name": f"{case}, distinct URLs: bytes the origin sent a request "
                                  "(nginx's $body_bytes_sent)", "impl": impl, "value": 100 * origin_sent / size,
                                  "unit": f"% of {size} bytes"}, ensure_ascii=False))
                print(json.dumps({"suite": "serve", "name": f"{case}, distinct URLs: origin connections and requests "
                                  "a request", "impl": impl, "value": median([row[1] for row in origin_side[impl]]),
                                  "unit": "connections a request (requests a request: "
                                          f"{median([row[2] for row in origin_side[impl]]):.2f})"},
                                 ensure_ascii=False))
            extra = [("nginx image_filter, 2 workers", f"http://127.0.0.1:{FILTER}/w{width}{distinct}", None)]
            if ext == "gif":  # the others answer the first frame only: so does this row
                extra.insert(0, (OURS + ", first frame only", serve_path(f"w:{width}/frame:0", distinct, ext),
                                 [serve.pid]))
            for impl, url, pids in extra:
                wait_until_answering(url.replace("{n}", "0"))
                rate, p50, p99, _, errors, _ = wrk(url)
                emit(f"{case}, distinct URLs", impl, rate, p50, p99, errors, peak_rss_mb(pids) if pids else None)
            sys.stdout.flush()

            # Hot: one URL again and again; nginx serves the bytes `webimage serve` answered as a static file.
            hot = serve_path(f"w:{width}", f"/{name}", ext)
            with urllib.request.urlopen(hot) as response:
                body = response.read()
            static_name = f"hot-{width}-{name}"
            with open(os.path.join(WWW, static_name), "wb") as handle:
                handle.write(body)
            rate, p50, p99, _, errors, _ = wrk(hot)
            emit(f"{case}, hot cache ({len(body)} bytes)", OURS, rate, p50, p99, errors)
            rate, p50, p99, _, errors, _ = wrk(f"http://127.0.0.1:{ORIGIN}/{static_name}")
            emit(f"{case}, hot cache ({len(body)} bytes)", "nginx, the same bytes as a static file", rate, p50, p99,
                 errors)

        # Memory over many requests: resident set before and after 100 000 hot requests and a distinct-URL run.
        if os.environ.get("SERVE_CASES"):
            return
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


if __name__ == "__main__":  # info_bench.py imports the helpers
    main()
