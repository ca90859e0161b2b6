"""The scene's test helpers: pictures made on the spot; the rolls tests' fixtures
(tests/rolls/conftest.py)."""

import io

from PIL import Image as PillowImage

from tests.rolls.conftest import elsewhere  # noqa: F401 (a fixture, found by its name)


def picture_bytes(kind="PNG", size=(40, 30), colour=(200, 30, 30)):
    """An image's bytes, ``kind`` a Pillow format name."""
    out = io.BytesIO()
    PillowImage.new("RGB", size, colour).save(out, kind)
    return out.getvalue()
