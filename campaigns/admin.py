from django.contrib import admin

from .models import Campaign, GameSession, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "created_at"]
    list_filter = ["system"]
    search_fields = ["name"]
    readonly_fields = ["created_at", "last_seq", "last_sub", "head_hash", "log_session"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "campaign", "role", "joined_at"]
    list_filter = ["role"]
    list_select_related = ["user", "campaign"]
    search_fields = ["user__username", "campaign__name"]
    autocomplete_fields = ["user", "campaign"]


@admin.register(GameSession)
class GameSessionAdmin(admin.ModelAdmin):
    list_display = ["campaign", "number", "started_at", "ended_at"]
    list_select_related = ["campaign"]
    search_fields = ["campaign__name"]
    autocomplete_fields = ["campaign"]
