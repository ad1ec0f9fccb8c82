"""libvips (the `vips` command, one thread) doing the transform suite's operations. Each operation's CPU time
has the same command's `vips copy` subtracted, so process start and file I/O cancel out. With `deep`, the deep
suite's 16-bit PNG made into a 300 px wide PNG by `vips thumbnail` (which keeps 16 bits), net of starting `vips`.
Usage: vips_bench.py FOLDER | vips_bench.py deep FOLDER"""
import json
import os
import resource
import subprocess
import sys
import tempfile

deep = sys.argv[1] == "deep"
folder = sys.argv[2] if deep else sys.argv[1]
environment = dict(os.environ, VIPS_CONCURRENCY="1")
scratch = tempfile.mkdtemp(prefix="vips-bench-")


def native(name):
    path = os.path.join(scratch, name + ".v")
    subprocess.run(["vips", "copy", os.path.join(folder, name), path], check=True, env=environment)
    return path


def cpu_ms(arguments, runs=9):
    samples = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(arguments, check=True, env=environment)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        samples.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    samples.sort()
    return samples[len(samples) // 2]


def net(source, operation):
    output = os.path.join(scratch, "out.v")
    copy = cpu_ms(["vips", "copy", source, output])
    return max(cpu_ms(["vips"] + operation(source, output)) - copy, 0.0)


version = subprocess.run(["vips", "--version"], capture_output=True, text=True, env=environment).stdout.strip()
if deep:
    source = os.path.join(folder, "deep", "photo-2mp-16.png")
    start = cpu_ms(["vips", "black", os.path.join(scratch, "start.v"), "1", "1"])
    thumbnail = cpu_ms(["vips", "thumbnail", source, os.path.join(scratch, "out.png"), "300"])
    print(json.dumps({"suite": "deep", "name": "2 MP 16-bit PNG to a 300 px 16-bit PNG",
                      "impl": version + " thumbnail (1 thread, net of starting vips)",
                      "value": max(thumbnail - start, 0.0), "unit": "ms"}), flush=True)
    sys.exit(0)
photo, small, hd = native("photo-12mp.jpg"), native("photo-800x600.jpg"), native("photo-1080p.webp")
cases = [
    ("resize 12 MP to 1920x1440 (Lanczos)", photo, lambda s, o: ["resize", s, o, str(1920 / 4000), "--kernel", "lanczos3"]),
    ("resize 800x600 to 256x192 (Lanczos)", small, lambda s, o: ["resize", s, o, str(256 / 800), "--kernel", "lanczos3"]),
    ("Gaussian blur sigma 10, 1080p", hd, lambda s, o: ["gaussblur", s, o, "10"]),
    ("rotate 30 degrees with expand, 1080p", hd, lambda s, o: ["rotate", s, o, "30"]),
]
for name, source, operation in cases:
    print(json.dumps({"suite": "transform", "name": name, "impl": version + " (1 thread, net of vips copy)",
                      "value": net(source, operation), "unit": "ms"}), flush=True)
