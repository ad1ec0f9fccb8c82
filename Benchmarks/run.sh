#!/usr/bin/env bash
# Runs the side-by-side benchmarks on this machine and rewrites BENCHMARKS.md.
# Usage: Benchmarks/run.sh [SUITE...]      (no suite: all of them)
#   decode animated transform incremental throughput   decoding, animation, transforms, pipelines (issues 2, 3, 7)
#   color                                              Display P3 to sRGB beside Pillow's ImageCms (Little CMS) and libvips
#   placeholders                                       BlurHash, ThumbHash, SSIM beside the BlurHash C code, a ThumbHash port, scikit-image
#   deep                                               16-bit PNG thumbnails kept 16-bit (preserve_hdr) beside libvips
#   formats                                            header-only properties, AVIF/HEIC/JXL/SVG decoders (issue 13)
#   isolation                                          an isolated HEIC's and AVIF's render through a decode helper beside in process
#   cache                                              memory and disk caches (issue 4)
#   cache-scale                                        the disk cache at a million entries (issue 18; ~6 GB of disk)
#   loading                                            downloads from nginx on loopback, curl, aiohttp (issue 5)
#   fetch                                              CPU per origin fetch (320 KB, 4 MB, 30 MB) beside curl (issue 51)
#   manager                                            ImageManager end to end vs aiohttp + Pillow (issue 6)
#   animation                                          lazy playback memory, one process per mode (issue 3)
#   serve                                              `webimage serve` beside thumbor and nginx image_filter (issue 15)
#   info                                               `/info` beside a full render of the same source (issue 52)
#   quality                                            autoquality against q:80, format:best against single formats (issue 52)
#   redis                                              the Redis tier beside redis-benchmark; scripts/cluster (issue 16)
#   process                                            whole `webimage` processes beside djpeg; first decodes (issue 17)
#   thumbnail encode                                   streaming thumbnails; encoders beside their C libraries (issue 17)
# Each suite's JSON lines go to Benchmarks/out/SUITE.jsonl; BENCHMARKS.md is made from every suite's latest run.
set -euo pipefail
cd "$(dirname "$0")/.."
all=(decode color placeholders deep formats isolation animated transform incremental throughput cache cache-scale loading fetch manager animation serve info quality redis
     process thumbnail encode)
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=("${all[@]}")
for suite in "${suites[@]}"; do
    case " ${all[*]} " in *" $suite "*) ;; *) echo "unknown suite '$suite'; suites: ${all[*]}" >&2; exit 2 ;; esac
done
scripts/install-deps --bench
data=Benchmarks/data
out=Benchmarks/out
mkdir -p "$out"
/usr/bin/python3 Benchmarks/make_data.py "$data"
swift build -c release --package-path Benchmarks --product WebImageBenchmarks 2>&1 | grep -E "error|warning|Compiling|Build" >&2 || true
bench=Benchmarks/.build/release/WebImageBenchmarks
[ -x "$bench" ] || { echo "the release build failed" >&2; exit 1; }

suite_color() {
    taskset -c 0 "$bench" color "$data"
    taskset -c 0 /usr/bin/python3 Benchmarks/pillow_bench.py color "$data"
    # libvips' icc_transform in-process on the same photo (its whole conversion: libvips has no cheaper split).
    if pkg-config --exists vips; then
        # shellcheck disable=SC2046
        cc -O2 -o "$out/vips_icc_bench" Benchmarks/reference/vips_icc_bench.c $(pkg-config --cflags --libs vips)
        taskset -c 0 "$out/vips_icc_bench" "$data"
    else
        echo "color: no libvips-dev (pkg-config vips), skipping libvips' icc_transform" >&2
    fi
}

# The placeholders' and the quality suite's references come from PyPI, in a virtual environment of their own (with
# the system's Pillow).
placeholders_venv=Benchmarks/.venv-placeholders
make_placeholders_venv() {
    local venv=$placeholders_venv
    [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import blurhash, thumbhash, skimage" 2>/dev/null || {
        python3 -m venv --system-site-packages "$venv" \
            && "$venv/bin/pip" install -q blurhash-python==1.2.2 thumbhash==0.1.2 scikit-image==0.25.2; }
}

suite_placeholders() {
    local venv=$placeholders_venv
    make_placeholders_venv
    taskset -c 0 "$bench" placeholders "$data"
    taskset -c 0 "$venv/bin/python" Benchmarks/placeholder_bench.py "$data"
}

