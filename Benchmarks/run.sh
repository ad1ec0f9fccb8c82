#!/usr/bin/env bash
# Runs every side-by-side benchmark on this machine and rewrites BENCHMARKS.md.
# Usage: Benchmarks/run.sh            (all suites)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps --bench
data=Benchmarks/data
out=Benchmarks/out
mkdir -p "$out"
/usr/bin/python3 Benchmarks/make_data.py "$data"
swift build -c release --product WebImageBenchmarks
bench=.build/release/WebImageBenchmarks
results="$out/results.jsonl"
: > "$results"
echo "decode (one core) ..." >&2
taskset -c 0 "$bench" decode "$data" | tee -a "$results"
taskset -c 0 /usr/bin/python3 Benchmarks/pillow_bench.py decode "$data" | tee -a "$results"
echo "animated (one core) ..." >&2
cc -O2 -o "$out/giflib_bench" Benchmarks/reference/giflib_bench.c -lgif
cc -O2 -o "$out/webp_anim_bench" Benchmarks/reference/webp_anim_bench.c -lwebpdemux -lwebp
taskset -c 0 "$bench" animated "$data" | tee -a "$results"
taskset -c 0 "$out/giflib_bench" "$data/pan-640x480-20.gif" | tee -a "$results"
taskset -c 0 "$out/webp_anim_bench" "$data/pan-640x480-20.webp" | tee -a "$results"
taskset -c 0 /usr/bin/python3 Benchmarks/pillow_bench.py animated "$data" | tee -a "$results"
echo "transform (one core) ..." >&2
taskset -c 0 "$bench" transform "$data" | tee -a "$results"
taskset -c 0 /usr/bin/python3 Benchmarks/pillow_bench.py transform "$data" | tee -a "$results"
taskset -c 0 /usr/bin/python3 Benchmarks/vips_bench.py "$data" | tee -a "$results"
echo "incremental (one core) ..." >&2
taskset -c 0 "$bench" incremental "$data" | tee -a "$results"
echo "throughput (all cores) ..." >&2
"$bench" throughput "$data" | tee -a "$results"
"$bench" thumbnail-peak "$data" | tee -a "$results"
/usr/bin/python3 Benchmarks/report.py "$results" Benchmarks/notes.md > BENCHMARKS.md
echo "Wrote BENCHMARKS.md" >&2
