from django.contrib import admin

from sheets.admin import CharacterAdmin
from sheets.models import Character

from .models import ManaPool, ManaSkill


@admin.register(ManaSkill)
class ManaSkillAdmin(admin.ModelAdmin):
    list_display = ["name", "color_a", "color_b", "trait", "campaign"]
    list_select_related = ["campaign"]
    search_fields = ["name", "campaign__name"]
    autocomplete_fields = ["campaign"]


class ManaPoolInline(admin.TabularInline):
    model = ManaPool
    extra = 0


class ManaCharacterAdmin(CharacterAdmin):
    """The character's admin with its mana pools below its ratings."""

    inlines = [*CharacterAdmin.inlines, ManaPoolInline]


admin.site.unregister(Character)
admin.site.register(Character, ManaCharacterAdmin)


@admin.register(ManaPool)
class ManaPoolAdmin(admin.ModelAdmin):
    list_display = ["character", "color", "current", "maximum"]
    list_select_related = ["character"]
    search_fields = ["color", "character__name"]
    autocomplete_fields = ["character"]
