"""Turns the JSON lines of benchmark runs into BENCHMARKS.md.

Usage: report.py RESULTS NOTES.md [EXISTING.md] — RESULTS is Benchmarks/out (one SUITE.jsonl per suite, each from
its latest run) or a single .jsonl file. With EXISTING (the BENCHMARKS.md in the repository), only the suites in
RESULTS change: each one's heading, description and table are replaced, and everything else (other suites' rows,
which a machine that ran one suite does not have, and the notes written under each table) is kept. Without it the
report is made from RESULTS and NOTES alone.
"""
import datetime
import glob
import json
import os
import platform
import sys
from collections import OrderedDict

OURS = "swift-web-image"
# Suites in the order of the report (others follow alphabetically), and what each compares.
SECTIONS = OrderedDict([
    ("decode", "Full decodes and thumbnails beside the C libraries and Pillow (one core)."),
    ("color", "Colour management: a Display P3 photo converted to sRGB while decoding, beside Pillow's ImageCms "
              "(Little CMS) transforming the same decoded pixels (one core)."),
    ("deep", "Keeping 16 bits (`preserve_hdr`): a 16-bit PNG photo made into a 300 px wide 16-bit PNG, beside the "
             "same file through the 8-bit pipeline and libvips' `thumbnail` (which keeps 16 bits; one core)."),
    ("animated", "Every frame of an animation decoded and composited (one core)."),
    ("transform", "Transformers beside Pillow and libvips (one core)."),
    ("incremental", "Progressive and incremental decoding (one core)."),
    ("throughput", "Many images at once: one task versus one per core."),
    ("memory", "Peak memory of a thumbnail decode."),
    ("cache", "Memory cache beside NSCache, disk cache beside plain file I/O and TurboJPEG; CPU time, best of "
              "several runs, the two sides alternating; not pinned (the two-thread rows use both cores)."),
    ("cache-scale", "The disk cache at 1 000 000 entries of 2 KB beside 10 entries, and beside a plain directory of "
                    "files (`lstat` of one path: the limit); one fresh process per first lookup; wall clock, page "
                    "cache warm (issue 18)."),
    ("loading", "Downloads from nginx on loopback beside curl and aiohttp (wall clock, median of 7 rounds), and "
                "the downloader's own costs."),
    ("animation", "A 200-frame 480x360 animation played lazily beside holding every frame: one process per mode, "
                  "peak resident memory includes the ~20 MB a process holds before decoding (one core)."),
    ("serve", "`webimage serve` beside thumbor and nginx's image_filter, wrk on loopback (2 threads, 8 connections, "
              "10 s a row), every server with 2 workers or processes on the 2 cores it shares with wrk and the "
              "origin nginx. Distinct URLs: each request names a source URL of its own, so every request "
              "fetches, decodes, resizes and encodes. Hot: one URL again and again, beside nginx serving the "
              "same bytes as a static file (both write an access log line). Peak RSS is the process's peak so "
              "far (summed over thumbor's processes) (issue 15)."),
    ("isolation", "What decoder isolation costs an isolated format's render: a 300 px thumbnail planned from the "
                  "source's header, as the proxy plans it, through one decode helper in one planned exchange "
                  "(swift-web-image: the properties come back before the pixels, the source is sent once), in two "
                  "exchanges (properties, then the decode, as until 2026-11-30) and in this process without "
                  "isolation; wall clock, medians of 41 rounds alternating the three."),
    ("redis", "The Redis tier (`RedisImageCache`: entry header, checksum, verified reads) beside redis-benchmark "
              "on one redis-server 7.0 without persistence: 50 KB values, 8 requests in flight on 8 connections, "
              "20 000 of each, three rounds alternating the two sides; both share the 2 cores with the server "
              "(issue 16)."),
    ("cluster", "`scripts/cluster`: Redis, three `webimage serve --redis` instances (1 worker each) and nginx in "
                "front (consistent hash, proxy_cache_lock), all on this machine (issue 16)."),
    ("process", "Whole `webimage` processes as a user runs them, beside djpeg: wall clock, medians of 21 rounds "
                "alternating the sides, start-up taken out of both (a run that starts the same way and decodes "
                "nothing); and the first decode in a fresh process beside the pooled decodes after it (one core, "
                "CPU time) (issue 17)."),
    ("thumbnail", "Thumbnails shrunk while decoding (PNG and GIF row by row, WebP inside libwebp) beside a full "
                  "decode resized after, 3840x2160 to 256 px (one core); peak memory with one fresh process per "
                  "way, the file's bytes included (issue 17)."),
    ("encode", "Our encoders beside their C libraries called directly at the same settings, from the same opaque "
               "RGBA (one core; medians of three rounds alternating the sides) (issue 17)."),
])
# Suites whose rows are not one implementation against another.
NO_RATIO = {"memory", "animation", "cache-scale", "cluster"}


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{model}, {os.cpu_count()} cores, {memory:.0f} GiB, {platform.system()} {platform.release()}"


