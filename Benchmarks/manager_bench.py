"""The Python side of the manager benchmark.

manager_bench.py make DIR   -- writes img000.jpg … img199.jpg (640×480, distinct content) into DIR
manager_bench.py cold BASE  -- aiohttp + Pillow doing what the manager does on a cold run: download 200 images
                               8 at a time, decode each (in a 2-thread pool: Pillow releases the GIL while
                               decoding), store the bytes in a cache folder; prints images/s as a JSON line.
"""
import asyncio
import concurrent.futures
import hashlib
import io
import json
import os
import shutil
import sys
import tempfile
import time


def make(folder):
    from PIL import Image, ImageDraw
    os.makedirs(folder, exist_ok=True)
    for index in range(200):
        path = os.path.join(folder, f"img{index:03d}.jpg")
        if os.path.exists(path):
            continue
        image = Image.new("RGB", (640, 480))
        draw = ImageDraw.Draw(image)
        for band in range(0, 480, 8):
            draw.rectangle([0, band, 640, band + 8], fill=((band + index * 7) % 256, (band * 3) % 256, index % 256))
        draw.ellipse([index % 300, 40, index % 300 + 200, 300], fill=(255 - index % 256, 120, 40))
        image.save(path, quality=85)


async def cold_round(session, base, pool, store):
    from PIL import Image
    semaphore = asyncio.Semaphore(8)
    loop = asyncio.get_running_loop()

    def decode_and_store(name, body):
        image = Image.open(io.BytesIO(body))
        image.load()
        key = hashlib.sha256(name.encode()).hexdigest()
        temporary = os.path.join(store, key + ".tmp")
        with open(temporary, "wb") as handle:
            handle.write(body)
        os.replace(temporary, os.path.join(store, key))
        return image.size

    async def one(index):
        url = f"{base}/img{index:03d}.jpg"
        async with semaphore:
            async with session.get(url) as response:
                body = await response.read()
            return await loop.run_in_executor(pool, decode_and_store, url, body)

    sizes = await asyncio.gather(*(one(index) for index in range(200)))
    assert all(size == (640, 480) for size in sizes)


async def cold(base):
    import aiohttp
    rates = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=8)) as session:
            for round_index in range(5):
                store = tempfile.mkdtemp(prefix="pillow-cache-")
                start = time.perf_counter()
                await cold_round(session, base, pool, store)
                elapsed = time.perf_counter() - start
                shutil.rmtree(store)
                if round_index:
                    rates.append(200 / elapsed)
    rates.sort()
    print(json.dumps({"suite": "manager",
                      "name": "cold: 200 JPEGs over loopback HTTP, download + decode + store, 8 at a time",
                      "impl": "aiohttp + Pillow", "value": rates[len(rates) // 2], "unit": "images/s"}))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        asyncio.run(cold(sys.argv[2]))
