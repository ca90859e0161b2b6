"""The scene's writes: keyword-only, one transaction each (the caller's ``core.writes.attempt``).
Each registers its own pushes with ``transaction.on_commit``."""

from core.images import image_read

from .models import Picture


def picture_add(*, campaign, upload):
    """A new picture of ``campaign`` from ``upload`` (an ``UploadedFile`` or bytes), read from its
    bytes by ``core.images.image_read``; ``Refused`` (nothing stored) when it is no image we
    accept."""
    image = image_read(upload)
    return Picture.objects.create(
        campaign=campaign,
        data=image.data,
        content_type=image.content_type,
        width=image.width,
        height=image.height,
        digest=image.digest,
    )
