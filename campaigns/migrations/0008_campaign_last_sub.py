from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0007_pool_settings_move_to_pool"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="last_sub",
            field=models.PositiveIntegerField(default=0),
        ),
    ]
