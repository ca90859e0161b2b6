from django.contrib import admin

from campaigns.models import Campaign
from sheets.models import Character

from .models import PoolSettings, PoolSheet, Rating


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


class RatingInline(admin.TabularInline):
    model = Rating
    extra = 0


class PoolCharacterAdmin(_CharacterAdmin):
    """The character's admin (as registered: another system may have added its own) with its
    ratings and HP below."""

    inlines = [*_CharacterAdmin.inlines, RatingInline, PoolSheetInline]


admin.site.unregister(Character)
admin.site.register(Character, PoolCharacterAdmin)


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["label", "attribute", "value", "status", "custom", "character"]
    list_filter = ["status", "attribute", "custom"]
    list_select_related = ["character"]
    search_fields = ["skill", "character__name"]
    autocomplete_fields = ["character"]
