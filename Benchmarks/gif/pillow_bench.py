"""Pillow decoding every frame of each GIF to RGBA; median CPU time. Usage: pillow_bench.py FILE..."""
import io
import json
import os
import sys
import time

from PIL import Image, ImageSequence


def median(body, minimum_runs=15, minimum_seconds=1.0):
    body()
    samples = []
    start = time.process_time()
    while len(samples) < minimum_runs or time.process_time() - start < minimum_seconds:
        before = time.process_time()
        body()
        samples.append((time.process_time() - before) * 1000)
    samples.sort()
    return samples[len(samples) // 2]


for path in sys.argv[1:]:
    with open(path, "rb") as handle:
        data = handle.read()

    def decode():
        image = Image.open(io.BytesIO(data))
        return [frame.convert("RGBA") for frame in ImageSequence.Iterator(image)]

    frames = len(decode())
    print(json.dumps({"file": os.path.basename(path), "frames": frames, "impl": "Pillow " + Image.__version__,
                      "all_frames_ms": median(decode)}), flush=True)
