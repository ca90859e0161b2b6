"""The scene's tables. A picture's bytes live in the database (``Picture``), not on a disk:
every daphne process of the scale-out setup serves them alike with no shared disk, and a
backup, a restore and ``move_to`` carry them with the rest of the table (docs/scaling.md)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from campaigns.models import Campaign
from sheets.models import Character


class Picture(models.Model):
    """An image the GM uploaded, as uploaded (``core.images.image_read`` accepted it): a
    scene's map, a token's picture, a handout's. Served to the campaign's members only."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="pictures")
    data = models.BinaryField()
    content_type = models.CharField(max_length=20)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    #: SHA-256 of the bytes, hex: the ETag, and part of the picture's address (so a page may
    #: cache it for good: new bytes, new address).
    digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.content_type} {self.width}x{self.height}"

    def get_absolute_url(self):
        """Its address, which names its digest: new bytes, a new address (the page may cache
        the old one for good)."""
        return reverse("scene_picture", args=[self.campaign_id, self.pk, self.digest])


def picture_url(picture):
    """``picture``'s address (``Picture.get_absolute_url``), "" for no picture."""
    return picture.get_absolute_url() if picture is not None else ""


class Scene(models.Model):
    """A map the GM keeps; at most one of a campaign's scenes is shown at a time. The grid is
    square: ``grid`` pixels of the map a side (0: no grid), its lines offset by ``grid_x`` and
    ``grid_y`` pixels; with ``snap``, a token dropped lands in the middle of a square."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="scenes")
    name = models.CharField(max_length=80)
    picture = models.ForeignKey(Picture, on_delete=models.PROTECT, related_name="+")
    grid = models.PositiveSmallIntegerField(default=50)
    grid_x = models.SmallIntegerField(default=0)
    grid_y = models.SmallIntegerField(default=0)
    snap = models.BooleanField(default=True)
    shown = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign"], condition=Q(shown=True), name="one_scene_shown"
            )
        ]

    def __str__(self):
        return self.name


class Token(models.Model):
    """A token on a scene: a character's (its player may move it) or the GM's own (an NPC, a
    marker). ``gm_only``: on the GM's layer, never sent to a player. ``x`` and ``y``: its
    centre, in the map's pixels. ``moves``: how many times it moved, the server's order of its
    moves (a push carrying fewer than the page has seen is stale and dropped)."""

    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="tokens")
    name = models.CharField(max_length=40)
    colour = models.CharField(max_length=7, default="#b03a2e")
    character = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    picture = models.ForeignKey(
        Picture, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    gm_only = models.BooleanField(default=False)
    x = models.IntegerField(default=0)
    y = models.IntegerField(default=0)
    moves = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return self.name


class Initiative(models.Model):
    """A campaign's turn order while one runs (no row: none). ``turn``: the index, in the
    order, of whose turn it is; ``round`` counts from 1."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="initiative")
    round = models.PositiveIntegerField(default=1)
    turn = models.PositiveIntegerField(default=0)
    started = models.BooleanField(default=False)

    def __str__(self):
        return f"round {self.round}"


class Combatant(models.Model):
    """One place in the turn order: a character (a player's or an NPC) or a name the GM typed;
    ``score`` sorts the order (highest first), ``place`` keeps it as the GM left it."""

    initiative = models.ForeignKey(Initiative, on_delete=models.CASCADE, related_name="combatants")
    name = models.CharField(max_length=40)
    character = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    score = models.IntegerField(default=0)
    place = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["place", "id"]

    def __str__(self):
        return self.name


class Handout(models.Model):
    """A text (and optionally a picture) the GM shares: with everyone (``everyone``) or with
    the members in ``recipients``; never sent to anyone else."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="handouts")
    title = models.CharField(max_length=100)
    text = models.TextField(blank=True)
    picture = models.ForeignKey(
        Picture, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    everyone = models.BooleanField(default=True)
    recipients = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return self.title
