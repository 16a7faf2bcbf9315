#!/usr/bin/env python3
"""Peer benchmark for `activity-push bench send`: Python aioapns (PyPI) sends the same pushes to the same mock.

usage: bench_aioapns.py URL CA_PEM KEY_P8 KEY_ID TEAM_ID TOPIC PUSHES_JSON CONCURRENCY
PUSHES_JSON: [{"token": hex, "priority": 5|10, "body": {...}}, ...]
Prints one line: `aioapns pushes=N ok=N seconds=S rate=R p50ms=L p99ms=L` (rate in pushes per second,
latencies of single pushes in milliseconds).
"""
import asyncio
import json
import ssl
import sys
import time
from urllib.parse import urlparse

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection as conn


async def main() -> None:
    url, ca, key, key_id, team_id, topic, pushes_path, concurrency = sys.argv[1:9]
    u = urlparse(url)
    # aioapns has no endpoint option: its host and port are class attributes.
    conn.APNsProductionClientProtocol.APNS_SERVER = u.hostname
    conn.APNsTLSClientProtocol.APNS_PORT = u.port or 443
    with open(pushes_path) as f:
        pushes = json.load(f)
    with open(key) as f:
        key_text = f.read()
    ctx = ssl.create_default_context(cafile=ca)
    client = APNs(key=key_text, key_id=key_id, team_id=team_id, topic=topic, use_sandbox=False,
                  ssl_context=ctx, max_connections=1)
    sem = asyncio.Semaphore(int(concurrency))

    latencies = []

    async def one(p) -> bool:
        async with sem:
            sent = time.perf_counter()
            r = await client.send_notification(NotificationRequest(
                device_token=p["token"], message=p["body"], priority=p["priority"],
                push_type=PushType.LIVEACTIVITY))
            latencies.append(time.perf_counter() - sent)
            return r.is_successful

    await one(pushes[0])  # connect and authenticate outside the timed part
    latencies.clear()
    start = time.perf_counter()
    results = await asyncio.gather(*(one(p) for p in pushes))
    seconds = time.perf_counter() - start
    ok = sum(1 for r in results if r)
    latencies.sort()

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000 if latencies else 0.0

    print(f"aioapns pushes={len(pushes)} ok={ok} seconds={seconds:.3f} rate={len(pushes) / seconds:.0f} "
          f"p50ms={pct(0.5):.2f} p99ms={pct(0.99):.2f}")


if __name__ == "__main__":
    asyncio.run(main())
