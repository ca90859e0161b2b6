"""Database work of a process's sockets, gathered into shared trips to Channels' database thread.

Every ``database_sync_to_async`` call is a trip to the one thread where a process's sockets do
their database work: a hand-over to that thread and back to the event loop, and a database
connection taken (and given back, CONN_MAX_AGE 0: a new SQLite connection, or one from
PostgreSQL's pool with its health check) for the few statements of that call alone. When many
sockets connect at once (a restarted process whose pages all come back) each waits its turn
for the thread anyway, and each paid for a trip of its own. ``run`` queues a piece of work and
waits for its result; a task takes all the pieces queued meanwhile and runs them in one trip,
one after the other in the order they came, each in autocommit as it would have run alone, each
with its own result or exception. One piece alone goes at once; the pieces only share a trip
while the thread is busy with the one before.

A piece runs after the ``run`` that queued it began: what a socket did before (joined a group)
is done when its piece reads.
"""

import asyncio

from channels.db import database_sync_to_async


class Trips:
    def __init__(self):
        self.queue = []
        self.task = None

    async def run(self, function, *args):
        """``function(*args)``, run in the database thread in a trip shared with the pieces
        queued beside it; its result, or its exception raised here."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            # Pieces of another loop (closed: a test's) are nobody's now.
            self.queue = [piece for piece in self.queue if piece[2].get_loop() is loop]
            self.task = loop.create_task(self.drain())
        self.queue.append((function, args, future))
        return await future

    async def drain(self):
        while self.queue:
            pieces, self.queue = self.queue, []
            try:
                outcomes = await database_sync_to_async(run_each)(pieces)
            except BaseException as error:  # the trip itself failed, or the loop is closing
                outcomes = [(False, error)] * len(pieces)
                if isinstance(error, asyncio.CancelledError):
                    for _, _, future in pieces:
                        future.cancel()
                    raise
            for (_, _, future), (ok, value) in zip(pieces, outcomes, strict=True):
                if future.done():
                    continue  # its socket was cancelled meanwhile
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)


def run_each(pieces):
    """[(True, result) or (False, exception)] of each piece, in order."""
    outcomes = []
    for function, args, future in pieces:
        if future.cancelled():
            # Its socket's connect was cancelled before the trip began: nothing waits for it.
            outcomes.append((False, asyncio.CancelledError()))
            continue
        try:
            outcomes.append((True, function(*args)))
        except Exception as error:
            outcomes.append((False, error))
    return outcomes


#: The process's trips (one per process, as the presence heartbeat).
trips = Trips()
