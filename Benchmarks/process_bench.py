"""Whole processes as a user runs them (issue 17): `webimage convert photo-12mp.jpg out.rgba --format rgba` beside
`djpeg` on the same file, start-up taken out of both (a run that starts the same way and decodes nothing), and
peak resident memory. Rounds alternate the sides; medians. Prints JSON lines for report.py.

Usage: process_bench.py WEBIMAGE SPAWN_RSS DATA_FOLDER OUT_FOLDER [ROUNDS]
"""
import json
import os
import statistics
import subprocess
import sys

webimage, spawn, data, out = sys.argv[1:5]
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 21
photo = os.path.join(data, "photo-12mp.jpg")
tiny = os.path.join(out, "tiny-8x8.jpg")
if not os.path.exists(tiny):
    pixels = b"P6 8 8 255\n" + bytes([200, 100, 50]) * 64
    with open(tiny, "wb") as handle:
        handle.write(subprocess.run(["/usr/bin/cjpeg"], input=pixels, capture_output=True, check=True).stdout)

places = {"disk": out, "tmpfs": "/dev/shm"}  # outputs on disk as a user's would be, and in memory: no writeback
commands = {}
for place, folder in places.items():
    commands[("ours", place)] = [webimage, "convert", photo, os.path.join(folder, "photo-12mp.rgba"), "--format", "rgba"]
    commands[("djpeg", place)] = ["/usr/bin/djpeg", "-outfile", os.path.join(folder, "photo-12mp.ppm"), photo]
commands[("ours start-up", "")] = [webimage, "info", photo]  # the same start-up; reads the headers alone
commands[("djpeg start-up", "")] = ["/usr/bin/djpeg", "-outfile", os.path.join(out, "tiny.ppm"), tiny]
samples = {key: ([], []) for key in commands}
for _ in range(rounds):
    for key, command in commands.items():
        milliseconds, megabytes = map(float, subprocess.check_output([spawn] + command, text=True).split())
        samples[key][0].append(milliseconds)
        samples[key][1].append(megabytes)
time = {key: statistics.median(values[0]) for key, values in samples.items()}
peak = {key: statistics.median(values[1]) for key, values in samples.items()}


def emit(name, impl, value, unit):
    print(json.dumps({"suite": "process", "name": name, "impl": impl, "value": round(value, 2), "unit": unit}))


for place in places:
    name = f"12 MP JPEG to raw pixels, whole process, start-up taken out, output on {place}"
    emit(name, "swift-web-image", time[("ours", place)] - time[("ours start-up", "")], "ms")
    emit(name, "djpeg (libjpeg-turbo, writes RGB)", time[("djpeg", place)] - time[("djpeg start-up", "")], "ms")
name = "12 MP JPEG to raw pixels, peak RSS above start-up (48 MB bitmap, 3.8 MB file)"
start_up = peak[("ours start-up", "")]
emit(name, "swift-web-image", peak[("ours", "disk")] - start_up, "MB")
emit(name, "swift-web-image, whole peak (start-up alone: %.1f MB)" % start_up, peak[("ours", "disk")], "MB")
emit(name, "djpeg (streams rows: no bitmap)", peak[("djpeg", "disk")], "MB")