suite_deep() {
    local dir="$data/deep"
    mkdir -p "$dir"
    [ -f "$dir/photo-2mp-16.png" ] || convert "$data/photo-12mp.jpg" -resize '1600x1200!' -depth 16 "$dir/photo-2mp-16.png"
    taskset -c 0 "$bench" deep "$data"
    taskset -c 0 /usr/bin/python3 Benchmarks/vips_bench.py deep "$data"
}

suite_isolation() {
    # `webimage _decode-helper` is the helper, as `webimage serve` starts it.
    make_format_photos
    swift build -c release --product webimage 2>&1 | grep -E "error" >&2 || true
    "$bench" isolation "$data" .build/release/webimage
}

suite_decode() {
    taskset -c 0 "$bench" decode "$data"
    taskset -c 0 /usr/bin/python3 Benchmarks/pillow_bench.py decode "$data"
}

# The 1 MP photo as AVIF, HEIC and JPEG XL, for the formats and isolation suites.
make_format_photos() {
    local dir="$data/formats"
    mkdir -p "$dir"
    [ -f "$dir/photo-1mp.png" ] || convert "$data/photo-12mp.jpg" -resize '1200x900!' "$dir/photo-1mp.png"
    [ -f "$dir/photo-1mp.avif" ] || avifenc -s 6 -j 1 "$dir/photo-1mp.png" "$dir/photo-1mp.avif" >/dev/null
    [ -f "$dir/photo-1mp.heic" ] || heif-enc -q 80 -o "$dir/photo-1mp.heic" "$dir/photo-1mp.png" >/dev/null
    [ -f "$dir/photo-1mp.jxl" ] || cjxl -q 85 "$dir/photo-1mp.png" "$dir/photo-1mp.jxl" >/dev/null 2>&1
}

suite_formats() {
    local dir="$data/formats"
    make_format_photos
    /usr/bin/python3 Benchmarks/make_formats.py "$dir"
    cc -O2 -o "$out/avif_bench" Benchmarks/reference/avif_bench.c -lavif
    cc -O2 -o "$out/heif_bench" Benchmarks/reference/heif_bench.c -lheif
    # shellcheck disable=SC2046
    cc -O2 -o "$out/svg_bench" Benchmarks/reference/svg_bench.c $(pkg-config --cflags --libs librsvg-2.0)
    taskset -c 0 "$bench" formats "$data"
    taskset -c 0 "$out/avif_bench" "$dir/photo-1mp.avif"
    taskset -c 0 "$out/heif_bench" "$dir/photo-1mp.heic"
    taskset -c 0 "$out/svg_bench" "$dir/shapes.svg"
    # `webimage info` over 1 000 files beside ImageMagick's `identify -ping`, one process each, wall clock.
    swift build -c release --product webimage 2>&1 | grep -E "error" >&2 || true
    # Through a shell (no -N): the file list is a glob.
    hyperfine -w 2 -r 10 --export-json "$out/info.json" \
        ".build/release/webimage info $dir/many/*" "identify -ping $dir/many/*" >/dev/null
    /usr/bin/python3 -c '
import json, sys
for result, impl in zip(json.load(open(sys.argv[1]))["results"], ["swift-web-image", "identify -ping (ImageMagick)"]):
    print(json.dumps({"suite": "formats", "name": "info over 1 000 files (JPEG, PNG, GIF, WebP)", "impl": impl,
                      "value": result["median"] * 1000, "unit": "ms"}))' "$out/info.json"
}

suite_animated() {
    cc -O2 -o "$out/giflib_bench" Benchmarks/reference/giflib_bench.c -lgif
    cc -O2 -o "$out/webp_anim_bench" Benchmarks/reference/webp_anim_bench.c -lwebpdemux -lwebp
    taskset -c 0 "$bench" animated "$data"
    taskset -c 0 "$out/giflib_bench" "$data/pan-640x480-20.gif"
    taskset -c 0 "$out/webp_anim_bench" "$data/pan-640x480-20.webp"
    taskset -c 0 /usr/bin/python3 Benchmarks/pillow_bench.py animated "$data"
}

suite_transform() {
    taskset -c 0 "$bench" transform "$data"
    taskset -c 0 /usr/bin/python3 Benchmarks/pillow_bench.py transform "$data"
    taskset -c 0 /usr/bin/python3 Benchmarks/vips_bench.py "$data"
    # The resizes again with libvips in-process (the `vips` command's rows cannot resolve small operations).
    if pkg-config --exists vips; then
        # shellcheck disable=SC2046
        cc -O2 -o "$out/vips_resize_bench" Benchmarks/reference/vips_resize_bench.c $(pkg-config --cflags --libs vips)
        taskset -c 0 "$out/vips_resize_bench" "$data"
    else
        echo "transform: no libvips-dev (pkg-config vips), skipping the in-process libvips resizes" >&2
    fi
}

