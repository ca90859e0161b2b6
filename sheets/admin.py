from django.contrib import admin

from .models import Character, Rating


class RatingInline(admin.TabularInline):
    model = Rating
    extra = 0


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "campaign", "created_at"]
    list_select_related = ["owner", "campaign"]
    search_fields = ["name", "owner__username", "campaign__name"]
    autocomplete_fields = ["owner", "campaign"]
    inlines = [RatingInline]


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["label", "attribute", "value", "status", "custom", "character"]
    list_filter = ["status", "attribute", "custom"]
    list_select_related = ["character"]
    search_fields = ["skill", "character__name"]
    autocomplete_fields = ["character"]
