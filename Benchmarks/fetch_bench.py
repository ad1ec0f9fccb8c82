#!/usr/bin/env python3
"""CPU per origin fetch: WebImageBenchmarks fetch-cpu beside curl on the same nginx, same URL, alternating.

Usage: fetch_bench.py BENCH BASE_URL ROUNDS
BASE_URL serves /320k.bin, /4m.bin and /30m.bin. Each round runs both sides on each size: ours as `BENCH fetch-cpu
URL COUNT` (its own getrusage, after a warm-up), curl as one process fetching the URL COUNT times over one kept
connection (its user + system time from the children's rusage, less one curl process fetching it once: start-up is
not a fetch). Prints one JSON line per size and side with the median of the rounds, and the ratio.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

SIZES = [("320k.bin", 2000), ("4m.bin", 300), ("30m.bin", 40)]


def curl_cpu(url, count, work):
    config = os.path.join(work, "curl.cfg")
    with open(config, "w") as f:
        for _ in range(count):
            f.write(f'url = "{url}"\noutput = "/dev/null"\n')

    def run(cfg):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(["curl", "-s", "-K", cfg], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    single = os.path.join(work, "one.cfg")
    with open(single, "w") as f:
        f.write(f'url = "{url}"\noutput = "/dev/null"\n')
    return max(0.0, run(config) - run(single)) / (count - 1) * 1000


def ours_cpu(bench, url, count):
    out = subprocess.run([bench, "fetch-cpu", url, str(count)], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        row = json.loads(line)
        if row["name"].endswith(", CPU"):
            return row["value"]
    raise SystemExit("fetch-cpu printed no CPU line")


def main():
    bench, base, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    results = {name: {"ours": [], "curl": []} for name, _ in SIZES}
    with tempfile.TemporaryDirectory() as work:
        for _ in range(rounds):
            for name, count in SIZES:
                url = f"{base}/{name}"
                results[name]["ours"].append(ours_cpu(bench, url, count))
                results[name]["curl"].append(curl_cpu(url, count, work))
    for name, count in SIZES:
        size = os.path.getsize(os.path.join(os.environ["FETCH_ROOT"], name)) if "FETCH_ROOT" in os.environ else None
        ours = statistics.median(results[name]["ours"])
        curl = statistics.median(results[name]["curl"])
        label = f"CPU per fetch of {name} ({size} bytes), {count} over one connection"
        print(json.dumps({"suite": "fetch", "name": label, "impl": "swift-web-image", "value": ours, "unit": "ms",
                          "runs": results[name]["ours"]}))
        print(json.dumps({"suite": "fetch", "name": label, "impl": "curl", "value": curl, "unit": "ms",
                          "runs": results[name]["curl"]}))
        print(json.dumps({"suite": "fetch", "name": label, "impl": "ratio ours / curl", "value": ours / curl,
                          "unit": "×"}))


if __name__ == "__main__":
    main()
