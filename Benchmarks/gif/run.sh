#!/usr/bin/env bash
# All-frames GIF decode, side by side in one run: swift-web-image (release), giflib called directly, Pillow.
# One core (taskset -c 0), medians of CPU time over at least 15 runs and 1 s of CPU. Usage: Benchmarks/gif/run.sh
set -euo pipefail
cd "$(dirname "$0")"
data=../data/gif
/usr/bin/python3 make_input.py "$data" >/dev/null
mkdir -p .build .library
ln -sfn ../../.. .library/swift-web-image
cc -O2 -o .build/giflib_bench giflib_bench.c -lgif
swift build -c release --product GIFBenchmark 2>&1 | grep -E "error|warning" || true
inputs=("$data/anim-640x480-20.gif")
taskset -c 0 .build/giflib_bench "${inputs[@]}"
taskset -c 0 /usr/bin/python3 pillow_bench.py "${inputs[@]}"
taskset -c 0 .build/release/GIFBenchmark "${inputs[@]}"
