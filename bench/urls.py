"""The app's URLs and the HTTP floor's (``POST /bench/floor/<room>/``)."""

from config.urls import urlpatterns as app_urlpatterns

from .floors import urlpatterns as floor_urlpatterns

urlpatterns = app_urlpatterns + floor_urlpatterns
