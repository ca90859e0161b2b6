"""One client process of ``bench_drain``: room sockets held open until the server closes them,
run as ``python -m bench.drain_client`` (no Django), driven over its stdin and stdout, one JSON
object a line. A socket reads every frame as it comes (as a page does) and is not reopened.

In: ``{"sockets": [[url, cookie, origin], ...]}`` (the url with its query), then
``{"report": true}``. Out: ``{"opened": n, "seconds": s}`` once every socket is open, then on
``report`` {"codes": {close code: sockets}, "open": sockets still open} and exit.
"""

import asyncio
import time
from collections import Counter

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from .storm_client import PARALLEL, lines, raise_file_limit, say


async def hold(url, cookie, origin, opened):
    """Open the socket, read its frames until it closes: its close code (1006: none received)."""
    async with connect(
        url,
        origin=origin,
        additional_headers={"Cookie": cookie},
        open_timeout=60,
        close_timeout=10,
        max_size=2**24,
    ) as ws:
        opened.set()
        try:
            async for _ in ws:
                pass
        except ConnectionClosed:
            pass
        return ws.close_code or 1006


async def main():
    raise_file_limit()
    commands = lines()
    specs = (await anext(commands))["sockets"]
    started = time.monotonic()
    gate = asyncio.Semaphore(PARALLEL)
    tasks = []

    async def first_open(spec):
        async with gate:
            opened = asyncio.Event()
            task = asyncio.create_task(hold(*spec, opened))
            tasks.append(task)
            waiter = asyncio.create_task(opened.wait())
            await asyncio.wait([task, waiter], return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                waiter.cancel()
                task.result()  # its error

    await asyncio.gather(*(first_open(spec) for spec in specs))
    say({"opened": len(tasks), "seconds": round(time.monotonic() - started, 3)})
    async for command in commands:
        if "report" in command:
            still = [task for task in tasks if not task.done()]
            for task in still:
                task.cancel()
            codes = Counter()
            for task in tasks:
                if task.cancelled():
                    continue
                error = task.exception()
                codes[str(task.result() if error is None else type(error).__name__)] += 1
            say({"codes": dict(codes), "open": len(still)})
            return


if __name__ == "__main__":
    asyncio.run(main())
