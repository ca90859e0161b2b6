from django.contrib import admin

from campaigns.models import Campaign
from sheets.models import Character

from ..admin import OwnRowInline, inline_on
from .models import ManaPool, ManaSettings, ManaSheet, ManaSkill


class ManaSettingsInline(OwnRowInline):
    """A Mana campaign's palette, on its campaign's page (where the column was)."""

    model = ManaSettings


class ManaSheetInline(OwnRowInline):
    """A Mana character's traits, on its character's page (where the column was)."""

    model = ManaSheet


class ManaPoolInline(admin.TabularInline):
    model = ManaPool
    extra = 0


# The campaign's admin with its Mana settings below; the character's with its traits and mana
# pools below (another system's ratings among its own).
inline_on(Campaign, ManaSettingsInline)
inline_on(Character, ManaSheetInline, ManaPoolInline)


@admin.register(ManaSkill)
class ManaSkillAdmin(admin.ModelAdmin):
    list_display = ["name", "color_a", "color_b", "trait", "campaign"]
    list_select_related = ["campaign"]
    search_fields = ["name", "campaign__name"]
    autocomplete_fields = ["campaign"]


@admin.register(ManaPool)
class ManaPoolAdmin(admin.ModelAdmin):
    list_display = ["character", "color", "current", "maximum"]
    list_select_related = ["character"]
    search_fields = ["color", "character__name"]
    autocomplete_fields = ["character"]
