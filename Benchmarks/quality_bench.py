"""Autoquality and `format:best` on `webimage serve`, over scikit-image's bundled photos and graphics.

Usage: quality_bench.py WORK WEBIMAGE   (run with a Python that has scikit-image: Benchmarks/.venv-placeholders)

Every one of the 26 images scikit-image ships (photos: astronaut, coffee, chelsea, rocket…; graphics: logo, page,
text, chessboard…) is served by one nginx and answered by `webimage serve`, one request at a time:

- fixed quality 80 (`q:80`), autoquality `dssim` at the documented default (target 0.02 within 0.002, qualities
  70–80), and autoquality `dssim` aimed at the mean DSSIM that `q:80` gave (qualities 30–95): at equal mean
  dissimilarity, the bytes each spends. DSSIM is (1 − SSIM) / 2 against the lossless answer of the same URL
  (`@png`), SSIM scikit-image's (Gaussian window σ 1.5, sample covariance off, on BT.601 grey), the one the
  server's search uses. Encodes per image from the server's counters; time per image from the request's latency.
- `format:best` beside each single format (JPEG, PNG, WebP, AVIF at the server's qualities), `Accept` taking
  AVIF and WebP: total bytes, and how often each format won.

Prints one JSON line a result.
"""
import io
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import numpy
import skimage
from PIL import Image
from skimage.metrics import structural_similarity

WORK, WEBIMAGE = sys.argv[1:3]
ORIGIN, SERVE = 18121, 18122
WWW = os.path.join(WORK, "www")
DATA = os.path.join(os.path.dirname(skimage.__file__), "data")
ACCEPT = "image/avif,image/webp,image/*"


def get(path, accept=ACCEPT):
    request = urllib.request.Request(f"http://127.0.0.1:{SERVE}{path}", headers={"Accept": accept})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=120) as response:
        body = response.read()
        return body, response.headers["Content-Type"], time.perf_counter() - started


def path(name, options, ext=None, cachebuster=""):
    source = urllib.parse.quote(f"http://127.0.0.1:{ORIGIN}/{name}", safe="")
    segments = "".join("/" + option for option in options + ([f"cb:{cachebuster}"] if cachebuster else []))
    return f"/_{segments}/plain/{source}" + (f"@{ext}" if ext else "")


def grey(body):
    rgb = numpy.asarray(Image.open(io.BytesIO(body)).convert("RGB")).astype(numpy.float64)
    return numpy.round((rgb[..., 0] * 19595 + rgb[..., 1] * 38470 + rgb[..., 2] * 7471) / 65536)


def dssim(body, reference):
    ssim = structural_similarity(grey(reference), grey(body), gaussian_weights=True, sigma=1.5,
                                 use_sample_covariance=False, data_range=255)
    return (1 - ssim) / 2


def counter(name):
    with urllib.request.urlopen(f"http://127.0.0.1:{SERVE}/metrics") as response:
        for line in response.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    return 0.0


def emit(name, impl, value, unit):
    print(json.dumps({"suite": "quality", "name": name, "impl": impl, "value": value, "unit": unit},
                     ensure_ascii=False))
    sys.stdout.flush()


