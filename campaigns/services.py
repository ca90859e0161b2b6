"""Campaign writes that touch several models, each in one transaction."""

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef

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


def campaigns_to_hand_over(user):
    """The campaigns ``user`` is the GM of with other members: theirs to hand over (or delete)
    before they may delete their account."""
    others = Membership.objects.filter(campaign=OuterRef("campaign")).exclude(user=OuterRef("user"))
    gm_of = Membership.objects.filter(user=user, role=Membership.GM).filter(Exists(others))
    return [membership.campaign for membership in gm_of.select_related("campaign")]


@transaction.atomic(savepoint=False)
def campaign_hand_over(*, campaign, to):
    """The GM hands ``campaign`` to ``to``, one of its players, and stays as a player. The GM's
    own characters (the NPCs) go with the role to the new GM, whose own characters become
    NPCs in turn (the table no longer sees them: ``Character.objects.visible_to``). Both of
    their room sockets close (a page of the room is the GM's or a player's), and their pages load
    again as what they are now. Refused for anyone but a player of the campaign."""
    gm = Membership.objects.select_for_update().filter(campaign=campaign, role=Membership.GM)
    old = gm.first()
    new = Membership.objects.filter(campaign=campaign, user_id=getattr(to, "pk", None)).first()
    if new is None or new.is_gm:
        raise Refused("Choose a player of this campaign to hand it to.")
    from_id = old.user_id
    Membership.objects.filter(pk=old.pk).update(role=Membership.PLAYER)
    Membership.objects.filter(pk=new.pk).update(role=Membership.GM)
    swapped = list(campaign.characters.filter(owner_id__in=(from_id, new.user_id)))
    campaign.characters.filter(owner_id=from_id).update(owner_id=new.user_id)
    campaign.known_gm_id = new.user_id
    for user_id in (from_id, new.user_id):
        push.leave_on_commit(user_id, campaign.pk, recast=True)
    # The other players' open pages: the party shows the new GM's characters as NPCs now.
    push.push_facts(campaign, swapped)
    return new


@transaction.atomic(savepoint=False)
def campaign_delete(*, campaign):
    """Delete ``campaign`` and everything of it: its members, characters, checks, ledgers and
    log (its export is the GM's to take first). Every member's room socket in it closes."""
    members = list(campaign.memberships.values_list("user_id", flat=True))
    campaign_id = campaign.pk
    Campaign.objects.filter(pk=campaign_id).delete()
    for user_id in members:
        push.leave_on_commit(user_id, campaign_id)


@transaction.atomic(savepoint=False)
def account_delete(*, user, password):
    """Delete ``user``'s account, once ``password`` is theirs. What they wrote at the table
    stays: their log entries (signed with their id, which the log keeps: ``rolls.models.
    LogEntry``), their characters (in their campaigns, a former member's: the GM may hand them
    to a player), the checks they asked for and the sparetime ledger's rows. A campaign they GM
    alone goes with them (``campaign_delete``). Refused for a wrong password, and while they GM
    a campaign with other members: they hand it over first (``campaign_hand_over``). Every room
    socket of theirs closes; the party of each campaign they played in shows their
    characters as a former member's."""
    if not user.check_password(password):
        raise Refused("That is not your password: nothing was deleted.")
    blocking = campaigns_to_hand_over(user)
    if blocking:
        names = ", ".join(isolated(campaign.name) for campaign in blocking)
        raise Refused(f"You are the GM of {names}: hand it to another member, or delete it, first.")
    # Their sockets close first (read now: delete() forgets the id), then the tables hear.
    push.leave_on_commit(user.pk)
    for membership in user.memberships.select_related("campaign"):
        if membership.is_gm:
            campaign_delete(campaign=membership.campaign)
        else:
            push.push_facts(
                membership.campaign, list(user.characters.filter(campaign=membership.campaign))
            )
    user.delete()
