from django.contrib import admin

from campaigns.models import Campaign
from sheets.models import Character

from ..admin import OwnRowInline, inline_on
from .models import PoolSettings, PoolSheet, Rating


class PoolSettingsInline(OwnRowInline):
    """A Pool campaign's settings, on its campaign's page (where the columns were)."""

    model = PoolSettings


class PoolSheetInline(OwnRowInline):
    """A Pool character's current HP, on its character's page (where the column was)."""

    model = PoolSheet


class RatingInline(admin.TabularInline):
    model = Rating
    extra = 0


# The campaign's admin with its Pool settings below; the character's with its ratings and HP.
inline_on(Campaign, PoolSettingsInline)
inline_on(Character, RatingInline, PoolSheetInline)


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["label", "attribute", "value", "status", "custom", "character"]
    list_filter = ["status", "attribute", "custom"]
    list_select_related = ["character"]
    search_fields = ["skill", "character__name"]
    autocomplete_fields = ["character"]
