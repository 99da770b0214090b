"""Ladder, Membership: moved here from the ``ladder`` app (issue 14). Their tables keep
their names and data; only Django's record of where the models live changes."""

import django.core.validators
import django.db.models.deletion
import django.utils.timezone
import ladder.clubs.models
from django.conf import settings
from django.db import migrations, models

from ladder.migrations._moves import rename_content_types



class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('ladder', '0011_ladder_description_limit'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        rename_content_types("clubs", ["ladder", "membership"]),
        migrations.SeparateDatabaseAndState(
            # The tables stay as they are (the models keep their db_table): state only.
            state_operations=[
                migrations.CreateModel(
                name='Ladder',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(max_length=80)),
                    ('slug', models.SlugField(help_text='Used in the address: /ladders/<slug>/.', max_length=80, unique=True)),
                    ('description', models.TextField(blank=True, max_length=2000)),
                    ('is_public', models.BooleanField(default=True, help_text='Public ladders are listed for everyone and anyone signed in may join. Private ones are seen only by their members and moderators; a moderator adds members.', verbose_name='public')),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                    ('team_size', models.PositiveSmallIntegerField(default=1, help_text='Players per side: 1 singles, 2 doubles, up to 5.', validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(5)])),
                    ('scoring_format', models.CharField(choices=ladder.clubs.models.scoring_format_choices, default='badminton_21', max_length=20)),
                    ('best_of', models.PositiveSmallIntegerField(blank=True, help_text='Generic format only: games in a match, odd, 1–7. Badminton formats set it themselves.', null=True)),
                    ('points_per_game', models.PositiveSmallIntegerField(blank=True, help_text='Generic format only: the usual points to win a game, used to weigh the margin. Badminton formats set it themselves.', null=True, validators=[django.core.validators.MinValueValidator(1)])),
                    ('team_method', models.CharField(choices=[('composite_opponent', 'Composite opponent'), ('individual', 'Each opponent counted'), ('composite_team', 'Composite teams'), ('performance_weighted', 'Performance weighted'), ('glicko1_team', 'Glicko-1 teams')], default='composite_opponent', max_length=24)),
                    ('composite_rd', models.CharField(choices=[('mean', "Mean of the opponents' RDs"), ('rms_of_mean', 'RMS of the mean (√Σφ² / n)'), ('rms', 'Root mean square (√(Σφ² / n))')], default='mean', help_text="How the opposing side's RD is combined (team methods).", max_length=16, verbose_name='composite RD')),
                    ('tau', models.FloatField(default=0.5, help_text='Volatility change rate; 0.3–0.8 is sensible.', validators=[django.core.validators.MinValueValidator(0.01)])),
                    ('scale_factor', models.FloatField(default=450.0, help_text='Slope of the expected score; 400 is standard Glicko-2.', validators=[django.core.validators.MinValueValidator(1)])),
                    ('repetition_alpha', models.FloatField(default=0.2, help_text='Damping of repeat opponents: weight = 1 / (1 + alpha × earlier meetings).', validators=[django.core.validators.MinValueValidator(0)])),
                    ('diversity_threshold', models.FloatField(default=0.2, help_text="Minimum share of distinct opponents for a player's RD to shrink.", validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(1)])),
                    ('outcome_model', models.CharField(choices=[('margin_information', 'Margin as information: a win is a win, a clear one counts more'), ('score', 'Score: the margin sets the result (0.5 + bonus + weighted margin)')], default='margin_information', help_text='How a result counts (RATINGS.md §3 step 2). Either way a win never lowers a rating and a loss never raises one.', max_length=24)),
                    ('margin_boost', models.FloatField(default=1.0, help_text='Margin as information: how much more a clear win counts than a narrow one (0 = the margin is ignored; 0–3 is sensible, at most 10).')),
                    ('match_win_bonus', models.FloatField(default=0.4, help_text="Score model only: winner's outcome above 0.5 before the margin.", validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(0.5)])),
                    ('margin_weight', models.FloatField(default=0.25, help_text='Score model only: weight of the score margin in the outcome.', validators=[django.core.validators.MinValueValidator(0)])),
                    ('margin_clamp', models.FloatField(default=0.5, help_text='Bound of the margin ratio.', validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(1)])),
                    ('rating_center', models.FloatField(default=4500.0)),
                    ('rating_min', models.FloatField(default=2000.0)),
                    ('rating_max', models.FloatField(default=9000.0)),
                    ('rd_max', models.FloatField(default=500.0, validators=[django.core.validators.MinValueValidator(1)], verbose_name='RD max')),
                    ('initial_rating', models.FloatField(default=4500.0, help_text='Starting rating without a self-assessment.')),
                    ('initial_rd', models.FloatField(default=250.0, help_text='Starting RD without a self-assessment.', validators=[django.core.validators.MinValueValidator(1)], verbose_name='initial RD')),
                    ('initial_volatility', models.FloatField(default=0.06, validators=[django.core.validators.MinValueValidator(0.0001)])),
                    ('lookback_days', models.PositiveIntegerField(default=90, help_text='Window for repetition and diversity counts, and for being active.', validators=[django.core.validators.MinValueValidator(1)])),
                    ('rating_period_days', models.PositiveIntegerField(default=7, help_text='RD grows once per whole period without a match.', validators=[django.core.validators.MinValueValidator(1)])),
                    ('ranked_min_matches', models.PositiveIntegerField(default=5, help_text='Rated matches a player needs to be ranked (RATINGS.md §8).', validators=[django.core.validators.MinValueValidator(1)], verbose_name='ranked after')),
                    ('ranked_rd', models.FloatField(default=120.0, help_text='A player is ranked while their RD, grown for inactivity up to today, is at most this (RATINGS.md §8; 120 reads ± 0.12). Above 0, at most the RD maximum.', verbose_name='ranked RD')),
                    ('method_options', models.JSONField(blank=True, default=dict, help_text='Method settings of RATINGS.md §5, e.g. {"stat_weights": {"kills": 1.0, "deaths": -0.7}, "perf_alpha": 0.2, "delta_max": 150}. Allowed keys: stat_weights, perf_alpha, perf_weight_min, perf_weight_max, delta_max, g1_scale, g1_rd_max, g1_initial_rd, g1_boost.')),
                    ('max_report_age_days', models.PositiveIntegerField(default=14, help_text='A match may be reported up to this many days after it was played.', validators=[django.core.validators.MinValueValidator(1)])),
                    ('confirm_within_hours', models.PositiveIntegerField(default=168, help_text='A pending report expires (and is never rated) after this many hours.', validators=[django.core.validators.MinValueValidator(1)])),
                    ('max_pending_reports', models.PositiveIntegerField(default=10, help_text='Reports a member may have waiting for confirmation at once.', validators=[django.core.validators.MinValueValidator(1)])),
                    ('board_version', models.PositiveBigIntegerField(default=0, editable=False, help_text='A new random number whenever what the leaderboard shows changes (ratings, members, names); cached leaderboard pages are keyed by it.')),
                    ('reports_per_hour', models.PositiveIntegerField(default=20, help_text='Reports a member may file in any hour (rate limit). 20 is more than a busy club night needs and still stops a runaway script.', validators=[django.core.validators.MinValueValidator(1)])),
                ],
                options={
                    'db_table': 'ladder_ladder',
                    'ordering': ['name'],
                },
            ),
            migrations.CreateModel(
                name='Membership',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('joined_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('is_public', models.BooleanField(default=True, help_text='Appear on this ladder for everyone. Off: only you and moderators see you.', verbose_name='listed publicly')),
                    ('self_level', models.DecimalField(blank=True, choices=ladder.clubs.models.level_choices, decimal_places=1, max_digits=2, null=True, verbose_name='self-assessed level')),
                    ('self_certainty', models.CharField(blank=True, choices=ladder.clubs.models.certainty_choices, max_length=10, verbose_name='how sure')),
                    ('initial_rating', models.FloatField(help_text='Starting rating from the self-assessment.')),
                    ('initial_rd', models.FloatField(help_text='Starting RD from the self-assessment.', verbose_name='initial RD')),
                    ('ladder', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='clubs.ladder')),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'ladder_membership',
                    'ordering': ['ladder', '-initial_rating', 'user__username'],
                    'indexes': [models.Index(condition=models.Q(('is_public', False)), fields=['ladder'], name='membership_hidden')],
                    'constraints': [models.UniqueConstraint(fields=('ladder', 'user'), name='membership_unique_per_ladder')],
                },
            ),
            ],
        ),
    ]
