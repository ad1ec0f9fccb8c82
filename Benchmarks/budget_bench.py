#!/usr/bin/env python3
"""What the render budgets cost a legitimate large image: a 50-megapixel (7071×7071) 16-bit RGBA PNG through
`webimage serve` filter chains, kept deep (`ph:1`), under the default budgets and with the CPU budget lifted.

Prints one line a case: status, wall time of the request, and the server's CPU time for it. Usage:
    Benchmarks/budget_bench.py [path/to/webimage]   (default: .build/release/webimage)
"""
import http.server
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib

SIDE = 7071


def deep_png(path):
    """A 16-bit RGBA pattern of 64-pixel ramps, the same on every row, so that the file is small (as a hostile or
    a flat one is) while its pixels cost what any 50-megapixel 16-bit image costs. No image library here writes
    16-bit RGBA PNGs, so the chunks are written directly."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + b"".join(struct.pack(">HHHH", (x % 64) * 1000, 20000, 40000, 65535) for x in range(SIDE))
    compressor = zlib.compressobj(9)
    body = b"".join(compressor.compress(row) for _ in range(SIDE)) + compressor.flush()
    header = struct.pack(">IIBBBBB", SIDE, SIDE, 16, 6, 0, 0, 0)
    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b""))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else ".build/release/webimage"
    folder = tempfile.mkdtemp(prefix="budget-bench-")
    source = os.path.join(folder, "deep.png")
    deep_png(source)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=folder, **kwargs)

        def log_message(self, *args):
            pass

    origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{origin.server_address[1]}/deep.png"
    print(f"source: {SIDE}x{SIDE} 16-bit RGBA PNG, {os.path.getsize(source)} bytes")
    cases = [("thumbnail", "w:1000/ph:1/sh:1"), ("full size, sharpened", "w:7071/ph:1/sh:100"),
             ("full size, blur+sharpen+pixelate", "bl:100/sh:100/pix:2/ph:1")]
    for label, extra in [("default budgets", []), ("CPU budget lifted", ["--render-cpu-seconds", "600"])]:
        port = free_port()
        server = subprocess.Popen([binary, "serve", "--insecure", "--allow-loopback-sources", "--bind",
                                   f"127.0.0.1:{port}", "--cache-dir", os.path.join(folder, f"cache-{port}"),
                                   "--request-timeout", "600"] + extra,
                                  stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health").read()
                break
            except OSError:
                time.sleep(0.05)
        for name, options in cases:
            before, started = cpu_seconds(server.pid), time.monotonic()
            try:
                answer = urllib.request.urlopen(f"http://127.0.0.1:{port}/_/{options}/plain/{url}@png", timeout=900)
                status, size = answer.status, len(answer.read())
            except urllib.error.HTTPError as error:
                status, size = error.code, len(error.read())
            wall, cpu = time.monotonic() - started, cpu_seconds(server.pid) - before
            print(f"{label:18} {name:34} {status} {wall:7.2f} s wall {cpu:7.2f} s CPU  {size} bytes")
        server.terminate()
        server.wait()
    origin.shutdown()


if __name__ == "__main__":
    main()
