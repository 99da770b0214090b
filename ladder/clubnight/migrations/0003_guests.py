from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("clubnight", "0002_courts"),
    ]

    operations = [
        migrations.AddField(
            model_name="clubnight",
            name="guests",
            field=models.JSONField(
                blank=True, default=list, help_text='Players who are not members: {"id", "name"}.'
            ),
        ),
    ]