suite_incremental() {
    taskset -c 0 "$bench" incremental "$data"
}

suite_throughput() {
    "$bench" throughput "$data"
    "$bench" thumbnail-peak "$data"
}

suite_cache() {
    # The disk-hit-plus-decode case compares with TurboJPEG on a photo-like 800x600 JPEG.
    [ -f "$data/cache-photo-800x600.jpg" ] ||
        convert -size 800x600 -seed 7 plasma:fractal -quality 85 "$data/cache-photo-800x600.jpg"
    "$bench" cache "$data"  # not pinned: the two-thread cases need both cores
}

suite_cache-scale() {
    # One process per step, so each "first lookup" is a fresh process's first. On the disk, not tmpfs.
    local dir=Benchmarks/data/cache-scale
    rm -rf "$dir"
    mkdir -p "$dir"
    "$bench" cache-scale fill "$dir/ten" 10
    "$bench" cache-scale fill "$dir/million" 1000000
    for pair in "ten:10 entries" "million:1 000 000 entries"; do
        for round in 1 2 3; do "$bench" cache-scale first "$dir/${pair%%:*}" "${pair#*:}"; done
    done | /usr/bin/python3 -c '
import json, sys
rows = {}
for line in sys.stdin:  # the median of three fresh processes per row
    row = json.loads(line)
    rows.setdefault((row["name"], row["impl"], row["unit"]), []).append(row["value"])
for (name, impl, unit), values in rows.items():
    print(json.dumps({"suite": "cache-scale", "name": name + " (median of 3 processes)", "impl": impl,
                      "value": sorted(values)[1], "unit": unit}, ensure_ascii=False))'
    # `webimage cache stats` end to end, a process each (startup included), beside `--exact`, which lists.
    swift build -c release --product webimage 2>&1 | grep -E "error" >&2 || true
    hyperfine -N -w 2 -r 10 --export-json "$out/cache-stats.json" \
        ".build/release/webimage cache stats --cache-dir $dir/million --json" \
        ".build/release/webimage cache stats --cache-dir $dir/ten --json" >/dev/null
    hyperfine -N -w 1 -r 3 --export-json "$out/cache-stats-exact.json" \
        ".build/release/webimage cache stats --exact --cache-dir $dir/million --json" >/dev/null
    /usr/bin/python3 -c '
import json, sys
impls = ["swift-web-image, 1 000 000 entries", "swift-web-image, 10 entries", "--exact (lists), 1 000 000 entries"]
results = json.load(open(sys.argv[1]))["results"] + json.load(open(sys.argv[2]))["results"]
for result, impl in zip(results, impls):
    print(json.dumps({"suite": "cache-scale", "name": "`webimage cache stats --json`, whole process (median)",
                      "impl": impl, "value": result["median"] * 1000, "unit": "ms"}))' \
        "$out/cache-stats.json" "$out/cache-stats-exact.json"
    "$bench" cache-scale trim "$dir/million"
    rm -rf "$dir"
}

# Starts nginx (one worker, daemon) serving ROOT on 127.0.0.1:PORT, plus ROOT under /drip/ at 64 bytes a second;
# its config, pid and log live in WORK. The caller's EXIT trap stops it.
start_nginx() {
    local work="$1" root="$2" port="$3"
    cat > "$work/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    keepalive_requests 100000;
    types { image/jpeg jpg; }
    server {
        listen 127.0.0.1:$port;
        root $root;
        location / { }
        location /drip/ { alias $root/; limit_rate 64; }
    }
}
CONF
    nginx -c "$work/nginx.conf" -p "$work/"
}

# Makes `work`, a folder for start_nginx that its workers can read, removed (and nginx stopped) when the suite's
# subshell exits.
make_nginx_work() {
    work="$(mktemp -d)"
    chmod 755 "$work"  # nginx workers run as nobody when the master is root
    trap 'kill "$(cat "$work/nginx.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
}

