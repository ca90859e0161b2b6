from django.apps import AppConfig


class BenchConfig(AppConfig):
    """The tools that drive the whole site from above every app: the roll benchmark
    (``manage.py bench_rolls``) and the demo table (``manage.py seed_demo``)."""

    name = "bench"
