"""Images a GM uploads (a scene's map, a token's picture, a handout's): what is accepted, read
from the bytes and never from the file's name or the browser's type.

Accepted: PNG, JPEG and WebP, at most ``MAX_BYTES`` long and ``MAX_PIXELS`` pixels (neither side
over ``MAX_SIDE``). Pillow reads the header only (``Image.open`` decodes no pixels), so an image
bomb (a small file declaring a huge picture) is refused by its declared size before anything is
decoded; the bytes are then checked whole (``verify``), still without decoding them into
pixels. Anything else is refused with a sentence (``Refused``) and nothing is kept: a renamed
executable, a GIF or SVG (an SVG can carry script), a truncated file. The bytes kept are the
ones uploaded: the server never re-encodes them.
"""

import hashlib
import io
import warnings
from dataclasses import dataclass

from PIL import Image as PillowImage
from PIL import UnidentifiedImageError

from core.writes import Refused

MAX_BYTES = 8 * 1024 * 1024
MAX_SIDE = 10_000
MAX_PIXELS = 40_000_000
#: Pillow's format names and the type each is served with.
TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
#: The first bytes of each accepted format: a file that does not start so is not read further.
MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"RIFF")


@dataclass(frozen=True)
class Image:
    data: bytes
    content_type: str
    width: int
    height: int
    #: The SHA-256 of the bytes, hex: the image's ETag, and a name that changes with it.
    digest: str


def _refuse_unreadable():
    raise Refused("That file is not a PNG, JPEG or WebP image.")


def image_read(upload):
    """The image in ``upload`` (a Django ``UploadedFile``, or bytes), or ``Refused``."""
    if isinstance(upload, bytes | bytearray):
        data = bytes(upload)
    else:
        if upload.size is not None and upload.size > MAX_BYTES:
            raise Refused(f"That image is too large: at most {MAX_BYTES // (1024 * 1024)} MB.")
        # One byte more than allowed tells a file over the limit without reading all of it.
        data = upload.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise Refused(f"That image is too large: at most {MAX_BYTES // (1024 * 1024)} MB.")
    if not data.startswith(MAGIC) or (data.startswith(b"RIFF") and data[8:12] != b"WEBP"):
        _refuse_unreadable()
    with warnings.catch_warnings():
        # Pillow warns (and above twice its own limit refuses) on a huge picture; ours is lower.
        warnings.simplefilter("ignore", PillowImage.DecompressionBombWarning)
        try:
            with PillowImage.open(io.BytesIO(data), formats=tuple(TYPES)) as picture:
                kind, (width, height) = picture.format, picture.size
                if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
                    raise Refused(
                        f"That image is too big: at most {MAX_SIDE:,} pixels a side and "
                        f"{MAX_PIXELS // 1_000_000} million pixels in all "
                        f"(it has {width:,} x {height:,})."
                    )
                picture.verify()
        except PillowImage.DecompressionBombError:
            # Pillow's own limit, far above ours, refused it while opening.
            raise Refused(
                f"That image is too big: at most {MAX_PIXELS // 1_000_000} million pixels."
            ) from None
        except UnidentifiedImageError:
            _refuse_unreadable()
        except (OSError, SyntaxError, ValueError, EOFError):
            # Pillow's verify raises these on a truncated or corrupt file.
            raise Refused("That image is damaged or incomplete.") from None
    if width < 1 or height < 1:
        _refuse_unreadable()
    digest = hashlib.sha256(data).hexdigest()
    return Image(data=data, content_type=TYPES[kind], width=width, height=height, digest=digest)
