"""core.images: what an upload must be, read from its bytes."""

import io
import struct
import zlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image as PillowImage

from core import images
from core.writes import Refused


def picture(kind="PNG", size=(40, 30)):
    out = io.BytesIO()
    PillowImage.new("RGB", size, (200, 30, 30)).save(out, kind)
    return out.getvalue()


def png_declaring(width, height):
    """A small PNG whose header declares ``width`` x ``height`` (an image bomb's shape)."""

    def chunk(tag, body):
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\0" * 64)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    "kind,content_type", [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp")]
)
def test_the_three_formats_are_read_with_their_size(kind, content_type):
    data = picture(kind)
    upload = SimpleUploadedFile("anything.bin", data, content_type="application/octet-stream")
    image = images.image_read(upload)
    assert (image.content_type, image.width, image.height) == (content_type, 40, 30)
    assert image.data == data
    assert len(image.digest) == 64


def test_the_name_and_the_browsers_type_count_for_nothing():
    # A renamed executable, said to be a PNG.
    upload = SimpleUploadedFile("map.png", b"MZ\x90\x00" + b"\0" * 200, content_type="image/png")
    with pytest.raises(Refused, match="not a PNG, JPEG or WebP"):
        images.image_read(upload)


@pytest.mark.parametrize("kind", ["GIF", "BMP", "TIFF"])
def test_other_images_are_refused(kind):
    with pytest.raises(Refused, match="not a PNG, JPEG or WebP"):
        images.image_read(picture(kind))


def test_an_svg_is_refused():
    with pytest.raises(Refused, match="not a PNG, JPEG or WebP"):
        images.image_read(b'<svg xmlns="http://www.w3.org/2000/svg"><script>1</script></svg>')


def test_a_riff_that_is_not_webp_is_refused():
    with pytest.raises(Refused, match="not a PNG, JPEG or WebP"):
        images.image_read(b"RIFF\x10\x00\x00\x00WAVEfmt " + b"\0" * 32)


@pytest.mark.parametrize(
    "width,height", [(50_000, 50_000), (images.MAX_SIDE + 1, 10), (7_000, 7_000)]
)
def test_an_image_bomb_is_refused_by_its_declared_size(width, height):
    with pytest.raises(Refused, match="too big"):
        images.image_read(png_declaring(width, height))


def test_the_largest_allowed_side_is_read():
    image = images.image_read(png_declaring(images.MAX_SIDE, 1))
    assert (image.width, image.height) == (images.MAX_SIDE, 1)


def test_a_huge_file_is_refused_without_reading_it_whole():
    data = picture() + b"\0" * images.MAX_BYTES
    upload = SimpleUploadedFile("map.png", data, content_type="image/png")
    with pytest.raises(Refused, match="too large"):
        images.image_read(upload)
    # Bytes given directly are held to the same limit.
    with pytest.raises(Refused, match="too large"):
        images.image_read(data)


def test_a_truncated_image_is_refused():
    data = picture("PNG", (300, 300))
    with pytest.raises(Refused):
        images.image_read(data[: len(data) // 2])


def test_empty_is_refused():
    with pytest.raises(Refused):
        images.image_read(b"")
