"""The scene's test helpers: pictures made on the spot."""

import io

from PIL import Image as PillowImage


def picture_bytes(kind="PNG", size=(40, 30), colour=(200, 30, 30)):
    """An image's bytes, ``kind`` a Pillow format name."""
    out = io.BytesIO()
    PillowImage.new("RGB", size, colour).save(out, kind)
    return out.getvalue()
