#!/usr/bin/env bash
# Memory and time of playing a 200-frame 480x360 animation lazily (AnimatedImage with a buffer of a few frames)
# versus decoding and holding every frame (the eager coders). One process per measurement, pinned to core 0,
# peak resident memory from VmHWM. Usage: Benchmarks/animation/run.sh
set -euo pipefail
cd "$(dirname "$0")"
data=../data/animation
/usr/bin/python3 make_input.py "$data" >/dev/null
mkdir -p .library
ln -sfn ../../.. .library/swift-web-image
swift build -c release --product AnimationBenchmark 2>&1 | grep -E "error|warning" || true
bench=.build/release/AnimationBenchmark
for file in "$data/anim-480x360-200.gif" "$data/anim-480x360-200.webp"; do
    taskset -c 0 "$bench" open "$file"
    taskset -c 0 "$bench" eager "$file"
    for frames in 3 8 40 auto; do taskset -c 0 "$bench" lazy "$file" "$frames"; done
done
