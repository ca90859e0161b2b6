from django.contrib import admin

from campaigns.models import Campaign
from sheets.models import Character

from .models import ManaPool, ManaSettings, ManaSheet, ManaSkill


class ManaSettingsInline(admin.StackedInline):
    """A Mana campaign's palette, on its campaign's page (where the column was)."""

    model = ManaSettings
    max_num = 1
    can_delete = False


_CampaignAdmin = type(admin.site.get_model_admin(Campaign))


class ManaCampaignAdmin(_CampaignAdmin):
    """The campaign's admin (as registered: another system may have added its own) with its
    Mana settings below."""

    inlines = [*_CampaignAdmin.inlines, ManaSettingsInline]


admin.site.unregister(Campaign)
admin.site.register(Campaign, ManaCampaignAdmin)


@admin.register(ManaSkill)
class ManaSkillAdmin(admin.ModelAdmin):
    list_display = ["name", "color_a", "color_b", "trait", "campaign"]
    list_select_related = ["campaign"]
    search_fields = ["name", "campaign__name"]
    autocomplete_fields = ["campaign"]


class ManaPoolInline(admin.TabularInline):
    model = ManaPool
    extra = 0


class ManaSheetInline(admin.StackedInline):
    """A Mana character's traits, on its character's page (where the column was)."""

    model = ManaSheet
    max_num = 1
    can_delete = False


_CharacterAdmin = type(admin.site.get_model_admin(Character))


class ManaCharacterAdmin(_CharacterAdmin):
    """The character's admin (as registered: another system may have added its own) with its
    traits and mana pools below its ratings."""

    inlines = [*_CharacterAdmin.inlines, ManaSheetInline, ManaPoolInline]


admin.site.unregister(Character)
admin.site.register(Character, ManaCharacterAdmin)


@admin.register(ManaPool)
class ManaPoolAdmin(admin.ModelAdmin):
    list_display = ["character", "color", "current", "maximum"]
    list_select_related = ["character"]
    search_fields = ["color", "character__name"]
    autocomplete_fields = ["character"]
