#!/usr/bin/env python3
"""The soak of the proxy: `webimage serve` under a steady mix of real traffic for MINUTES minutes.

Usage: scripts/soak serve [MINUTES]            (builds the release binary; this script is what it runs)
       WEBIMAGE_BINARY=PATH scripts/soak-serve.py [MINUTES]

Everything listens on 127.0.0.1 on free ports and is stopped by PID at the end, also on Ctrl-C or SIGTERM:
- an nginx origin serving a 1 MP JPEG, a PNG, an animated GIF and a HEIC that crashes libde265 (the fuzz input
  Fuzz/known-crashes/heif-libde265-recursion.bin without its first byte), each under /v/N/NAME for any N, and 404
  for anything else;
- a faulty origin (asyncio, in this process): /slow/N dribbles 256 bytes every 0.25 s, /reset/N resets the
  connection (odd N before answering, even N after 1 000 bytes of the body), /truncated/N sends half of the
  Content-Length and closes, /huge/N sends an endless body (odd N announce 10 GB, even N send no length);
- `webimage serve --insecure --allow-loopback-sources --workers 2 --queue 4096` with small caps (see SERVE_FLAGS).

The load: SOAK_CONCURRENCY (16) clients, one request per connection, each picking a distinct URL (a new N:
JPEG, PNG or animated GIF source), a hot URL (8 fixed ones) or, now and then, a client that sends its request and
disconnects before reading. Next to them, faulty-origin requests are started at one for every nine others (about
10% of all requests), at most 16 at once, so that the 5 s the slow origin costs does not eat the clients' share.
A server that exits is restarted on the same port and every exit is reported.

Every minute: answers by status, throughput, latency, the server's RSS and open descriptors (and its decoder
helpers, if it has child processes), and the gauges of GET /metrics. At the end, a summary with checks: every
minute's throughput at least 80% of the first's, no server exit, every gauge back to 0 within 30 s of the load
stopping, no request left unanswered (45 s client timeout; the server's own is 15 s), every 200 an image of the
asked format and width. Exits 1 if a check fails. The per-minute figures go to a JSON file whose path is printed.

Environment: WEBIMAGE_BINARY (required here), SOAK_CONCURRENCY (16), SOAK_FAULTS (slow,reset,404,truncated,huge,
heic: the fault kinds to use), SOAK_HEIC_SECONDS (10: the crashing HEIC is asked for at most once in that many
seconds, its turn going to the next kind meanwhile, so that a server without decoder isolation is not restarted
all the time; 0 gives it its full turn), SOAK_JSON (where to write the figures), SOAK_MINUTE_SECONDS (60:
shorter only to try the script itself), SOAK_SEED (1: the mix of URLs).
"""
import asyncio, collections, json, os, random, re, signal, socket, subprocess, sys, tempfile, time, urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MINUTES = int(sys.argv[1]) if len(sys.argv) > 1 else 30
MINUTE = float(os.environ.get("SOAK_MINUTE_SECONDS", "60"))
CONCURRENCY = int(os.environ.get("SOAK_CONCURRENCY", "16"))
HEIC_SECONDS = float(os.environ.get("SOAK_HEIC_SECONDS", "10"))
FAULTS = [kind for kind in os.environ.get("SOAK_FAULTS", "slow,reset,404,truncated,huge,heic").split(",") if kind]
BINARY = os.environ.get("WEBIMAGE_BINARY", "")
WARMUP_MINUTES = 2
CLIENT_TIMEOUT = 45.0
GAUGE_WAIT = 30.0
MAX_EXITS = 100
FAULT_CAP = 16
MAX_SRC_BYTES = 8_000_000
HUGE_LIMIT = 64 * MAX_SRC_BYTES  # the faulty origin stops there whatever the server does
GAUGES = ["webimage_serve_queue_depth", "webimage_serve_renders_in_flight", "webimage_serve_render_slots_busy",
          "webimage_serve_download_slots_busy", "webimage_serve_downloads_queued"]
RESTARTS = "webimage_decode_helper_restarts_total"
SERVE_FLAGS = ["--insecure", "--allow-loopback-sources", "--workers", "2", "--queue", "4096",
               "--memory-mb", "64", "--source-cache-mb", "64", "--result-cache-mb", "64",
               "--download-timeout", "5", "--request-timeout", "15", "--max-src-bytes", str(MAX_SRC_BYTES)]


