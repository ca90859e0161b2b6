import secrets

from django.conf import settings
from django.db import models

from .systems import system_choices


def new_invite_token():
    return secrets.token_urlsafe(24)


class Campaign(models.Model):
    name = models.CharField(max_length=100)
    # A readable key (e.g. "fudge"): the registry refuses a longer one at start-up
    # (rolls.systems.register), where a longer key would be a 500 on PostgreSQL.
    system = models.CharField(max_length=20, choices=system_choices)
    created_at = models.DateTimeField(auto_now_add=True)
    invite_token = models.CharField(max_length=64, unique=True, default=new_invite_token)
    # The head of the roll log, apart from its entries (rolls.services.log_append writes it, under
    # this row's lock): the last entry's place (its number, and after it the whispers that have
    # no number of their own: ``rolls.models.LogEntry.sub``), the hash of the last entry, and the
    # game session new entries belong to (the open one).
    last_seq = models.PositiveBigIntegerField(default=0)
    last_sub = models.PositiveIntegerField(default=0)
    head_hash = models.CharField(max_length=64, default="0" * 64)
    log_session = models.ForeignKey(
        "GameSession", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self):
        return self.name

    def renew_invite(self):
        self.invite_token = new_invite_token()
        self.save(update_fields=["invite_token"])

    def member(self, user):
        """The user's Membership in this campaign, or None."""
        if not user.is_authenticated:
            return None
        return self.memberships.filter(user=user).first()

    def gm_id(self):
        """The GM's user id (one small query, unless ``campaign_for`` read it already)."""
        if not hasattr(self, "known_gm_id"):
            self.known_gm_id = (
                self.memberships.filter(role=Membership.GM)
                .values_list("user_id", flat=True)
                .first()
            )
        return self.known_gm_id


class Membership(models.Model):
    GM = "gm"
    PLAYER = "player"
    ROLES = [(GM, "GM"), (PLAYER, "Player")]

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=6, choices=ROLES, default=PLAYER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user"),
        ]

    def __str__(self):
        return f"{self.user} ({self.role}) in {self.campaign}"

    @property
    def is_gm(self):
        return self.role == self.GM


class GameSession(models.Model):
    """One evening of play; the roll log shows where sessions start and end."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="game_sessions")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="unique_session_number"),
        ]

    def __str__(self):
        return f"Session {self.number}"

    @property
    def is_open(self):
        return self.ended_at is None


class FormToken(models.Model):
    """A one-time token a form carries (``core.writes.OnceField``) so that a double submit
    writes once: the write stores its token in its own transaction, and a second submit of the
    same form finds it there and writes nothing (``core.writes.attempt``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    token = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "token"], name="one_use_per_form_token"),
        ]

    def __str__(self):
        return f"{self.user} · {self.token}"
