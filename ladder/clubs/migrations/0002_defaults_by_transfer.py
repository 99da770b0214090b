"""The defaults judged by transfer (issue 27): scale_factor and margin_clamp go back to
RATINGS.md §2's 400 and 0.25. Version 2's 450 and 0.5 were picked looking at the very files
they were judged on; with each history in turn unseen they do not beat §2's values
everywhere (docs/RATINGS_EVALUATION.md "Defaults by transfer").

As in ladder/migrations/0010_ratings_v2_settings: a ladder still on version 2's value of
either field takes the new default, one set by hand keeps it. The rated matches of every
ladder that changed are marked ``needs_rating`` and ``replays_ratings`` asks the ratings
app's post_migrate step to replay them (ratings/migrations/0003_ratings_v2 says how)."""

import django.core.validators
from django.db import migrations, models

# Field: (version 2's default, the default by transfer). Written out: a migration keeps the
# values of its day, whatever the defaults become later.
TRANSFER_DEFAULTS = {"scale_factor": (450.0, 400.0), "margin_clamp": (0.5, 0.25)}


def to_transfer_defaults(apps, schema_editor):
    Ladder = apps.get_model("clubs", "Ladder")
    Match = apps.get_model("matches", "Match")
    changed = set()
    for field, (old, new) in TRANSFER_DEFAULTS.items():
        on_old = Ladder.objects.filter(**{field: old})
        changed.update(on_old.values_list("pk", flat=True))
        on_old.update(**{field: new})
    Match.objects.filter(ladder__in=changed, state__in=("confirmed", "corrected")).update(
        needs_rating=True
    )


class Migration(migrations.Migration):
    # Read by ratings.upkeep.replay_after_migrate: rate the marked ladders after migrating.
    replays_ratings = True

    dependencies = [
        ("clubs", "0001_initial"),
        ("matches", "0002_notifications"),
    ]

    operations = [
        migrations.AlterField(
            model_name="ladder",
            name="margin_clamp",
            field=models.FloatField(
                default=0.25,
                help_text="Bound of the margin ratio.",
                validators=[
                    django.core.validators.MinValueValidator(0),
                    django.core.validators.MaxValueValidator(1),
                ],
            ),
        ),
        migrations.AlterField(
            model_name="ladder",
            name="scale_factor",
            field=models.FloatField(
                default=400.0,
                help_text="Slope of the expected score; 400 is standard Glicko-2.",
                validators=[django.core.validators.MinValueValidator(1)],
            ),
        ),
        migrations.RunPython(to_transfer_defaults, migrations.RunPython.noop),
    ]
