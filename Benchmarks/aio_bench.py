"""Python aiohttp beside our downloader: 200 × 100 KB from the nginx that run.sh started, 8 at a time.
Prints one JSON line for report.py. Usage: aio_bench.py BASE_URL"""
import asyncio, json, sys, time
import aiohttp

BASE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:18089"
URLS = [f"{BASE}/img{i:03d}.jpg" for i in range(200)]


async def run(session, sem):
    async def one(u):
        async with sem:
            async with session.get(u) as r:
                return len(await r.read())
    return sum(await asyncio.gather(*(one(u) for u in URLS)))


async def main():
    sem = asyncio.Semaphore(8)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=8)) as s:
        times = []
        for i in range(8):
            t = time.perf_counter(); n = await run(s, sem); dt = time.perf_counter() - t
            assert n == 200 * 102400
            if i: times.append(dt)  # round 0 warms the connection pool
        times.sort()
        print(json.dumps({"suite": "loading", "name": "200 × 100 KB from nginx on loopback, 8 at a time",
                          "impl": "aiohttp", "value": times[len(times) // 2] * 1000, "unit": "ms"},
                         ensure_ascii=False))

asyncio.run(main())