def main():
    os.makedirs(WWW, exist_ok=True)
    os.chmod(WORK, 0o755)  # nginx's workers read the files as another user
    names = sorted(name for name in os.listdir(DATA) if name.endswith((".png", ".jpg")))
    for name in names:
        shutil.copy(os.path.join(DATA, name), WWW)
    with open(os.path.join(WORK, "nginx.conf"), "w") as handle:
        handle.write(f"""worker_processes 1; daemon on; pid {WORK}/nginx.pid; error_log {WORK}/nginx-error.log;
events {{ worker_connections 256; }}
http {{ access_log off; types {{ image/jpeg jpg; image/png png; }}
  server {{ listen 127.0.0.1:{ORIGIN}; root {WWW}; }} }}
""")
    subprocess.run(["nginx", "-c", os.path.join(WORK, "nginx.conf"), "-p", WORK + "/"], check=True)
    serve = subprocess.Popen([WEBIMAGE, "serve", "--bind", f"127.0.0.1:{SERVE}", "--insecure",
                              "--allow-loopback-sources", "--cache-dir", os.path.join(WORK, "cache"),
                              "--auto-webp", "--auto-avif"],
                             stdout=subprocess.DEVNULL, stderr=open(os.path.join(WORK, "serve.log"), "w"),
                             start_new_session=True)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{SERVE}/health").read()
                break
            except Exception:
                time.sleep(0.1)
        references = {name: get(path(name, [], "png"))[0]
                      for name in names}
        rows = {}

        def run(label, options, cachebuster):
            searches = counter("webimage_serve_quality_searches_total")
            encodes = counter("webimage_serve_quality_search_encodes_total")
            results = []
            for name in names:
                body, _, seconds = get(path(name, options, "jpg", cachebuster))
                results.append((len(body), dssim(body, references[name]), seconds))
            searched = counter("webimage_serve_quality_searches_total") - searches
            encoded = counter("webimage_serve_quality_search_encodes_total") - encodes
            rows[label] = results
            return results, (encoded / searched if searched else 1.0)

        fixed, _ = run("q:80", ["q:80"], "fixed")
        mean_fixed = statistics.mean(d for _, d, _ in fixed)
        default, default_encodes = run("aq:dssim (default: 0.02 ± 0.002, q 70–80)", ["aq:dssim"], "default")
        runs = [("q:80", fixed, 1.0), ("aq:dssim (default: 0.02 ± 0.002, q 70–80)", default, default_encodes)]
        # Targets around q:80's mean DSSIM, within 0.001, qualities 30–95: where the mean DSSIM crosses q:80's is
        # where the bytes compare at equal quality.
        for index, target in enumerate((mean_fixed, mean_fixed * 1.25, mean_fixed * 1.5)):
            label = f"aq:dssim:{target:.4f}:30:95:0.001" + (" (q:80's mean DSSIM)" if index == 0 else "")
            results, encodes = run(label, [f"aq:dssim:{target:.4f}:30:95:0.001"], f"matched{index}")
            runs.append((label, results, encodes))
        total_fixed = sum(b for b, _, _ in fixed)
        for label, results, encodes in runs:
            total = sum(b for b, _, _ in results)
            impl = f"swift-web-image, {len(names)} images"
            emit(f"JPEG, {label}: total bytes", impl, total, f"bytes ({100 * (1 - total / total_fixed):.1f}% fewer "
                                                              "than q:80)")
            emit(f"JPEG, {label}: mean DSSIM", impl, statistics.mean(d for _, d, _ in results), "DSSIM")
            emit(f"JPEG, {label}: worst image's DSSIM", impl, max(d for _, d, _ in results), "DSSIM")
            emit(f"JPEG, {label}: encodes per image", impl, encodes, "encodes")
            emit(f"JPEG, {label}: time per image", impl,
                 1000 * statistics.median(s for _, _, s in results), "ms median")

        # format:best beside each single format.
        totals, wins, chosen = {}, {}, []
        for name in names:
            for ext in ("jpg", "png", "webp", "avif"):
                body, _, _ = get(path(name, [], ext, "single"))
                totals[ext] = totals.get(ext, 0) + len(body)
            body, kind, _ = get(path(name, ["f:best"], None, "best"))
            totals["best"] = totals.get("best", 0) + len(body)
            wins[kind] = wins.get(kind, 0) + 1
            chosen.append(f"{name.rsplit('.', 1)[0]} {kind.split('/')[1]}")
        for ext, total in totals.items():
            emit("format:best beside single formats: total bytes", "f:best" if ext == "best" else f"@{ext}",
                 total, "bytes")
        emit("format:best: formats chosen", "f:best", len(names),
             "images (" + ", ".join(f"{kind} {count}" for kind, count in sorted(wins.items())) + "): "
             + ", ".join(chosen))
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(timeout=30)
        with open(os.path.join(WORK, "nginx.pid")) as handle:
            os.kill(int(handle.read()), signal.SIGTERM)


main()
