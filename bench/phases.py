"""One open-loop phase of the benchmark: sockets connected and settled, warm-up, every send
scheduled in advance at ``index / rate``, arrivals tracked until all are in or the grace period
ends, then the summary. Latency runs from a send's scheduled time, not from when it went out."""

import asyncio
from dataclasses import dataclass

from . import meters, stats
from .client import Tracker


@dataclass
class Phase:
    """What differs between the app and the floors.

    ``open_socket(room, member, tracker)`` -> a client.Socket; ``fire(index, sockets)`` sends
    measured send ``index`` and returns None or an error text; ``warm_up(sockets)`` sends
    unmeasured traffic first; ``servers``: has ``cpu()`` (CPU seconds so far, or None) and
    ``rss()`` (peak resident MB, or None) of the server processes;
    ``close()``, if given, releases the phase's connections at the end; ``kind``: a substring
    of the frames that carry the payload (other frames with a marker are not counted)."""

    name: str
    open_socket: object
    fire: object
    warm_up: object
    servers: object
    close: object = None
    kind: str = ""


async def settle(tracker, quiet=0.3, limit=15.0):
    """Wait until no frame arrived for ``quiet`` seconds (presence updates, warm-ups)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while loop.time() < deadline:
        idle = loop.time() - tracker.last_frame
        if idle >= quiet:
            return
        await asyncio.sleep(quiet - idle)


async def connect_all(phase, tracker, rooms, clients, parallel=20):
    gate = asyncio.Semaphore(parallel)

    async def one(room, member):
        async with gate:
            return await phase.open_socket(room, member, tracker)

    flat = await asyncio.gather(*(one(r, m) for r in range(rooms) for m in range(clients)))
    return [flat[r * clients : (r + 1) * clients] for r in range(rooms)]


async def run(phase, *, sends, rooms, clients, rate, grace):
    """Run ``phase`` for ``sends`` (the room and member of each send); returns its summary."""
    loop = asyncio.get_running_loop()
    tracker = Tracker([room for room, _ in sends], clients, phase.kind)
    sockets = await connect_all(phase, tracker, rooms, clients)
    try:
        tracker.last_frame = loop.time()
        await settle(tracker)
        await phase.warm_up(sockets)
        tracker.last_frame = loop.time()
        await settle(tracker)
        return await _measure(phase, tracker, sockets, sends, rate, grace, loop)
    finally:
        await asyncio.gather(*(s.close() for row in sockets for s in row))
        if phase.close:
            phase.close()


async def _snapshots(servers):
    """A snapshot of each of the servers' meters, read in a thread (they block)."""
    return [await asyncio.to_thread(meter.snapshot) for meter in getattr(servers, "meters", ())]


async def _measure(phase, tracker, sockets, sends, rate, grace, loop):
    tasks, lags, answered = [], [], [None] * len(sends)
    beside_before = await _snapshots(phase.servers)
    t0 = loop.time() + 0.1
    scheduled = [t0 + i / rate for i in range(len(sends))]

    async def fire(index):
        error = await phase.fire(index, sockets)
        answered[index] = loop.time()
        return error

    def start(index):
        lags.append(loop.time() - scheduled[index])
        tasks.append(asyncio.create_task(fire(index)))

    cpu_before = phase.servers.cpu()
    each_before = phase.servers.cpu_each()
    for index, at in enumerate(scheduled):
        loop.call_at(at, start, index)
    duration = len(sends) / rate
    try:
        await asyncio.wait_for(tracker.all_done.wait(), timeout=0.1 + duration + grace)
    except TimeoutError:
        pass
    end = loop.time()
    cpu_after = phase.servers.cpu()
    each_after = phase.servers.cpu_each()
    beside_after = await _snapshots(phase.servers)
    errors = await _outcomes(tasks, grace)
    latencies = [d - s for d, s in zip(tracker.done_at, scheduled, strict=True) if d is not None]
    last = max((d for d in tracker.done_at if d is not None), default=t0)
    summary = stats.summarize(
        latencies=latencies,
        sent=len(sends),
        duplicated=tracker.duplicated,
        misrouted=tracker.misrouted,
        errors=len(errors),
        span=max(duration, last - t0),
        send_lags=lags,
    )
    replies = [a - s for a, s in zip(answered, scheduled, strict=True) if a is not None]
    summary["reply_p99_ms"] = stats.ms(stats.percentile(replies, 99))
    summary["payload_bytes"] = stats.median(tracker.sizes)
    if cpu_before is not None and cpu_after is not None:
        summary["cpu_s"] = round(cpu_after - cpu_before, 3)
        summary["cpu_pct"] = round(100 * (cpu_after - cpu_before) / (end - t0), 1)
        summary["cpu_ms_per_roll"] = round(1000 * summary["cpu_s"] / len(sends), 2)
        summary["cpu_s_by_server"] = [
            None if b is None or a is None else round(a - b, 3)
            for b, a in zip(each_before, each_after, strict=True)
        ]
    for meter, before, after in zip(
        getattr(phase.servers, "meters", ()), beside_before, beside_after, strict=True
    ):
        used = meters.increase(before, after)
        summary[f"{meter.name}_cpu_s"] = used
        summary[f"{meter.name}_cpu_ms_per_roll"] = (
            None if used is None else round(1000 * used / len(sends), 2)
        )
    summary["rss_peak_mb"] = phase.servers.rss()
    if errors:
        summary["first_error"] = str(errors[0])[:300]
    return summary


async def _outcomes(tasks, timeout):
    """The errors of the sends: what they returned or raised; unanswered ones are cancelled."""
    if not tasks:
        return []
    done, pending = await asyncio.wait(tasks, timeout=timeout)
    for task in pending:
        task.cancel()
    errors = [task.exception() or task.result() for task in done]
    return [e for e in errors if e is not None] + ["no answer"] * len(pending)