def log(text):
    print(text, flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---------------------------------------------------------------------------------------------------- fixtures


def make_fixtures(www):
    photo = os.path.join(www, "photo.jpg")
    subprocess.run(["convert", "-size", "1200x900", "plasma:fractal", "-quality", "90", photo], check=True)
    subprocess.run(["convert", "-size", "640x480", "plasma:fractal", os.path.join(www, "image.png")], check=True)
    subprocess.run(["convert", "-delay", "10", "-loop", "0", "-size", "240x180"] + ["plasma:fractal"] * 6 +
                   ["-colors", "64", os.path.join(www, "anim.gif")], check=True)
    crash = open(os.path.join(ROOT, "Fuzz", "known-crashes", "heif-libde265-recursion.bin"), "rb").read()
    open(os.path.join(www, "crash.heic"), "wb").write(crash[1:])  # the first byte is the fuzz harness's option
    return open(photo, "rb").read()


def image_info(body):
    """(format, width) of an encoded image, width None when not read."""
    if body[:3] == b"\xff\xd8\xff":
        i = 2
        while i + 9 <= len(body):
            if body[i] != 0xFF:
                return "jpg", None
            marker = body[i + 1]
            if marker == 0xFF:
                i += 1
                continue
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                return "jpg", int.from_bytes(body[i + 7:i + 9], "big")
            i += 2 + int.from_bytes(body[i + 2:i + 4], "big")
        return "jpg", None
    if body[:8] == b"\x89PNG\r\n\x1a\n":
        return "png", int.from_bytes(body[16:20], "big")
    if body[:6] in (b"GIF87a", b"GIF89a"):
        return "gif", int.from_bytes(body[6:8], "little")
    if body[:4] == b"RIFF" and body[8:12] == b"WEBP":
        return "webp", None
    return None, None


# ---------------------------------------------------------------------------------------------- faulty origin


class FaultyOrigin:
    def __init__(self, photo):
        self.photo = photo
        self.huge_bytes_sent = []  # how far each huge body got before the server hung up

    async def handle(self, reader, writer):
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            parts = head.split(b" ", 2)[1].decode().split("/")
            kind, n = parts[1], int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else 0
            await getattr(self, kind.replace("-", "_"))(reader, writer, n)
        except (Exception, asyncio.CancelledError):  # cancelled: the soak is being stopped
            pass
        finally:
            try:
                writer.close()
            except Exception:
                pass

    def head(self, length=None, extra=""):
        text = "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nConnection: close\r\n"
        if length is not None:
            text += f"Content-Length: {length}\r\n"
        return (text + extra + "\r\n").encode()

    async def slow(self, reader, writer, n):
        writer.write(self.head(len(self.photo)))
        started = time.monotonic()
        for offset in range(0, len(self.photo), 256):
            if reader.at_eof() or writer.is_closing() or time.monotonic() - started > 60:
                return
            writer.write(self.photo[offset:offset + 256])
            await writer.drain()
            await asyncio.sleep(0.25)

    async def reset(self, reader, writer, n):
        if n % 2 == 0:
            writer.write(self.head(len(self.photo)) + self.photo[:1000])
            await writer.drain()
            await asyncio.sleep(0.05)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        writer.transport.abort()

    async def truncated(self, reader, writer, n):
        writer.write(self.head(len(self.photo)) + self.photo[:len(self.photo) // 2])
        await writer.drain()

    async def huge(self, reader, writer, n):
        writer.write(self.head(10 * 1024 ** 3 if n % 2 else None) + self.photo)
        sent, chunk = len(self.photo), bytes(range(256)) * 256
        try:
            while sent < HUGE_LIMIT and not reader.at_eof():
                writer.write(chunk)
                await writer.drain()
                sent += len(chunk)
        finally:
            self.huge_bytes_sent.append(sent)


# ------------------------------------------------------------------------------------------------------ server


def process_rss_kb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def process_cpu_seconds(pid):
    try:
        stat = open(f"/proc/{pid}/stat").read()
        fields = stat[stat.rindex(")") + 2:].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def descendants(pid):
    """PIDs of the processes whose parent chain leads to pid."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
                parents[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, p in parents.items() if p == parent]
        found += children
        frontier += children
    return found


class Server:
    def __init__(self, work, flags):
        self.work, self.flags = work, flags
        self.port = free_port()
        self.process = None
        self.exits = []  # every exit we did not ask for
        self.helpers_seen = set()
        self.out_path = os.path.join(work, "serve.out")
        self.log_path = os.path.join(work, "serve.log")

    async def start(self):
        for attempt in range(5):
            listening_before = self.listening_lines()
            self.process = subprocess.Popen(
                [BINARY, "serve", "--bind", f"127.0.0.1:{self.port}", "--cache-dir", os.path.join(self.work, "cache")]
                + self.flags, stdin=subprocess.DEVNULL, stdout=open(self.out_path, "ab"),
                stderr=open(self.log_path, "ab"))
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and self.process.poll() is None:
                if self.listening_lines() > listening_before:
                    return
                await asyncio.sleep(0.1)
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
                raise RuntimeError(f"the server did not say it was listening within 120 s; see {self.log_path}")
            log(f"  the server exited with {self.process.returncode} while starting (attempt {attempt + 1}); "
                f"trying another port")
            self.port = free_port()
        raise RuntimeError(f"the server did not start; see {self.log_path}")

    def listening_lines(self):
        try:
            return open(self.out_path, "rb").read().count(b"listening on")
        except OSError:
            return 0

    @property
    def pid(self):
        return self.process.pid if self.process and self.process.poll() is None else None

    def log_tail(self, lines=12):
        try:
            return open(self.log_path, "rb").read()[-8000:].decode(errors="replace").splitlines()[-lines:]
        except OSError:
            return []

    async def stop(self):
        """SIGTERM, then SIGKILL after 20 s; returns what happened."""
        if not self.process or self.process.poll() is not None:
            return "not running"
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        while self.process.poll() is None and time.monotonic() - started < 20:
            await asyncio.sleep(0.05)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
            return "did not exit within 20 s of SIGTERM: killed"
        return f"exited {self.process.returncode} {time.monotonic() - started:.2f} s after SIGTERM"

    def kill_now(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


# ------------------------------------------------------------------------------------------------------ client


async def http_get(port, path, timeout):
    """(status, headers, body) of GET path, one request on one connection."""
    async def exchange():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: */*\r\n"
                         f"Connection: close\r\n\r\n".encode())
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            status = int(head[0].split(" ")[1])
            headers = {}
            for line in head[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            if "content-length" in headers:
                body = await reader.readexactly(int(headers["content-length"]))
            elif headers.get("transfer-encoding", "").lower() == "chunked":
                body = b""
                while True:
                    size = int((await reader.readline()).split(b";")[0], 16)
                    if size == 0:
                        while (await reader.readline()) not in (b"\r\n", b""):
                            pass
                        break
                    body += await reader.readexactly(size)
                    await reader.readexactly(2)
            else:
                body = await reader.read()
            return status, headers, body
        finally:
            writer.transport.abort()
    return await asyncio.wait_for(exchange(), timeout)


def classify(error):
    if isinstance(error, (asyncio.TimeoutError, TimeoutError)):
        return "client-timeout"
    if isinstance(error, ConnectionRefusedError):
        return "refused"
    if isinstance(error, (ConnectionResetError, BrokenPipeError)):
        return "reset"
    if isinstance(error, asyncio.IncompleteReadError):
        return "incomplete"
    return type(error).__name__


def parse_metrics(text):
    values = collections.defaultdict(float)
    statuses = {}
    for line in text.splitlines():
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)", line)
        if not m or line.startswith("#"):
            continue
        try:
            value = float(m.group(3))
        except ValueError:
            continue
        values[m.group(1)] += value
        if m.group(1) == "webimage_serve_requests_total":
            s = re.search(r'status="(\d+)"', m.group(2) or "")
            if s:
                statuses[s.group(1)] = int(value)
    return values, statuses


# -------------------------------------------------------------------------------------------------------- soak


class Minute:
    def __init__(self):
        self.by_status = collections.Counter()
        self.by_kind = collections.defaultdict(collections.Counter)
        self.latencies = []
        self.disconnected = 0
        self.bad = 0
        self.fault_skipped = 0


class Soak:
    def __init__(self, work):
        self.work = work
        self.server = Server(work, SERVE_FLAGS)
        self.minute = Minute()
        self.totals = Minute()
        self.records = []
        self.stopping = False
        self.counter = 0
        self.faults_in_flight = set()
        self.fault_turn = 0
        self.bad_examples = []
        self.gif_frames = collections.Counter()
        self.started = None
        self.stopped = None
        self.exits_during_load = 0
        self.last_heic = 0.0

    def source(self, origin, path):
        return urllib.parse.quote(f"http://127.0.0.1:{origin}{path}", safe="")

    def next_n(self):
        self.counter += 1
        return 10_000_000 + self.counter

    def regular(self):
        """(kind, path, expected (format, width) of a 200) for one client request."""
        r = random.random()
        if r < 0.03:
            return "disconnect", f"/_/w:300/plain/{self.source(self.origin, f'/v/{self.next_n()}/photo.jpg')}@jpg", None
        if r < 0.25:
            i = random.randrange(8)
            if i < 4:
                return "hot", f"/_/w:300/plain/{self.source(self.origin, f'/v/{i + 1}/photo.jpg')}@jpg", ("jpg", 300)
            if i < 6:
                return "hot", f"/_/w:300/plain/{self.source(self.origin, f'/v/{i + 1}/image.png')}@png", ("png", 300)
            return "hot", f"/_/w:160/plain/{self.source(self.origin, f'/v/{i + 1}/anim.gif')}@gif", ("gif", 160)
        n = self.next_n()
        pick = random.random()
        if pick < 0.6:
            return "new-jpg", f"/_/w:300/plain/{self.source(self.origin, f'/v/{n}/photo.jpg')}@jpg", ("jpg", 300)
        if pick < 0.7:
            return "new-jpg-webp", f"/_/w:300/plain/{self.source(self.origin, f'/v/{n}/photo.jpg')}@webp", ("webp", None)
        if pick < 0.85:
            return "new-png", f"/_/w:300/plain/{self.source(self.origin, f'/v/{n}/image.png')}@png", ("png", 300)
        return "new-gif", f"/_/w:160/plain/{self.source(self.origin, f'/v/{n}/anim.gif')}@gif", ("gif", 160)

    def fault(self):
        kind = FAULTS[self.fault_turn % len(FAULTS)]
        self.fault_turn += 1
        if kind == "heic" and len(FAULTS) > 1:
            if time.monotonic() - self.last_heic < HEIC_SECONDS:
                kind = FAULTS[self.fault_turn % len(FAULTS)]
                self.fault_turn += 1
            else:
                self.last_heic = time.monotonic()
        n = self.next_n()
        if kind == "404":
            path = self.source(self.origin, f"/v/{n}/missing.jpg")
        elif kind == "heic":
            path = self.source(self.origin, f"/v/{n}/crash.heic")
        else:
            path = self.source(self.faulty, f"/{kind}/{n}")
            if kind == "reset":
                kind = "reset-after-1000-bytes" if n % 2 == 0 else "reset-at-once"
            elif kind == "huge":
                kind = "huge-no-length" if n % 2 == 0 else "huge-10GB-length"
        return f"fault:{kind}", f"/_/w:300/plain/{path}@jpg", None

    def record(self, kind, outcome, started, expected=None, body=b""):
        elapsed = time.monotonic() - started
        for bucket in (self.minute, self.totals):
            bucket.by_status[outcome] += 1
            bucket.by_kind[kind][outcome] += 1
            if isinstance(outcome, int):
                bucket.latencies.append(elapsed)
        if outcome == 200 and expected:
            fmt, width = image_info(body)
            if fmt != expected[0] or (expected[1] is not None and width != expected[1]):
                self.minute.bad += 1
                self.totals.bad += 1
                if len(self.bad_examples) < 10:
                    self.bad_examples.append({"kind": kind, "expected": expected, "got": [fmt, width],
                                              "bytes": len(body)})
            if fmt == "gif":
                self.gif_frames["animated" if body.count(b"\x21\xf9\x04") > 1 else "single frame"] += 1

    async def request(self, kind, path, expected):
        started = time.monotonic()
        try:
            status, headers, body = await http_get(self.server.port, path, CLIENT_TIMEOUT)
            self.record(kind, status, started, expected, body)
        except Exception as error:
            self.record(kind, classify(error), started)

    async def disconnect(self, path):
        """Sends the request and goes away before the answer (half by FIN, half by RST)."""
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.server.port)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            await writer.drain()
            await asyncio.sleep(random.uniform(0, 0.2))
            if random.random() < 0.5:
                writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                                           b"\x01\x00\x00\x00\x00\x00\x00\x00")
                writer.transport.abort()
            else:
                writer.close()
            self.minute.disconnected += 1
            self.totals.disconnected += 1
        except Exception as error:
            self.record("disconnect", classify(error), time.monotonic())

    async def client(self):
        while not self.stopping:
            kind, path, expected = self.regular()
            if kind == "disconnect":
                await self.disconnect(path)
            else:
                await self.request(kind, path, expected)
            if FAULTS and random.random() < 1 / 9 and not self.stopping:
                if len(self.faults_in_flight) < FAULT_CAP:
                    task = asyncio.ensure_future(self.request(*self.fault()))
                    self.faults_in_flight.add(task)
                    task.add_done_callback(self.faults_in_flight.discard)
                else:
                    self.minute.fault_skipped += 1
                    self.totals.fault_skipped += 1
            if self.server.pid is None:
                await asyncio.sleep(0.05)  # while it restarts, without spinning

    async def watch_server(self):
        """Restarts the server whenever it exits without being asked, and reports the exit."""
        while True:
            await asyncio.sleep(0.2)
            if self.server.process.poll() is None or self.stopping_server:
                continue
            code = self.server.process.returncode
            exit = {"at_s": round(time.monotonic() - self.started, 1) if self.started else 0,
                    "minute": len(self.records) + 1 if not self.stopped else "after the load", "code": code,
                    "signal": signal.Signals(-code).name if code < 0 else None, "log_tail": self.server.log_tail()}
            self.server.exits.append(exit)
            log(f"  SERVER EXIT #{len(self.server.exits)} at {exit['at_s']} s: "
                f"{exit['signal'] or 'status ' + str(code)}; last log lines:")
            for line in exit["log_tail"][-6:]:
                log(f"    | {line[:200]}")
            if len(self.server.exits) >= MAX_EXITS:
                log(f"  {MAX_EXITS} exits: stopping the load")
                self.stopping = True
                return
            try:
                await self.server.start()
            except Exception as error:
                log(f"  could not restart the server ({error}): stopping the load")
                self.stopping = True
                return
            log(f"  restarted: PID {self.server.process.pid} on port {self.server.port}")

    async def metrics(self):
        try:
            status, _, body = await http_get(self.server.port, "/metrics", 10)
            if status == 200:
                return parse_metrics(body.decode(errors="replace"))
        except Exception:
            pass
        return None, None

    async def sample(self, label):
        pid = self.server.pid
        rss = process_rss_kb(pid) if pid else None
        try:
            fds = len(os.listdir(f"/proc/{pid}/fd")) if pid else None
        except OSError:
            fds = None
        helpers = descendants(pid) if pid else []
        self.server.helpers_seen.update(helpers)
        helper_rss = sum(process_rss_kb(h) or 0 for h in helpers)
        values, statuses = await self.metrics()
        gauges = None
        if values is not None:
            gauges = {name: values.get(name) for name in GAUGES}
            if RESTARTS in values:
                gauges[RESTARTS] = values[RESTARTS]
        cpu = process_cpu_seconds(pid) if pid else None
        own = os.times()
        return {"label": label, "pid": pid, "rss_mb": round(rss / 1024, 1) if rss else None, "fds": fds,
                "server_cpu_s": cpu, "soak_cpu_s": round(own.user + own.system, 2),
                "load_average": round(os.getloadavg()[0], 2),
                "helpers": len(helpers), "helpers_rss_mb": round(helper_rss / 1024, 1), "gauges": gauges,
                "server_requests_by_status": statuses}

    async def every_minute(self):
        for m in range(1, MINUTES + 1):
            await asyncio.sleep(max(0, self.started + m * MINUTE - time.monotonic()))
            minute, self.minute = self.minute, Minute()
            s = await self.sample(f"minute {m}")
            latencies = sorted(minute.latencies)
            answered = len(latencies)
            record = {"minute": m, "answered": answered, "per_second": round(answered / MINUTE, 1),
                      "by_status": {str(k): v for k, v in sorted(minute.by_status.items(), key=str)},
                      "by_kind": {k: {str(s): n for s, n in v.items()} for k, v in sorted(minute.by_kind.items())},
                      "disconnected": minute.disconnected, "bad_200": minute.bad,
                      "faults_skipped": minute.fault_skipped,
                      "latency_ms": {"p50": pct(latencies, 50), "p95": pct(latencies, 95), "p99": pct(latencies, 99),
                                     "max": round(latencies[-1] * 1000) if latencies else None},
                      "exits_so_far": len(self.server.exits), **{k: v for k, v in s.items() if k != "label"}}
            previous = self.records[-1] if self.records else self.first
            for key in ("server_cpu_s", "soak_cpu_s"):
                if record[key] is not None and previous[key] is not None and record["pid"] == previous["pid"]:
                    record[key.replace("_s", "_percent")] = round(100 * (record[key] - previous[key]) / MINUTE)
                else:
                    record[key.replace("_s", "_percent")] = None
            self.records.append(record)
            g = s["gauges"] or {}
            gauge_text = " ".join(f"{short(name)} {fmt_num(g.get(name))}" for name in GAUGES + [RESTARTS]
                                  if name in g) if s["gauges"] is not None else "/metrics unanswered"
            log(f"minute {m:3}: {answered:6} answered ({record['per_second']:6.1f}/s) "
                f"{status_text(minute.by_status)}; disconnected {minute.disconnected}; "
                f"p50 {record['latency_ms']['p50']} p95 {record['latency_ms']['p95']} "
                f"max {record['latency_ms']['max']} ms | RSS {s['rss_mb']} MB fds {s['fds']}"
                + (f" helpers {s['helpers']} ({s['helpers_rss_mb']} MB)" if s["helpers"] else "")
                + f" | CPU server {record['server_cpu_percent']}% soak {record['soak_cpu_percent']}%"
                f" load {record['load_average']} | {gauge_text} | exits {len(self.server.exits)}")

    async def run(self):
        self.stopping_server = False
        await self.server.start()
        log(f"server PID {self.server.process.pid} on 127.0.0.1:{self.server.port}; log {self.server.log_path}")
        self.first = await self.sample("before the load")
        log(f"before the load: RSS {self.first['rss_mb']} MB, fds {self.first['fds']}, helpers {self.first['helpers']}")
        watcher = asyncio.ensure_future(self.watch_server())
        self.started = time.monotonic()
        clients = [asyncio.ensure_future(self.client()) for _ in range(CONCURRENCY)]
        minutes = asyncio.ensure_future(self.every_minute())
        while not minutes.done() and not self.stopping:
            await asyncio.sleep(0.2)
        self.stopping = True
        stopped = self.stopped = time.monotonic()
        self.exits_during_load = len(self.server.exits)
        if not minutes.done():
            minutes.cancel()
        log(f"load stopped after {stopped - self.started:.0f} s; waiting for the requests in flight "
            f"(at most {CLIENT_TIMEOUT:.0f} s)")
        pending = clients + list(self.faults_in_flight)
        await asyncio.wait(pending, timeout=CLIENT_TIMEOUT + 5)
        for task in pending:
            task.cancel()
        # Requests that ended after the last minute's record belong to no minute; count them in the totals only.
        log(f"in flight answered {time.monotonic() - stopped:.1f} s after the load stopped: "
            f"{status_text(self.minute.by_status)}")
        self.gauges_zero_after = None
        self.last_gauges = None
        deadline = time.monotonic() + GAUGE_WAIT
        while time.monotonic() < deadline:
            values, _ = await self.metrics()
            if values is not None:
                self.last_gauges = {name: values.get(name) for name in GAUGES}
                if all((v or 0) == 0 for v in self.last_gauges.values()):
                    self.gauges_zero_after = round(time.monotonic() - stopped, 1)
                    break
            await asyncio.sleep(1)
        await asyncio.sleep(3)  # the server gives freed memory back to the system a second after it goes idle
        self.after = await self.sample("after the load")
        self.stopping_server = True
        watcher.cancel()
        self.shutdown = await self.server.stop()
        leftovers = [pid for pid in self.server.helpers_seen if os.path.exists(f"/proc/{pid}")]
        self.orphans = len(leftovers)
        for pid in leftovers:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def pct(sorted_values, p):
    if not sorted_values:
        return None
    return round(sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * p / 100))] * 1000)


def short(name):
    return name.replace("webimage_serve_", "").replace("webimage_", "")


def fmt_num(value):
    return "-" if value is None else (str(int(value)) if value == int(value) else f"{value:g}")


def status_text(counter):
    return " ".join(f"{k}:{v}" for k, v in sorted(counter.items(), key=lambda kv: (not isinstance(kv[0], int), str(kv[0]))))


def summary(soak, json_path):
    records, totals = soak.records, soak.totals
    checks = []
    log("")
    log(f"=== webimage serve soak: {len(records)} minutes of {MINUTE:.0f} s, {CONCURRENCY} clients, binary {BINARY}")
    log(f"totals by status: {status_text(totals.by_status)}; disconnected clients {totals.disconnected}; "
        f"faults skipped (cap) {totals.fault_skipped}")
    log("by kind:")
    for kind in sorted(totals.by_kind):
        log(f"  {kind:24} {status_text(totals.by_kind[kind])}")
    if soak.gif_frames:
        log(f"GIF results: {dict(soak.gif_frames)}")
    huge = soak.origin_faults.huge_bytes_sent
    if huge:
        log(f"huge bodies: {len(huge)} sent, the server hung up after {min(huge) / 1e6:.1f}-{max(huge) / 1e6:.1f} MB "
            f"(--max-src-bytes {MAX_SRC_BYTES / 1e6:.0f} MB; the origin stops at {HUGE_LIMIT / 1e6:.0f} MB)")
    log("")
    log("minute | answered | per s | 200 | other statuses | p50 ms | p95 ms | RSS MB | fds | helpers | server CPU | "
        "load avg | exits")
    for r in records:
        other = {k: v for k, v in r["by_status"].items() if k != "200"}
        log(f"{r['minute']:6} | {r['answered']:8} | {r['per_second']:5} | {r['by_status'].get('200', 0):4} | "
            f"{' '.join(f'{k}:{v}' for k, v in other.items()) or '-'} | {r['latency_ms']['p50']} | "
            f"{r['latency_ms']['p95']} | {r['rss_mb']} | {r['fds']} | {r['helpers']} | {r['server_cpu_percent']}% | "
            f"{r['load_average']} | {r['exits_so_far']}")
    log("")
    if records:
        first = records[0]["answered"]
        low = [r["minute"] for r in records if r["answered"] < 0.8 * first]
        worst = min(r["answered"] for r in records)
        ok = first > 0 and not low and len(records) == MINUTES
        checks.append(ok)
        log(f"{'PASS' if ok else 'FAIL'} throughput: every minute >= 80% of the first ({first}): lowest {worst} "
            f"({100 * worst / max(first, 1):.0f}%)" + (f"; below in minutes {low}" if low else "")
            + ("" if len(records) == MINUTES else f"; only {len(records)} of {MINUTES} minutes ran"))
    else:
        checks.append(False)
        log("FAIL throughput: no minute completed")
    warm = [r for r in records if r["minute"] >= WARMUP_MINUTES] or records
    for key, unit in (("rss_mb", " MB"), ("fds", "")):
        values = [r[key] for r in warm if r[key] is not None]
        if values:
            log(f"     {'RSS' if key == 'rss_mb' else 'open files'} from the end of minute {warm[0]['minute']}: "
                f"first {values[0]}{unit}, last {values[-1]}{unit}, max {max(values)}{unit} "
                f"({100 * (values[-1] - values[0]) / max(values[0], 1):+.0f}% first to last); "
                f"after the load {soak.after[key]}{unit}"
                + (" (a restarted server)" if records and soak.after["pid"] != records[-1]["pid"] else "")
                + f"; before it {soak.first[key]}{unit}")
    helper_counts = [r["helpers"] for r in records]
    if any(helper_counts) or soak.orphans:
        log(f"     decoder helpers: {min(helper_counts)}-{max(helper_counts)} per minute; "
            f"{soak.orphans} still alive after the server stopped (killed)")
    exits = soak.server.exits
    checks.append(not exits)
    log(f"{'PASS' if not exits else 'FAIL'} server exits: {len(exits)}"
        + "".join(f"\n       at {e['at_s']} s ({e['minute'] if isinstance(e['minute'], str) else 'minute ' + str(e['minute'])}): "
                  f"{e['signal'] or 'status ' + str(e['code'])}"
                  for e in exits[:20]))
    ok = soak.gauges_zero_after is not None
    checks.append(ok)
    log(f"{'PASS' if ok else 'FAIL'} gauges back to 0 after the load: "
        + (f"after {soak.gauges_zero_after} s" if ok else f"not within {GAUGE_WAIT:.0f} s: {soak.last_gauges}")
        + ("" if len(exits) == soak.exits_during_load else " (NB: on a server restarted after the load stopped)"))
    unanswered = totals.by_status.get("client-timeout", 0)
    checks.append(unanswered == 0)
    log(f"{'PASS' if unanswered == 0 else 'FAIL'} no request unanswered after {CLIENT_TIMEOUT:.0f} s: {unanswered}")
    checks.append(totals.bad == 0)
    log(f"{'PASS' if totals.bad == 0 else 'FAIL'} every 200 an image of the asked format and width: "
        f"{totals.bad} wrong" + (f" e.g. {soak.bad_examples[:3]}" if soak.bad_examples else ""))
    if soak.after.get("server_requests_by_status"):
        log(f"     the server's own count (webimage_serve_requests_total, {len(exits) + 1} run(s): the last): "
            + " ".join(f"{k}:{v}" for k, v in sorted(soak.after["server_requests_by_status"].items()))
            + f" (it also counts the {totals.disconnected} disconnected clients and this script's /metrics requests)")
    log(f"     shutdown: {soak.shutdown}")
    own = os.times()
    log(f"     this script's CPU: {own.user + own.system:.1f} s (nginx and the load generator share the 2 cores "
        f"with the server)")
    json.dump({"minutes": MINUTES, "minute_seconds": MINUTE, "concurrency": CONCURRENCY, "binary": BINARY,
               "serve_flags": SERVE_FLAGS, "faults": FAULTS, "per_minute": records,
               "totals": {"by_status": {str(k): v for k, v in totals.by_status.items()},
                          "by_kind": {k: {str(s): n for s, n in v.items()} for k, v in totals.by_kind.items()},
                          "disconnected": totals.disconnected, "bad_200": totals.bad,
                          "faults_skipped": totals.fault_skipped},
               "before": soak.first, "after": soak.after, "gauges_zero_after_s": soak.gauges_zero_after,
               "last_gauges": soak.last_gauges, "exits": exits, "shutdown": soak.shutdown,
               "orphaned_helpers": soak.orphans, "bad_examples": soak.bad_examples,
               "huge_bytes_sent": huge, "passed": all(checks)}, open(json_path, "w"), indent=1)
    log(f"\n{'PASS' if all(checks) else 'FAIL'}; per-minute figures: {json_path}; server log: {soak.server.log_path}")
    return all(checks)


async def main(work, photo):
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, task.cancel)
    soak = Soak(work)
    soak.origin_faults = FaultyOrigin(photo)
    faulty_server = await asyncio.start_server(soak.origin_faults.handle, "127.0.0.1", 0)
    soak.faulty = faulty_server.sockets[0].getsockname()[1]
    soak.origin = ORIGIN_PORT
    try:
        await soak.run()
    finally:
        soak.stopping = True
        soak.stopping_server = True
        soak.server.kill_now()
        faulty_server.close()
    return summary(soak, os.environ.get("SOAK_JSON") or os.path.join(work, "soak-serve.json"))


if __name__ == "__main__":
    if not BINARY or not os.access(BINARY, os.X_OK):
        sys.exit("WEBIMAGE_BINARY must name the webimage binary (scripts/soak serve builds and sets it)")
    random.seed(int(os.environ.get("SOAK_SEED", "1")))  # the same mix of URLs each run
    work = tempfile.mkdtemp(prefix="soak-serve-")
    os.chmod(work, 0o755)
    www = os.path.join(work, "www")
    os.makedirs(www)
    os.chmod(www, 0o755)
    photo = make_fixtures(www)
    for name in os.listdir(www):
        os.chmod(os.path.join(www, name), 0o644)
    help_text = subprocess.run([BINARY, "serve", "--help"], capture_output=True, text=True).stdout
    for i in range(len(SERVE_FLAGS) - 1, -1, -1):  # an older binary without a cap runs without it
        if SERVE_FLAGS[i].startswith("--") and SERVE_FLAGS[i] not in help_text:
            log(f"note: this binary has no {SERVE_FLAGS[i]}; running without it")
            del SERVE_FLAGS[i:i + (2 if i + 1 < len(SERVE_FLAGS) and not SERVE_FLAGS[i + 1].startswith("--") else 1)]
    ORIGIN_PORT = free_port()
    open(os.path.join(work, "nginx.conf"), "w").write(f"""worker_processes 1; daemon off; pid {work}/nginx.pid;
error_log {work}/nginx-error.log; events {{ worker_connections 4096; }}
http {{ access_log off; sendfile on; keepalive_requests 1000000;
  types {{ image/jpeg jpg; image/png png; image/gif gif; image/heic heic; }}
  server {{ listen 127.0.0.1:{ORIGIN_PORT}; root {www}; location ~ ^/v/[0-9]+/(?<f>.+)$ {{ alias {www}/$f; }} }} }}""")
    nginx = subprocess.Popen(["nginx", "-c", os.path.join(work, "nginx.conf"), "-p", work + "/"],
                             stdin=subprocess.DEVNULL)
    passed = False
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", ORIGIN_PORT), timeout=1).close()
                break
            except OSError:
                if nginx.poll() is not None:
                    sys.exit(f"nginx exited: see {work}/nginx-error.log")
                time.sleep(0.1)
        log(f"soak of {BINARY} for {MINUTES} min; origin nginx PID {nginx.pid} on {ORIGIN_PORT}; work folder {work}")
        passed = asyncio.run(main(work, photo))
    except (KeyboardInterrupt, asyncio.CancelledError):
        log("interrupted: stopping everything")
    finally:
        nginx.terminate()
        try:
            nginx.wait(timeout=10)
        except subprocess.TimeoutExpired:
            nginx.kill()
            nginx.wait()
        subprocess.run(["rm", "-rf", os.path.join(work, "cache")])
    sys.exit(0 if passed else 1)
