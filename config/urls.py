from django.conf import settings
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

if settings.BENCH_FLOORS:  # the benchmark's bare view; never on in production
    from rolls.bench.floors import urlpatterns as bench_floor_urls

    urlpatterns += bench_floor_urls
