"""Campaign writes that touch several models, each in one transaction."""

from django.contrib.auth import get_user_model
from django.db import transaction

from core import push
from core.writes import Refused

from .models import Campaign, Membership
from .systems import SYSTEMS

#: What follows a Mana campaign's palette change in the apps above campaigns, which it does not
#: import (pyproject.toml's contracts): each is called in the write's transaction, in order, as
#: ``follow(campaign=..., renamed=[(old name, new name), ...])``, once its palette is saved.
#: The Mana system adds its own at ready() (its skills' and its characters' pools' colors
#: follow: ``rolls/systems/mana/apps.py``).
PALETTE_FOLLOWERS = []


def _given(**settings):
    """The settings that are not None."""
    return {key: value for key, value in settings.items() if value is not None}


@transaction.atomic(savepoint=False)
def campaign_create(
    *,
    user,
    name,
    system,
    palette=None,
    attribute_cost=None,
    skill_cost=None,
    hp_base=None,
    hp_per_endurance=None,
    **own,
):
    """A new campaign with ``user`` as its GM. Settings left at None keep the model defaults.

    ``own``: what else its system's create fields gave (e.g. Mana's ``skills``), for the
    system's ``campaign_fill(campaign, **own)`` to write."""
    if system not in SYSTEMS:
        raise Refused(f"Unknown system {system!r}.")
    settings = _given(
        palette=palette,
        attribute_cost=attribute_cost,
        skill_cost=skill_cost,
        hp_base=hp_base,
        hp_per_endurance=hp_per_endurance,
    )
    campaign = Campaign.objects.create(name=name, system=system, **settings)
    Membership.objects.create(campaign=campaign, user=user, role=Membership.GM)
    SYSTEMS[system].campaign_fill(campaign, **own)
    return campaign


@transaction.atomic(savepoint=False)
def campaign_palette_update(*, campaign, palette):
    """Set a Mana campaign's palette, keeping skills and character pools consistent.

    ``palette`` lists the new names position for position: ``palette[i]`` is the new name of
    the current ``campaign.palette[i]`` (a rename when it differs) and entries beyond the current
    length are added colors. Colors are never removed. What uses the colors follows
    (``PALETTE_FOLLOWERS``: the Mana system renames a renamed color in every skill and pool of
    the campaign, and gives every character a pool row (0/0) for each palette color it
    lacks). The caller validates names (see forms.renamed_palette): a new name must not be
    another current color."""
    old = list(campaign.palette)
    if len(palette) < len(old):
        raise Refused("Palette colors can be renamed or added, not removed.")
    renamed = [
        (before, after) for before, after in zip(old, palette, strict=False) if before != after
    ]
    campaign.palette = list(palette)
    campaign.save(update_fields=["palette"])
    for follow in PALETTE_FOLLOWERS:
        follow(campaign=campaign, renamed=renamed)


@transaction.atomic(savepoint=False)
def campaign_settings_update(
    *,
    campaign,
    name,
    palette=None,
    attribute_cost=None,
    skill_cost=None,
    hp_base=None,
    hp_per_endurance=None,
):
    """Rename the campaign and change its settings; a palette goes through
    ``campaign_palette_update``. Settings left at None are unchanged."""
    changed = _given(
        attribute_cost=attribute_cost,
        skill_cost=skill_cost,
        hp_base=hp_base,
        hp_per_endurance=hp_per_endurance,
    )
    for field, value in {"name": name, **changed}.items():
        setattr(campaign, field, value)
    campaign.save(update_fields=["name", *changed])
    if palette is not None:
        campaign_palette_update(campaign=campaign, palette=palette)
    return campaign


@transaction.atomic(savepoint=False)
def membership_join(*, campaign, user):
    """Make ``user`` a player of ``campaign``; a member (the GM too) stays as they are."""
    membership, _ = Membership.objects.get_or_create(
        campaign=campaign, user=user, defaults={"role": Membership.PLAYER}
    )
    return membership


def _user_named(username):
    """The user called ``username`` (case aside: names that differ only by case can't both
    exist, see ``names.check_username``), or None."""
    users = get_user_model().objects.filter(username__iexact=username)
    found = list(users[:2])
    exact = [user for user in found if user.username == username]
    if exact:
        return exact[0]
    return found[0] if len(found) == 1 else None


@transaction.atomic(savepoint=False)
def membership_add(*, campaign, username):
    """The GM adds an existing user by ``username`` as a player of ``campaign``. Refused for a
    blank or unknown name and for a member (the GM too)."""
    username = username.strip()
    if not username:
        raise Refused("Name the user to add.")
    user = _user_named(username)
    if user is None:
        raise Refused(f"There is no user called “{username}”.")
    if Membership.objects.filter(campaign=campaign, user=user).exists():
        raise Refused(f"{user.username} is already a member of {campaign.name}.")
    return Membership.objects.create(campaign=campaign, user=user, role=Membership.PLAYER)


@transaction.atomic(savepoint=False)
def membership_remove(*, membership):
    """Remove a player from their campaign. Their characters stay in the campaign (the GM still
    sees them); the user just loses access, and their open room sockets close. The GM can't be
    removed."""
    if membership.is_gm:
        raise Refused("The GM can't be removed from their campaign.")
    membership.delete()
    push.leave_on_commit(membership.user_id, membership.campaign_id)
