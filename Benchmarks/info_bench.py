"""`/info` beside a full render of the same source, on `webimage serve` with wrk on loopback.

Usage: info_bench.py DATA WORK WEBIMAGE [SECONDS]

The same origin nginx as the serve suite (serve_bench.py, whose helpers this imports); every request names a source
URL of its own (`/v/N/FILE`), so every one fetches and describes or renders. Three cases a source, alternating,
three rounds, medians: imgproxy's default info (size, format, dimensions and metadata: a JPEG's header only), the
placeholders (BlurHash 4×3 and ThumbHash: one reduced decode), and a 300 px render. Prints one JSON line a result:
requests/s, p50 latency, and the source bytes read a request (our /metrics: what the server read, not what
loopback's socket buffers took from the origin before it closed).
"""
import json
import os
import subprocess
import sys

DATA, WORK, WEBIMAGE = sys.argv[1:4]
SECONDS = sys.argv[4] if len(sys.argv) > 4 else "10"
# serve_bench reads thumbor's and the benchmark binary's paths too: this suite runs neither.
sys.argv = [sys.argv[0], DATA, WORK, WEBIMAGE, "-", "-", SECONDS]
import serve_bench as serve  # noqa: E402 (beside this file)

SOURCES = [("12 MP JPEG", "photo-12mp.jpg"), ("1 MP JPEG", "photo-1mp.jpg")]
CASES = [
    ("/info, imgproxy's defaults (header only)", "info", ""),
    ("/info, BlurHash 4×3 and ThumbHash", "info", "bh:4:3/th:1/s:0/d:0/exif:0/iptc:0/xmp:0"),
    ("render, 300 px wide", "render", "w:300"),
]


def url(kind, options, name):
    source = serve.urllib.parse.quote(f"http://127.0.0.1:{serve.ORIGIN}/v/{{n}}/{name}", safe="")
    source = source.replace("%7Bn%7D", "{n}")
    if kind == "render":
        return f"http://127.0.0.1:{serve.SERVE}/_/{options}/plain/{source}@jpg"
    segments = f"/{options}" if options else ""
    return f"http://127.0.0.1:{serve.SERVE}/info/_{segments}/plain/{source}"


def main():
    os.makedirs(serve.WWW, exist_ok=True)
    os.chmod(WORK, 0o755)
    target = os.path.join(serve.WWW, "photo-12mp.jpg")
    if not os.path.exists(target):
        subprocess.run(["cp", os.path.join(DATA, "photo-12mp.jpg"), target], check=True)
    if not os.path.exists(os.path.join(serve.WWW, "photo-1mp.jpg")):
        subprocess.run(["convert", target, "-resize", "1200x900", "-quality", "90",
                        os.path.join(serve.WWW, "photo-1mp.jpg")], check=True)
    with open(os.path.join(WORK, "bench.lua"), "w") as handle:
        handle.write(serve.WRK_SCRIPT)
    with open(os.path.join(WORK, "nginx.conf"), "w") as handle:
        handle.write(serve.nginx_config())
    subprocess.run(["nginx", "-c", os.path.join(WORK, "nginx.conf"), "-p", WORK + "/"], check=True)
    process = subprocess.Popen([WEBIMAGE, "serve", "--bind", f"127.0.0.1:{serve.SERVE}", "--insecure",
                                "--allow-loopback-sources", "--cache-dir", os.path.join(WORK, "cache"),
                                "--workers", "2", "--queue", "4096"],
                               stdout=subprocess.DEVNULL, stderr=open(os.path.join(WORK, "serve.log"), "w"),
                               start_new_session=True)
    try:
        serve.wait_until_answering(f"http://127.0.0.1:{serve.SERVE}/health", process)
        for label, name in SOURCES:
            size = os.path.getsize(os.path.join(serve.WWW, name))
            runs = {case: [] for case, _, _ in CASES}
            for _ in range(serve.ROUNDS):
                for case, kind, options in CASES:
                    pattern = url(kind, options, name)
                    serve.wait_until_answering(pattern.replace("{n}", "0"))
                    before = serve.downloaded_bytes()
                    result = serve.wrk(pattern)
                    read = (serve.downloaded_bytes() - before) / max(1, result[3])
                    runs[case].append((result, read))
            render_rate = serve.median([result[0] for result, _ in runs[CASES[-1][0]]])
            for case, _, _ in CASES:
                rates = [round(result[0], 1) for result, _ in runs[case]]
                rate = serve.median(rates)
                errors = sum(result[4] for result, _ in runs[case])
                impl = serve.OURS + (f", {errors} errors" if errors else "")
                for name_suffix, value, unit in (
                    ("requests/s", rate, "req/s median (runs in order: " + ", ".join(map(str, rates)) + ")"),
                    ("p50 latency", serve.median([result[1] for result, _ in runs[case]]), "ms"),
                    ("÷ the render's requests/s", round(rate / render_rate, 2), "×"),
                    ("source bytes read a request", 100 * serve.median([read for _, read in runs[case]]) / size,
                     f"% of {size} bytes"),
                ):
                    print(json.dumps({"suite": "info", "name": f"{label}, distinct URLs, {case}: {name_suffix}",
                                      "impl": impl, "value": value, "unit": unit}, ensure_ascii=False))
                sys.stdout.flush()
    finally:
        serve.os.killpg(process.pid, serve.signal.SIGTERM)
        process.wait(timeout=30)
        try:
            with open(os.path.join(WORK, "nginx.pid")) as handle:
                os.kill(int(handle.read()), serve.signal.SIGTERM)
        except OSError:
            pass


main()
