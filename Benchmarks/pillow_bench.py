"""Pillow doing the same work as webimage-bench, printing the same JSON lines. Usage: pillow_bench.py SUITE FOLDER"""
import io
import json
import os
import sys
import time

from PIL import Image


def median(body, minimum_runs=15, minimum_seconds=1.0):
    body()
    samples = []
    start = time.perf_counter()
    while len(samples) < minimum_runs or time.perf_counter() - start < minimum_seconds:
        before = time.perf_counter()
        body()
        samples.append((time.perf_counter() - before) * 1000)
        if len(samples) >= 2000:
            break
    samples.sort()
    return samples[len(samples) // 2]


def emit(suite, name, value, unit="ms"):
    print(json.dumps({"suite": suite, "name": name, "impl": "Pillow " + Image.__version__, "value": value, "unit": unit}),
          flush=True)


def decode(folder):
    def load(name):
        with open(os.path.join(folder, name), "rb") as handle:
            return handle.read()

    cases = [
        ("12 MP JPEG", "photo-12mp.jpg"),
        ("12 MP progressive JPEG", "photo-12mp-progressive.jpg"),
        ("800x600 JPEG", "photo-800x600.jpg"),
        ("1080p RGBA PNG", "rgba-1080p.png"),
        ("1080p lossy WebP", "photo-1080p.webp"),
    ]
    for name, file in cases:
        data = load(file)
        emit("decode", name, median(lambda: Image.open(io.BytesIO(data)).load()))

    photo = load("photo-12mp.jpg")

    def thumbnail():
        image = Image.open(io.BytesIO(photo))
        image.draft("RGB", (256, 256))
        image.thumbnail((256, 256))

    emit("decode", "12 MP JPEG to 256 px", median(thumbnail))


suites = {"decode": decode}
suites[sys.argv[1]](sys.argv[2])
