"""The ladders and matches that ratings refer to moved to the clubs and matches apps (issue 14):
the same tables, so the foreign keys change in Django's state only."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('clubs', '0001_initial'),
        ('matches', '0001_initial'),
        ('ratings', '0003_ratings_v2'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # The tables stay as they are (the models keep their db_table): state only.
            state_operations=[
                migrations.AlterField(
                model_name='playerrating',
                name='ladder',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ratings', to='clubs.ladder'),
            ),
            migrations.AlterField(
                model_name='ratingchange',
                name='ladder',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='clubs.ladder'),
            ),
            migrations.AlterField(
                model_name='ratingchange',
                name='match',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rating_changes', to='matches.match'),
            ),
            ],
        ),
    ]
