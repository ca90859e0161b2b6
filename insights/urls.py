from django.urls import path

from . import views

CAMPAIGN = "campaigns/<id:campaign_id>/"

urlpatterns = [
    path("rules/odds/", views.odds_calculator, name="odds_calculator"),
    path("accounts/data.json", views.my_data, name="my_data"),
    path(CAMPAIGN + "luck/", views.campaign_luck, name="campaign_luck"),
    path(CAMPAIGN + "tuning/", views.campaign_tuning, name="tuning"),
    path(CAMPAIGN + "sessions/<id:number>/", views.session_summary, name="session_summary"),
    path(CAMPAIGN + "log.csv", views.campaign_log_csv, name="log_csv"),
    path(CAMPAIGN + "log.json", views.campaign_log_json, name="log_json"),
]
