from django.apps import AppConfig


class SparetimeConfig(AppConfig):
    name = "sparetime"
