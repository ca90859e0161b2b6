"""The scene's pages, which ``config/urls.py`` includes."""

urlpatterns = []
