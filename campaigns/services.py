"""Campaign writes that touch several models, each in one transaction."""

from django.contrib.auth import get_user_model
from django.db import transaction

from core import push
from core.text import isolated
from core.writes import Refused

from .models import Campaign, Membership
from .systems import SYSTEMS, system_of


@transaction.atomic(savepoint=False)
def campaign_create(
    *,
    user,
    name,
    system,
    **own,
):
    """A new campaign with ``user`` as its GM.

    ``own``: what its system's create fields gave (e.g. Mana's ``palette`` and ``skills``,
    Pool's costs and hit points), for the system's ``campaign_fill(campaign, **own)`` to write
    (a setting not given keeps its default)."""
    if system not in SYSTEMS:
        raise Refused(f"Unknown system {system!r}.")
    campaign = Campaign.objects.create(name=name, system=system)
    Membership.objects.create(campaign=campaign, user=user, role=Membership.GM)
    SYSTEMS[system].campaign_fill(campaign, **own)
    return campaign


@transaction.atomic(savepoint=False)
def campaign_settings_update(
    *,
    campaign,
    name,
    **own,
):
    """Rename the campaign and change its settings: ``own``, its system's (e.g. Mana's
    ``palette``, Pool's costs and hit points), for the system's ``settings_update(campaign,
    **own)`` to write."""
    campaign.name = name
    campaign.save(update_fields=["name"])
    system_of(campaign).settings_update(campaign, **own)
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
        raise Refused(f"There is no user called “{isolated(username)}”.")
    if Membership.objects.filter(campaign=campaign, user=user).exists():
        raise Refused(
            f"{isolated(user.username)} is already a member of {isolated(campaign.name)}."
        )
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
