from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("campaigns/<int:campaign_id>/", views.campaign_detail, name="campaign_detail"),
]