def load(source):
    """(rows, date of each suite's run) from a folder of SUITE.jsonl files or one file."""
    files = sorted(glob.glob(os.path.join(source, "*.jsonl"))) if os.path.isdir(source) else [source]
    rows, dates = [], {}
    for path in files:
        date = datetime.date.fromtimestamp(os.path.getmtime(path)).isoformat()
        with open(path) as handle:
            for line in handle:
                if line.startswith("{"):
                    row = json.loads(line)
                    rows.append(row)
                    dates.setdefault(row["suite"], date)
    return rows, dates


def ratio(suite, result, ours):
    if suite in NO_RATIO or not ours or result is ours or result["value"] <= 0 or ours["value"] <= 0:
        return ""
    if "/s" in result["unit"]:  # rates: ours ÷ theirs; for scaling rows, this row ÷ the single-task one
        value = ours["value"] / result["value"] if ours["impl"] == OURS else result["value"] / ours["value"]
    else:  # times: theirs ÷ ours
        value = result["value"] / ours["value"]
    return f"{value:.2f}×"


def main():
    rows, dates = load(sys.argv[1])
    notes = open(sys.argv[2]).read() if len(sys.argv) > 2 and os.path.exists(sys.argv[2]) else ""
    suites = OrderedDict()
    for row in rows:
        suites.setdefault(row["suite"], OrderedDict()).setdefault(row["name"], []).append(row)
    order = [s for s in SECTIONS if s in suites] + sorted(s for s in suites if s not in SECTIONS)
    out = ["# Benchmarks", "",
           f"Generated by `Benchmarks/run.sh` on {datetime.date.today().isoformat()} — {machine()}.",
           "Single-core rows ran pinned to one core (`taskset -c 0`); medians of at least 15 runs and 1 s "
           "unless a section says otherwise. `Benchmarks/run.sh SUITE` runs one suite; each section says when "
           "it was measured.",
           "Ratio = reference ÷ swift-web-image for times (above 1 means we are faster), "
           "swift-web-image ÷ reference for rates.", ""]
    if len(sys.argv) > 3 and os.path.exists(sys.argv[3]):
        text = open(sys.argv[3]).read()
        for suite in order:
            text = merged(text, suite, section(suite, suites[suite], dates))
        sys.stdout.write(text)
        return
    for suite in order:
        out += section(suite, suites[suite], dates)
    if notes:
        out += [notes.rstrip(), ""]
    sys.stdout.write("\n".join(out))


def section(suite, cases, dates):
    """A suite's heading, description and table, as lines, ending with an empty one."""
    out = [f"## {suite}", ""]
    description = SECTIONS.get(suite, "")
    out += [f"{description} Measured {dates.get(suite, 'unknown')}.".strip(), ""]
    out += ["| case | implementation | result | ratio |", "|---|---|---|---|"]
    for name, results in cases.items():
        # The row the others are compared with: ours, or for scaling rows the single-task one.
        ours = next((r for r in results if r["impl"] in (OURS, "1 task")), None)
        for result in results:
            out.append(f"| {name} | {result['impl']} | {result['value']:.2f} {result['unit']} | "
                       f"{ratio(suite, result, ours)} |")
    out.append("")
    return out


def merged(text, suite, lines):
    """`text` with `suite`'s heading, description and table replaced by `lines` (what follows its table up to the
    next heading is kept); the section appended when `text` has none."""
    existing = text.split("\n")
    try:
        start = existing.index(f"## {suite}")
    except ValueError:
        return text.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"
    end = start + 1
    while end < len(existing) and not existing[end].startswith("|") and not existing[end].startswith("## "):
        end += 1
    while end < len(existing) and existing[end].startswith("|"):
        end += 1
    while end < len(existing) and existing[end] == "":
        end += 1
    return "\n".join(existing[:start] + lines + existing[end:])


main()
