#!/usr/bin/env python3
"""An `s3://` source's render rate beside an HTTP origin's, on the same image, through one `webimage serve`.

Each round renders ROUND_SOURCES distinct sources from each side (distinct keys, so that every render fetches; the
source cache would otherwise answer the second), 8 requests in flight, the sides alternating. The S3 side is
moto's server (a Python S3 API), the HTTP side Python's threading HTTP server, each a process of its own: both
origins are Python, so the difference is the S3 path (the object URL worked out and every request signed with
SigV4) plus what moto does beyond serving a file. moto checks no signature here (its IAM mode is for the tests);
the proxy signs every request all the same. Needs moto_server and wrk (`scripts/install-deps --bench`). Usage:
    Benchmarks/s3_bench.py [path/to/webimage]   (default: .build/release/webimage)
"""
import concurrent.futures
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROUNDS = 5
ROUND_SOURCES = 48
IN_FLIGHT = 8
BUCKET = "bench"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_answering(url, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except Exception:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not answer")


def photo(folder, binary):
    """A 1600×1200 JPEG with detail everywhere (gradients under seeded noise), as a camera upload would have: a BMP
    written here, made a JPEG at quality 88 by `webimage convert` (no other encoder is assumed installed)."""
    width, height = 1600, 1200
    random = __import__("random").Random(7)
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            noise = random.randrange(48)
            row += bytes(((x * 255 // width + noise) % 256, (y * 255 // height + noise) % 256, (x + y + noise) % 256))
        rows.append(bytes(row))
    header = (b"BM" + (54 + width * height * 3).to_bytes(4, "little") + bytes(4) + (54).to_bytes(4, "little")
              + (40).to_bytes(4, "little") + width.to_bytes(4, "little") + (-height).to_bytes(4, "little", signed=True)
              + (1).to_bytes(2, "little") + (24).to_bytes(2, "little") + bytes(24))
    bmp, jpeg = os.path.join(folder, "photo.bmp"), os.path.join(folder, "photo.jpg")
    with open(bmp, "wb") as file:
        file.write(header + b"".join(rows))
    subprocess.run([binary, "convert", bmp, jpeg, "--quality", "88"], check=True, stdout=subprocess.DEVNULL)
    with open(jpeg, "rb") as file:
        return file.read()


def put(url, data=b""):
    # Readable unsigned too, so that wrk can measure the store alone; the proxy signs its requests anyway.
    headers = {"Content-Type": "image/jpeg", "x-amz-acl": "public-read"}
    request = urllib.request.Request(url, data=data, method="PUT", headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()


def timed(urls, fetch):
    """Requests per second over `urls`, IN_FLIGHT at a time; every answer must be 200."""
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(IN_FLIGHT) as pool:
        statuses = list(pool.map(fetch, urls))
    elapsed = time.perf_counter() - start
    bad = [status for status in statuses if status != 200]
    if bad:
        raise SystemExit(f"{len(bad)} answers were not 200: {bad[:5]}")
    return len(urls) / elapsed


def get(url):
    with urllib.request.urlopen(url, timeout=120) as response:
        response.read()
        return response.status


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else ".build/release/webimage"
    folder = tempfile.mkdtemp(prefix="s3-bench-")
    processes = []
    try:
        data = photo(folder, binary)
        keys = [f"p{index}.jpg" for index in range(ROUNDS * ROUND_SOURCES * 2 + 2)]  # the last two: warm-up
        origin_folder = os.path.join(folder, "origin")
        os.makedirs(origin_folder)
        for key in keys:
            with open(os.path.join(origin_folder, key), "wb") as file:
                file.write(data)

        # A process of its own (Python's threading HTTP server), as moto is: in this one, its threads would share
        # the interpreter with the benchmark's clients.
        origin_port = free_port()
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "http.server", str(origin_port), "--bind", "127.0.0.1", "--directory", origin_folder],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        origin_url = f"http://127.0.0.1:{origin_port}"
        wait_until_answering(f"{origin_url}/{keys[0]}")

        moto_port = free_port()
        moto = shutil.which("moto_server") or "/root/.pyenv/shims/moto_server"
        processes.append(subprocess.Popen([moto, "-H", "127.0.0.1", "-p", str(moto_port)],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        endpoint = f"http://127.0.0.1:{moto_port}"
        wait_until_answering(endpoint + "/")
        put(f"{endpoint}/{BUCKET}")
        for key in keys:
            put(f"{endpoint}/{BUCKET}/{key}", data)

        port = free_port()
        environment = dict(os.environ, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench-secret")
        processes.append(subprocess.Popen(
            [binary, "serve", "--insecure", "--bind", f"127.0.0.1:{port}", "--allow-loopback-sources",
             "--cache-dir", os.path.join(folder, "cache"), "--s3", "--s3-endpoint", endpoint,
             "--s3-region", "us-east-1"],
            env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        proxy = f"http://127.0.0.1:{port}"
        wait_until_answering(proxy + "/health")

        def render(source):
            return f"{proxy}/_/rs:fit:300:300/plain/{source}@jpg"

        # One warm-up render a side (connections, the decoder's first use).
        get(render(f"{origin_url}/{keys[-1]}"))
        get(render(f"s3://{BUCKET}/{keys[-2]}"))

        rates = {"http": [], "s3": []}
        for round_index in range(ROUNDS):
            first = round_index * ROUND_SOURCES * 2
            http_keys = keys[first:first + ROUND_SOURCES]
            s3_keys = keys[first + ROUND_SOURCES:first + 2 * ROUND_SOURCES]
            sides = [("http", [render(f"{origin_url}/{key}") for key in http_keys]),
                     ("s3", [render(f"s3://{BUCKET}/{key}") for key in s3_keys])]
            if round_index % 2:
                sides.reverse()
            for name, urls in sides:
                rates[name].append(timed(urls, get))

        print(f"source {len(data)} bytes JPEG 1600x1200 -> rs:fit:300:300, {ROUNDS} rounds x {ROUND_SOURCES} "
              f"distinct sources a side, {IN_FLIGHT} in flight")
        for name, values in rates.items():
            print(f"{name:18s} median {statistics.median(values):7.1f}/s  rounds "
                  + " ".join(f"{value:.1f}" for value in values))
        ratio = statistics.median(rates["s3"]) / statistics.median(rates["http"])
        print(f"s3 / http render rate: {ratio:.2f}")
        # Each origin alone (one object, 8 connections, 3 s), to tell the store's cost from the proxy's.
        if shutil.which("wrk"):
            for name, url in [("http origin alone", f"{origin_url}/{keys[0]}"),
                              ("s3 origin alone", f"{endpoint}/{BUCKET}/{keys[0]}")]:
                output = subprocess.run(["wrk", "-t2", "-c8", "-d3s", url], capture_output=True, text=True).stdout
                rate = next((line.split()[1] for line in output.splitlines() if line.startswith("Requests/sec")), "?")
                print(f"{name:18s} {rate}/s (wrk)")
    finally:
        for process in processes:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