suite_loading() {
    # nginx (one worker) serves 200 files of 100 KB and, under /drip/, the same at 64 bytes a second.
    # Runs in the subshell of the pipe below, so the EXIT trap stops nginx when this suite ends.
    port=18089
    make_nginx_work
    mkdir -p "$work/www"
    /usr/bin/python3 -c '
import os, random, sys
rng = random.Random(5)
for i in range(200):
    with open(os.path.join(sys.argv[1], f"img{i:03d}.jpg"), "wb") as f:
        f.write(rng.randbytes(100 * 1024))' "$work/www"
    start_nginx "$work" "$work/www" "$port"
    local base="http://127.0.0.1:$port"
    for i in $(seq -f "%03g" 0 199); do
        echo "url = \"$base/img$i.jpg\""
        echo 'output = "/dev/null"'
    done > "$work/curl.cfg"
    hyperfine -N -w 2 -r 10 --export-json "$work/curl.json" \
        "curl -s --parallel --parallel-max 8 -K $work/curl.cfg" >/dev/null
    /usr/bin/python3 -c '
import json, sys
median = json.load(open(sys.argv[1]))["results"][0]["median"] * 1000
print(json.dumps({"suite": "loading", "name": "200 × 100 KB from nginx on loopback, 8 at a time",
                  "impl": "curl --parallel", "value": median, "unit": "ms"}, ensure_ascii=False))' "$work/curl.json"
    /usr/bin/python3 Benchmarks/aio_bench.py "$base"
    "$bench" loading "$base"
}

suite_fetch() {
    # One nginx (one worker) serves three random files; our loader and curl fetch each over one kept connection,
    # alternating round by round (fetch_bench.py). Runs in the pipe's subshell: the EXIT trap stops nginx.
    port=18091
    make_nginx_work
    mkdir -p "$work/www"
    head -c 327680 /dev/urandom > "$work/www/320k.bin"
    head -c 4194304 /dev/urandom > "$work/www/4m.bin"
    head -c 31457280 /dev/urandom > "$work/www/30m.bin"
    start_nginx "$work" "$work/www" "$port"
    FETCH_ROOT="$work/www" /usr/bin/python3 Benchmarks/fetch_bench.py "$bench" "http://127.0.0.1:$port" "${FETCH_ROUNDS:-5}"
}

suite_manager() {
    # ImageManager beside aiohttp + Pillow, both against one nginx on loopback serving 200 640x480 JPEGs.
    # Runs in the subshell of the pipe below, so the EXIT trap stops nginx when this suite ends.
    local port=18090
    make_nginx_work
    /usr/bin/python3 Benchmarks/manager_bench.py make "$data/manager"
    chmod -R a+rX "$data/manager"
    start_nginx "$work" "$PWD/$data/manager" "$port"
    "$bench" manager "$data" "http://127.0.0.1:$port"
    # The cold run, the two sides alternating seven times; the median of each side is reported. Once with the
    # caches in the temporary folder (ext4 here) and once on tmpfs: on this machine's journal-less ext4 a new
    # file costs both sides a scan of recently deleted inodes that outweighs the decoding.
    local store round
    for store in "" /dev/shm; do
        for round in 1 2 3 4 5 6 7; do
            TMPDIR="${store:-${TMPDIR:-/tmp}}" "$bench" manager-cold "http://127.0.0.1:$port"
            TMPDIR="${store:-${TMPDIR:-/tmp}}" /usr/bin/python3 Benchmarks/manager_bench.py cold "http://127.0.0.1:$port"
        done | /usr/bin/python3 -c '
import json, statistics, sys
rows = {}
for line in sys.stdin:
    row = json.loads(line)
    rows.setdefault(row["impl"], []).append(row)
for impl, group in rows.items():
    row = dict(group[0], value=statistics.median(r["value"] for r in group))
    if sys.argv[1]:
        row["name"] += ", caches on tmpfs"
    print(json.dumps(row))' "$store"
    done
}

suite_animation() {
    /usr/bin/python3 Benchmarks/make_animation.py "$data/animation" >/dev/null
    local file frames
    for file in "$data/animation/anim-480x360-200.gif" "$data/animation/anim-480x360-200.webp"; do
        taskset -c 0 "$bench" animation eager "$file"
        for frames in 3 8 40 auto; do taskset -c 0 "$bench" animation lazy "$file" "$frames"; done
    done
}

suite_serve() {
    # `webimage serve` beside thumbor (from PyPI, in a virtual environment of its own) and nginx's image_filter,
    # with wrk on loopback; Benchmarks/serve_bench.py starts and stops every server. Not pinned: every server
    # gets both cores (2 workers or processes each), as wrk does.
    local venv=Benchmarks/.venv-thumbor
    [ -x "$venv/bin/thumbor" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q thumbor==7.8.0; }
    swift build -c release --product webimage 2>&1 | grep -E "error" >&2 || true
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    /usr/bin/python3 Benchmarks/serve_bench.py "$data" "$work" .build/release/webimage "$venv/bin/thumbor" "$bench"
}

