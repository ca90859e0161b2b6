from django.contrib import admin

from .models import SparetimeEntry


@admin.register(SparetimeEntry)
class SparetimeEntryAdmin(admin.ModelAdmin):
    """The ledger is append-only: the admin may look, never add, change or delete."""

    list_display = ["created_at", "campaign", "kind", "amount", "character", "player", "created_by"]
    list_filter = ["kind"]
    list_select_related = ["campaign", "character", "player", "created_by"]
    search_fields = ["character__name", "player__username", "note"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
