from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("campaigns.urls")),
    path("", include("sheets.urls")),
    path("", include("sparetime.urls")),
    path("", include("rolls.urls")),
]

handler400 = "config.views.bad_request"
