"""The models moved to the clubs, matches and clubnight apps (issue 14): this app forgets them
(state only; the tables now belong to those apps, under the same names)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('ladder', '0011_ladder_description_limit'),
        ('ratings', '0004_models_moved_to_apps'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # The tables stay as they are (the models keep their db_table): state only.
            state_operations=[
                migrations.RemoveField(
                model_name='clubnight',
                name='created_by',
            ),
            migrations.RemoveField(
                model_name='clubnight',
                name='ladder',
            ),
            migrations.RemoveField(
                model_name='dispute',
                name='match',
            ),
            migrations.RemoveField(
                model_name='dispute',
                name='raised_by',
            ),
            migrations.RemoveField(
                model_name='dispute',
                name='resolved_by',
            ),
            migrations.RemoveField(
                model_name='game',
                name='match',
            ),
            migrations.RemoveField(
                model_name='match',
                name='ladder',
            ),
            migrations.RemoveField(
                model_name='membership',
                name='ladder',
            ),
            migrations.RemoveField(
                model_name='match',
                name='reporter',
            ),
            migrations.RemoveField(
                model_name='matchplayer',
                name='match',
            ),
            migrations.RemoveField(
                model_name='matchplayer',
                name='user',
            ),
            migrations.RemoveField(
                model_name='membership',
                name='user',
            ),
            migrations.DeleteModel(
                name='AuditEntry',
            ),
            migrations.DeleteModel(
                name='ClubNight',
            ),
            migrations.DeleteModel(
                name='Dispute',
            ),
            migrations.DeleteModel(
                name='Game',
            ),
            migrations.DeleteModel(
                name='Ladder',
            ),
            migrations.DeleteModel(
                name='Match',
            ),
            migrations.DeleteModel(
                name='MatchPlayer',
            ),
            migrations.DeleteModel(
                name='Membership',
            ),
            ],
        ),
    ]
