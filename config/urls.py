from django.contrib import admin
from django.urls import include, path

from campaigns.views import logout

urlpatterns = [
    path("admin/", admin.site.urls),
    # Before Django's own: logging out also closes the user's room sockets.
    path("accounts/logout/", logout, name="logout"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("campaigns.urls")),
    path("", include("sheets.urls")),
    path("", include("sparetime.urls")),
    path("", include("rolls.urls")),
    path("", include("insights.urls")),
]

handler400 = "config.views.bad_request"
handler500 = "config.views.server_error"
