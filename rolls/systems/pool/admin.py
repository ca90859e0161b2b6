from django.contrib import admin

from campaigns.models import Campaign

from .models import PoolSettings


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
