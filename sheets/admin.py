from django.contrib import admin

from .models import Character


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "campaign", "created_at"]
    list_select_related = ["owner", "campaign"]
    search_fields = ["name", "owner__username", "campaign__name"]
    autocomplete_fields = ["owner", "campaign"]
