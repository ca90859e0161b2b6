"""A response that streams: ``streaming_response(request, chunks, content_type)``.

``chunks`` is a synchronous iterator of text (or bytes, sent as they are) whose every step may
read the database (an export's next batch of rows, say). Under ASGI (daphne) Django consumes a
synchronous iterator whole before sending its first byte; so there each step runs in the
request's thread through ``sync_to_async``, and is handed to the server before the next is read:
its first bytes leave as soon as they are ready. (Daphne does not wait for a slow client: what
the client has not taken yet waits in the server's buffer.) Under WSGI (the test client) the
iterator is the body as it is, which Django streams as is.

For a client that accepts gzip the chunks are compressed here, in the same thread, as Django's
``GZipMiddleware`` would (its random header bytes included); the middleware then leaves the
response alone, where it would compress an asynchronous body in the event loop that serves
every socket."""

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse
from django.middleware.gzip import GZipMiddleware, re_accepts_gzip
from django.utils.cache import patch_vary_headers
from django.utils.text import compress_sequence

_DONE = object()


def streaming_response(request, chunks, content_type):
    """A ``StreamingHttpResponse`` that reads, compresses when asked for, and sends ``chunks``
    one at a time."""
    response = StreamingHttpResponse(content_type=content_type)
    patch_vary_headers(response, ("Accept-Encoding",))
    body = (chunk if isinstance(chunk, bytes) else chunk.encode() for chunk in chunks)
    if re_accepts_gzip.search(request.headers.get("Accept-Encoding", "")):
        response["Content-Encoding"] = "gzip"
        body = compress_sequence(body, max_random_bytes=GZipMiddleware.max_random_bytes)
    response.streaming_content = streamed(request, body)
    return response


def streamed(request, chunks):
    """The body of a ``StreamingHttpResponse`` that reads and sends ``chunks`` one at a time."""
    if not isinstance(request, ASGIRequest):
        return chunks
    return _each_in_thread(iter(chunks))


async def _each_in_thread(iterator):
    step = sync_to_async(next, thread_sensitive=True)
    while (chunk := await step(iterator, _DONE)) is not _DONE:
        yield chunk
