"""RATINGS.md version 2 on every ladder: the outcome model and margin boost (§2), and the
ranked settings (§8). Existing ladders move to the new defaults (margin as information,
boost 1); the wrong-way floor has no field, it is always on. Version 2's measured defaults
(§9, docs/RATINGS_EVALUATION.md) also changed scale_factor (400 → 450) and margin_clamp
(0.25 → 0.5): a ladder still on version 1's value of either takes version 2's, one set by
hand keeps it. Their ratings are then replayed: ratings/migrations/0003_ratings_v2 marks
every rated match for it."""

from django.core import validators
from django.db import migrations, models

V2_SETTINGS = {"outcome_model": "margin_information", "margin_boost": 1.0}
# Field: (version 1's default, version 2's). Written out: a migration keeps the values of
# its day, whatever the defaults become later.
V2_DEFAULTS = {"scale_factor": (400.0, 450.0), "margin_clamp": (0.25, 0.5)}


def to_v2(apps, schema_editor):
    Ladder = apps.get_model("ladder", "Ladder")
    # The new fields' defaults already are these; said again so that the move to version 2
    # does not hang on a default that may change later.
    Ladder.objects.update(**V2_SETTINGS)
    for field, (v1, v2) in V2_DEFAULTS.items():
        Ladder.objects.filter(**{field: v1}).update(**{field: v2})


class Migration(migrations.Migration):

    dependencies = [
        ("ladder", "0009_match_newest_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="ladder",
            name="outcome_model",
            field=models.CharField(
                choices=[
                    (
                        "margin_information",
                        "Margin as information: a win is a win, a clear one counts more",
                    ),
                    ("score", "Score: the margin sets the result (0.5 + bonus + weighted margin)"),
                ],
                default="margin_information",
                help_text="How a result counts (RATINGS.md §3 step 2). Either way a win never "
                "lowers a rating and a loss never raises one.",
                max_length=24,
            ),
        ),
        migrations.AddField(
            model_name="ladder",
            name="margin_boost",
            field=models.FloatField(
                default=1.0,
                help_text="Margin as information: how much more a clear win counts than a "
                "narrow one (0 = the margin is ignored; 0–3 is sensible, at most 10).",
            ),
        ),
        migrations.AddField(
            model_name="ladder",
            name="ranked_min_matches",
            field=models.PositiveIntegerField(
                default=5,
                help_text="Rated matches a player needs to be ranked (RATINGS.md §8).",
                validators=[validators.MinValueValidator(1)],
                verbose_name="ranked after",
            ),
        ),
        migrations.AddField(
            model_name="ladder",
            name="ranked_rd",
            field=models.FloatField(
                default=120.0,
                help_text="A player is ranked while their RD, grown for inactivity up to "
                "today, is at most this (RATINGS.md §8; 120 reads ± 0.12). Above 0, at most "
                "the RD maximum.",
                verbose_name="ranked RD",
            ),
        ),
        migrations.AlterField(
            model_name="ladder",
            name="match_win_bonus",
            field=models.FloatField(
                default=0.4,
                help_text="Score model only: winner's outcome above 0.5 before the margin.",
                validators=[validators.MinValueValidator(0), validators.MaxValueValidator(0.5)],
            ),
        ),
        migrations.AlterField(
            model_name="ladder",
            name="margin_weight",
            field=models.FloatField(
                default=0.25,
                help_text="Score model only: weight of the score margin in the outcome.",
                validators=[validators.MinValueValidator(0)],
            ),
        ),
        migrations.AlterField(
            model_name="ladder",
            name="margin_clamp",
            field=models.FloatField(
                default=0.5,
                help_text="Bound of the margin ratio.",
                validators=[validators.MinValueValidator(0), validators.MaxValueValidator(1)],
            ),
        ),
        migrations.AlterField(
            model_name="ladder",
            name="scale_factor",
            field=models.FloatField(
                default=450.0,
                help_text="Slope of the expected score; 400 is standard Glicko-2.",
                validators=[validators.MinValueValidator(1)],
            ),
        ),
        migrations.RunPython(to_v2, migrations.RunPython.noop),
    ]
