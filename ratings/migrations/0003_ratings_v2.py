"""RATINGS.md version 2: what a stored change records (won, the margin multiplier, whether
the wrong-way floor applied), each rating row's ranked standing (§8), and a replay of every
ladder with the new rules.

The replay: a migration must not import the site's code (it would run today's code on
yesterday's schema), so this one only marks every rated match ``needs_rating``, the flag
the rating pipeline works from (ratings.pipeline). ``Migration.replays_ratings`` asks the
ratings app's post_migrate step (ratings.upkeep.replay_after_migrate) to rate every ladder
with marked matches before ``migrate`` returns: the marked matches were rated before, so
each ladder is replayed from its first match. Should that step not run, or fail, the
periodic sweep (ratings.tasks.sweep) finds the same marks. Until then pages show the old
ratings; nothing is lost either way.

``won`` is filled from the games here (who won more of them), so rows read right even
before the replay rewrites them.
"""

from django.db import migrations, models
from django.db.models import Count, F, Q


def fill_won(apps, schema_editor):
    Match = apps.get_model("ladder", "Match")
    RatingChange = apps.get_model("ratings", "RatingChange")
    a_won = (
        Match.objects.annotate(
            a_games=Count("games", filter=Q(games__a_points__gt=F("games__b_points"))),
            games_played=Count("games"),
        )
        .filter(a_games__gt=F("games_played") - F("a_games"))
        .values("pk")
    )
    RatingChange.objects.filter(side="a", match__in=a_won).update(won=True)
    RatingChange.objects.filter(side="b").exclude(match__in=a_won).update(won=True)


def mark_for_replay(apps, schema_editor):
    Match = apps.get_model("ladder", "Match")
    Match.objects.filter(state__in=("confirmed", "corrected")).update(needs_rating=True)


class Migration(migrations.Migration):
    # Read by ratings.upkeep.replay_after_migrate: rate the marked ladders after migrating.
    replays_ratings = True

    dependencies = [
        ("ladder", "0010_ratings_v2_settings"),
        ("ratings", "0002_playerrating_listing"),
    ]

    operations = [
        migrations.AddField(
            model_name="ratingchange",
            name="won",
            field=models.BooleanField(
                default=False, help_text="The player's side won the match."
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="margin_multiplier",
            field=models.FloatField(
                default=1.0,
                help_text="How much the margin made the match count (RATINGS.md §3 step 2: "
                "m); 1 for the narrowest win and under the score model.",
            ),
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="floor_applied",
            field=models.BooleanField(
                default=False,
                help_text="The wrong-way floor kept the rating where it was (RATINGS.md §3 "
                "step 9).",
            ),
        ),
        migrations.AlterField(
            model_name="ratingchange",
            name="outcome",
            field=models.FloatField(
                help_text="The result as the rating counted it (0–1): 1 or 0 when the margin "
                "is information, the margin-aware score under the score model."
            ),
        ),
        migrations.AddField(
            model_name="playerrating",
            name="established_until",
            field=models.DateField(
                blank=True,
                null=True,
                help_text="The last day with enough matches and an RD, grown for inactivity, "
                "within the ladder's ranked RD (RATINGS.md §8; ratings.models."
                "established_until). Empty: none.",
            ),
        ),
        migrations.RunPython(fill_won, migrations.RunPython.noop),
        migrations.RunPython(mark_for_replay, migrations.RunPython.noop),
    ]
