"""The raw floor: a plain ``websockets`` server that broadcasts what one client of a room sends
to every socket of that room (path ``/<room>``). No Django, no Channels.

Run as ``python -m bench.wsfloor PORT``; it serves until it is terminated.
"""

import asyncio
import signal
import sys
from collections import defaultdict

from websockets.asyncio.server import broadcast, serve

rooms = defaultdict(set)


async def handler(websocket):
    room = rooms[websocket.request.path]
    room.add(websocket)
    try:
        async for message in websocket:
            broadcast(room, message)
    finally:
        room.discard(websocket)


async def main(port):
    stop = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
    # No compression: daphne does not offer it either.
    async with serve(handler, "127.0.0.1", port, compression=None, max_size=None):
        await stop


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
