from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from . import links
from .accounts import LINK_DAYS, reset_path
from .models import Campaign, GameSession, Membership
from .services import campaigns_to_hand_over

User = get_user_model()


# Django's user admin, with one more action: the host hands a forgotten password's link over
# themselves (the server may send no mail), as ``manage.py reset_link`` does.
admin.site.unregister(User)


@admin.register(User)
class RollroomUserAdmin(UserAdmin):
    actions = ["make_reset_links"]

    def get_deleted_objects(self, objs, request):
        """A user who is the GM of a campaign with other members is kept, as on their own
        account page (``services.account_delete``): the admin's deletion would leave that
        campaign without a GM. The admin lists each such campaign as what protects the user."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        for user in objs:
            for campaign in campaigns_to_hand_over(user):
                protected.append(
                    f"{campaign.name}: {user.get_username()} is its GM; "
                    "they hand it to another member first (its GM panel)"
                )
        return deleted, counts, perms_needed, protected

    @admin.action(description="Make a one-time password reset link")
    def make_reset_links(self, request, queryset):
        for user in queryset.order_by(User.USERNAME_FIELD):
            if not user.is_active:
                self.message_user(
                    request,
                    f"{user.get_username()} is not active: no link (make them active first).",
                    messages.WARNING,
                )
                continue
            link = links.absolute(request, reset_path(user))
            self.message_user(
                request,
                f"A link for {user.get_username()} to choose a new password, to hand over "
                f"yourself; it works once, within {LINK_DAYS} days: {link}",
                messages.SUCCESS,
            )


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
