from django.contrib import admin
from django.urls import include, path

from campaigns.systems import SYSTEMS
from campaigns.views import logout, password_reset
from config.views import healthz


def system_urls():
    """Each registered system's URLs (its ``urls``, a module path; None: none), every view of
    them given ``system``, the system's key: the gate passed on to ``campaign_for`` (404 in a
    campaign of another system), declared here once."""
    return [
        path("", include(system.urls), {"system": system.key})
        for system in SYSTEMS.values()
        if system.urls
    ]


urlpatterns = [
    path("admin/", admin.site.urls),
    # The proxy's question before it sends a process requests (deploy/Caddyfile).
    path("healthz", healthz, name="healthz"),
    # Before Django's own: logging out also closes the user's room sockets.
    path("accounts/logout/", logout, name="logout"),
    # Before Django's own: a server without mail says so and to ask the host for a link.
    path("accounts/password_reset/", password_reset, name="password_reset"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("campaigns.urls")),
    path("", include("sheets.urls")),
    *system_urls(),
    path("", include("scene.urls")),  # maps, tokens, initiative, handouts (scene/urls.py)
    path("", include("sparetime.urls")),  # open in Pool campaigns only (sparetime/urls.py)
    path("", include("room.urls")),
    path("", include("insights.urls")),
]

handler400 = "config.views.bad_request"
handler500 = "config.views.server_error"
