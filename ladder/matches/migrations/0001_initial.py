"""Match, MatchPlayer, Game, Dispute, AuditEntry: moved here from the ``ladder`` app (issue 14). Their tables keep
their names and data; only Django's record of where the models live changes."""

import django.core.validators
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
        rename_content_types("matches", ["match", "matchplayer", "game", "dispute", "auditentry"]),
        migrations.SeparateDatabaseAndState(
            # The tables stay as they are (the models keep their db_table): state only.
            state_operations=[
                migrations.CreateModel(
                name='Match',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('played_on', models.DateField()),
                    ('state', models.CharField(choices=[('pending', 'Waiting for confirmation'), ('confirmed', 'Confirmed'), ('disputed', 'Disputed'), ('corrected', 'Corrected by a moderator'), ('voided', 'Voided by a moderator'), ('cancelled', 'Cancelled by the reporter'), ('expired', 'Expired unconfirmed')], default='pending', max_length=10)),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('decided_at', models.DateTimeField(blank=True, help_text='When it was confirmed, corrected, voided, cancelled or expired.', null=True)),
                    ('needs_rating', models.BooleanField(default=False, help_text='Set when the match enters or leaves a rated state; the ratings pipeline clears it.')),
                    ('rated_at', models.DateTimeField(blank=True, null=True)),
                    ('ladder', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='matches', to='clubs.ladder')),
                    ('reporter', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='reported_matches', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'verbose_name_plural': 'matches',
                    'db_table': 'ladder_match',
                    'ordering': ['-played_on', '-pk'],
                },
            ),
            migrations.CreateModel(
                name='Game',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('number', models.PositiveSmallIntegerField(help_text='1-based.')),
                    ('a_points', models.PositiveSmallIntegerField(verbose_name='side A points')),
                    ('b_points', models.PositiveSmallIntegerField(verbose_name='side B points')),
                    ('match', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='games', to='matches.match')),
                ],
                options={
                    'db_table': 'ladder_game',
                    'ordering': ['match', 'number'],
                },
            ),
            migrations.CreateModel(
                name='Dispute',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('reason', models.TextField()),
                    ('proposed_games', models.JSONField(blank=True, help_text='The score the disputing player says is right: [[a, b], …].', null=True)),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('resolution', models.CharField(blank=True, choices=[('upheld', 'Upheld (the report stands)'), ('corrected', 'Corrected'), ('voided', 'Voided')], max_length=10, null=True)),
                    ('resolution_reason', models.TextField(blank=True)),
                    ('resolved_at', models.DateTimeField(blank=True, null=True)),
                    ('raised_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='disputes_raised', to=settings.AUTH_USER_MODEL)),
                    ('resolved_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='disputes_resolved', to=settings.AUTH_USER_MODEL)),
                    ('match', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='disputes', to='matches.match')),
                ],
                options={
                    'db_table': 'ladder_dispute',
                    'ordering': ['created_at', 'pk'],
                },
            ),
            migrations.CreateModel(
                name='AuditEntry',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('action', models.CharField(choices=[('report', 'Reported'), ('confirm', 'Confirmed'), ('dispute', 'Disputed'), ('cancel', 'Cancelled'), ('expire', 'Expired'), ('resolve_uphold', 'Dispute resolved: report upheld'), ('resolve_correct', 'Dispute resolved: score corrected'), ('resolve_void', 'Dispute resolved: match voided'), ('correct', 'Corrected'), ('void', 'Voided')], max_length=20)),
                    ('from_state', models.CharField(blank=True, choices=[('pending', 'Waiting for confirmation'), ('confirmed', 'Confirmed'), ('disputed', 'Disputed'), ('corrected', 'Corrected by a moderator'), ('voided', 'Voided by a moderator'), ('cancelled', 'Cancelled by the reporter'), ('expired', 'Expired unconfirmed')], max_length=10)),
                    ('to_state', models.CharField(choices=[('pending', 'Waiting for confirmation'), ('confirmed', 'Confirmed'), ('disputed', 'Disputed'), ('corrected', 'Corrected by a moderator'), ('voided', 'Voided by a moderator'), ('cancelled', 'Cancelled by the reporter'), ('expired', 'Expired unconfirmed')], max_length=10)),
                    ('before', models.JSONField(blank=True, help_text='Date, players and score before.', null=True)),
                    ('after', models.JSONField(blank=True, help_text='Date, players and score after.', null=True)),
                    ('reason', models.TextField(blank=True)),
                    ('actor', models.ForeignKey(blank=True, help_text='Empty for the system (e.g. expiry).', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='audit_entries', to=settings.AUTH_USER_MODEL)),
                    ('match', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='audit', to='matches.match')),
                ],
                options={
                    'verbose_name_plural': 'audit entries',
                    'db_table': 'ladder_auditentry',
                    'ordering': ['at', 'pk'],
                },
            ),
            migrations.CreateModel(
                name='MatchPlayer',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('side', models.CharField(choices=[('a', 'Side A'), ('b', 'Side B')], max_length=1)),
                    ('position', models.PositiveSmallIntegerField(help_text='Order within the side, 0-based.', validators=[django.core.validators.MaxValueValidator(4)])),
                    ('stats', models.JSONField(blank=True, help_text='Performance stats, e.g. {"kills": 21, "deaths": 14}.', null=True)),
                    ('match', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='players', to='matches.match')),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='match_players', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'ladder_matchplayer',
                    'ordering': ['match', 'side', 'position'],
                },
            ),
            migrations.AddIndex(
                model_name='match',
                index=models.Index(fields=['ladder', 'played_on'], name='match_ladder_played_on'),
            ),
            migrations.AddIndex(
                model_name='match',
                index=models.Index(fields=['-played_on', '-id'], name='match_newest'),
            ),
            migrations.AddIndex(
                model_name='match',
                index=models.Index(fields=['state', 'created_at'], name='match_state_created'),
            ),
            migrations.AddIndex(
                model_name='match',
                index=models.Index(condition=models.Q(('needs_rating', True)), fields=['ladder'], name='match_needs_rating'),
            ),
            migrations.AddConstraint(
                model_name='game',
                constraint=models.UniqueConstraint(fields=('match', 'number'), name='game_number_unique'),
            ),
            migrations.AddConstraint(
                model_name='matchplayer',
                constraint=models.UniqueConstraint(fields=('match', 'user'), name='matchplayer_once_per_match'),
            ),
            migrations.AddConstraint(
                model_name='matchplayer',
                constraint=models.UniqueConstraint(fields=('match', 'side', 'position'), name='matchplayer_one_per_position'),
            ),
            ],
        ),
    ]