suite_info() {
    # `/info` and a render of the same sources, alternating, with wrk on loopback (Benchmarks/info_bench.py, on
    # the serve suite's origin and helpers). Not pinned, as the serve suite.
    swift build -c release --product webimage 2>&1 | grep -E "error" >&2 || true
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    /usr/bin/python3 Benchmarks/info_bench.py "$data" "$work" .build/release/webimage
}

suite_quality() {
    # Over scikit-image's bundled photos and graphics (the placeholders suite's virtual environment has it), one
    # request at a time: Benchmarks/quality_bench.py starts nginx and `webimage serve` and stops them.
    make_placeholders_venv
    swift build -c release --product webimage 2>&1 | grep -E "error" >&2 || true
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    "$placeholders_venv/bin/python" Benchmarks/quality_bench.py "$work" .build/release/webimage
}

suite_redis() {
    # The tier's GET/SET beside redis-benchmark on one redis-server (no persistence), three rounds alternating
    # the two sides (ours twice: callers on Swift's thread pool, and on NIO's event loops as `webimage serve` runs
    # them); then the three-instance cluster behind nginx. Not pinned: both sides share both cores with
    # the server, as a client on the same machine as its Redis does.
    local port=18110 round
    work="$(mktemp -d)"
    redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >/dev/null &
    local redis_pid=$!
    trap 'kill "$redis_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
    until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.05; done
    for round in 1 2 3; do
        redis-benchmark -p "$port" -d 51200 -c 8 -n 20000 -t set,get --csv 2>/dev/null | /usr/bin/python3 -c '
import csv, json, sys
for row in csv.reader(sys.stdin):
    if row and row[0] in ("SET", "GET"):
        print(json.dumps({"suite": "redis", "name": row[0] + " 50 KB values, 8 in flight", "impl": "redis-benchmark",
                          "value": float(row[1]), "unit": "ops/s"}))'
        "$bench" redis "redis://127.0.0.1:$port"
        "$bench" redis "redis://127.0.0.1:$port" event-loops
    done
    swift build -c release --product webimage 2>&1 | grep -E "error" >&2 || true
    scripts/cluster
}

suite_thumbnail() {
    # Time pinned to one core; then peak memory, one fresh process per file and way.
    taskset -c 0 "$bench" thumbnail "$data"
    local file way
    for file in photo-4k.png photo-4k.webp photo-4k.gif; do
        for way in streamed full; do "$bench" thumbnail-peak-way "$data/$file" "$way"; done
    done
}

suite_encode() {
    taskset -c 0 "$bench" encode "$data"
    taskset -c 0 /usr/bin/python3 Benchmarks/pillow_bench.py encode "$data"
}

suite_process() {
    # `webimage convert … --format rgba` beside djpeg, whole processes with start-up taken out (wall clock, not
    # pinned: the process's own threads count); then the first decode in a fresh process beside the pooled ones
    # after it, one process a round, medians of 15.
    swift build -c release --product webimage 2>&1 | grep -E "error" >&2 || true
    cc -O2 -o "$out/spawn_rss" Benchmarks/reference/spawn_rss.c
    /usr/bin/python3 Benchmarks/process_bench.py .build/release/webimage "$out/spawn_rss" "$data" "$out"
    local round
    for round in $(seq 15); do taskset -c 0 "$bench" first-decode "$data/photo-12mp.jpg"; done | /usr/bin/python3 -c '
import json, statistics, sys
rows = {}
for line in sys.stdin:
    row = json.loads(line)
    rows.setdefault((row["name"], row["impl"], row["unit"]), []).append(row["value"])
for (name, impl, unit), values in rows.items():
    print(json.dumps({"suite": "process", "name": name + " (medians of 15 processes)", "impl": impl,
                      "value": statistics.median(values), "unit": unit}))'
}

for suite in "${suites[@]}"; do
    echo "$suite ..." >&2
    "suite_$suite" | tee "$out/$suite.jsonl.partial"
    mv "$out/$suite.jsonl.partial" "$out/$suite.jsonl"
done
# Only the suites run here change in BENCHMARKS.md: the other sections and the notes under each table are kept.
/usr/bin/python3 Benchmarks/report.py "$out" Benchmarks/notes.md BENCHMARKS.md > "$out/BENCHMARKS.md"
mv "$out/BENCHMARKS.md" BENCHMARKS.md
echo "Updated BENCHMARKS.md" >&2
