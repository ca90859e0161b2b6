"""The scene's test helpers: pictures made on the spot; the rolls tests' fixtures
(tests/rolls/conftest.py)."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image as PillowImage

from scene import services
from tests.rolls.conftest import elsewhere  # noqa: F401 (a fixture, found by its name)


def picture_bytes(kind="PNG", size=(40, 30), colour=(200, 30, 30)):
    """An image's bytes, ``kind`` a Pillow format name."""
    out = io.BytesIO()
    PillowImage.new("RGB", size, colour).save(out, kind)
    return out.getvalue()


def upload(data, name="map.png", content_type="image/png"):
    return SimpleUploadedFile(name, data, content_type=content_type)


@pytest.fixture
def ford(pool_table):
    """A scene of the Pool table, not shown: a 400 x 300 map."""
    return services.scene_add(
        campaign=pool_table.campaign, name="The ford", upload=picture_bytes(size=(400, 300))
    )
