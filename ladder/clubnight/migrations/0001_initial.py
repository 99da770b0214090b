"""ClubNight: moved here from the ``ladder`` app (issue 14). Their tables keep
their names and data; only Django's record of where the models live changes."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from ladder.migrations._moves import rename_content_types



class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('ladder', '0011_ladder_description_limit'),
        ('clubs', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        rename_content_types("clubnight", ["clubnight"]),
        migrations.SeparateDatabaseAndState(
            # The tables stay as they are (the models keep their db_table): state only.
            state_operations=[
                migrations.CreateModel(
                name='ClubNight',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('date', models.DateField()),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('present', models.JSONField(blank=True, default=list, help_text='Usernames.')),
                    ('rounds', models.JSONField(blank=True, default=list)),
                    ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('ladder', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='club_nights', to='clubs.ladder')),
                ],
                options={
                    'db_table': 'ladder_clubnight',
                    'ordering': ['-date'],
                    'constraints': [models.UniqueConstraint(fields=('ladder', 'date'), name='clubnight_one_per_ladder_day')],
                },
            ),
            ],
        ),
    ]
