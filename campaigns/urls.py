from django.urls import path

from . import views

GM = "campaigns/<id:campaign_id>/gm/"

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules, name="rules"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/delete/", views.account_delete, name="account_delete"),
    path("campaigns/new/", views.campaign_create, name="campaign_create"),
    path("join/<str:token>/", views.campaign_join, name="campaign_join"),
    path(GM, views.gm_panel, name="gm_panel"),
    path(GM + "settings/", views.campaign_settings, name="campaign_settings"),
    path(GM + "invite/renew/", views.invite_renew, name="invite_renew"),
    path(GM + "members/add/", views.member_add, name="member_add"),
    path(GM + "members/<id:user_id>/remove/", views.member_remove, name="member_remove"),
    path(GM + "hand-over/", views.campaign_hand_over, name="campaign_hand_over"),
    path(GM + "delete/", views.campaign_delete, name="campaign_delete"),
]
