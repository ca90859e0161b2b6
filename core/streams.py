"""A response body that streams: ``streamed(request, chunks)``.

``chunks`` is a synchronous iterator whose every step may read the database (an export's next
batch of rows, say). Under ASGI (daphne) Django consumes a synchronous iterator whole before
sending its first byte; so there each step runs in the request's thread through
``sync_to_async`` and is sent before the next is read: the response holds one chunk at a time,
and its first bytes leave as soon as they are ready. Under WSGI (the test client) the iterator
is the body as it is, which Django streams as is."""

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest

_DONE = object()


def streamed(request, chunks):
    """The body of a ``StreamingHttpResponse`` that reads and sends ``chunks`` one at a time."""
    if not isinstance(request, ASGIRequest):
        return chunks
    return _each_in_thread(iter(chunks))


async def _each_in_thread(iterator):
    step = sync_to_async(next, thread_sensitive=True)
    while (chunk := await step(iterator, _DONE)) is not _DONE:
        yield chunk
