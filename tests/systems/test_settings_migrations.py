"""The systems' campaign settings moved from columns of ``campaigns.Campaign`` to the systems'
own models: Mana's palette to ``ManaSettings`` (mana 0002). A database migrated from before the
move keeps every campaign's settings, read through the new place; migrated back, the columns
hold them again, those written after the move too."""

import pytest
from django.contrib.auth import get_user_model

from campaigns.models import Campaign
from campaigns.services import campaign_create
from rolls.systems.mana.models import DEFAULT_PALETTE, ManaSettings, palette_of
from tests.systems.test_mana_migrations import migrate

#: Before the move: the settings columns of the campaign.
BEFORE = [("campaigns", "0005_manaskill_moves_to_mana"), ("mana", "0001_initial")]
#: After it: every app of ours at its latest.
AFTER = ["mana", "campaigns", "sheets", "rolls"]


@pytest.mark.django_db(transaction=True)
def test_palettes_written_before_the_move_are_manas_after_it_and_back():
    old = migrate(BEFORE)
    try:
        OldCampaign = old.get_model("campaigns", "Campaign")
        harbor = OldCampaign.objects.create(name="Harbor", system="mana", palette=["sun", "moon"])
        plain = OldCampaign.objects.create(name="Plain", system="mana")
        marches = OldCampaign.objects.create(name="Marches", system="pool")
    finally:
        migrate(AFTER)

    assert palette_of(Campaign.objects.get(pk=harbor.pk)) == ["sun", "moon"]
    assert palette_of(Campaign.objects.get(pk=plain.pk)) == DEFAULT_PALETTE
    assert set(ManaSettings.objects.values_list("campaign_id", flat=True)) == {harbor.pk, plain.pk}
    assert Campaign.objects.filter(pk=marches.pk).exists()

    gm = get_user_model().objects.create(username="gm")
    tide = campaign_create(user=gm, name="Tide", system="mana", palette=["salt", "foam"])
    old = migrate(BEFORE)
    try:
        palettes = dict(old.get_model("campaigns", "Campaign").objects.values_list("id", "palette"))
        assert palettes == {
            harbor.pk: ["sun", "moon"],
            plain.pk: DEFAULT_PALETTE,
            marches.pk: DEFAULT_PALETTE,
            tide.pk: ["salt", "foam"],
        }
    finally:
        migrate(AFTER)
