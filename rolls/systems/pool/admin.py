from django.contrib import admin

from campaigns.models import Campaign
from sheets.models import Character

from .models import PoolSettings, PoolSheet


class PoolSettingsInline(admin.StackedInline):
    """A Pool campaign's settings, on its campaign's page (where the columns were)."""

    model = PoolSettings
    max_num = 1
    can_delete = False


_CampaignAdmin = type(admin.site.get_model_admin(Campaign))


class PoolCampaignAdmin(_CampaignAdmin):
    """The campaign's admin (as registered: another system may have added its own) with its
    Pool settings below."""

    inlines = [*_CampaignAdmin.inlines, PoolSettingsInline]


admin.site.unregister(Campaign)
admin.site.register(Campaign, PoolCampaignAdmin)


class PoolSheetInline(admin.StackedInline):
    """A Pool character's current HP, on its character's page (where the column was)."""

    model = PoolSheet
    max_num = 1
    can_delete = False


_CharacterAdmin = type(admin.site.get_model_admin(Character))


class PoolCharacterAdmin(_CharacterAdmin):
    """The character's admin (as registered: another system may have added its own) with its
    HP below."""

    inlines = [*_CharacterAdmin.inlines, PoolSheetInline]


admin.site.unregister(Character)
admin.site.register(Character, PoolCharacterAdmin)
