"""A deactivated account's rating rows are listed to no one (ladder.clubs.access.listing_of):
off every leaderboard, whatever its membership says."""

from django.db import migrations, models
from django.db.models import Case, Exists, OuterRef, Value, When


def unlist_deactivated(apps, schema_editor):
    PlayerRating = apps.get_model("ratings", "PlayerRating")
    PlayerRating.objects.filter(user__is_active=False).update(listing="left")


def relist_from_memberships(apps, schema_editor):
    """Back to the listing the memberships alone give (0002's rule)."""
    PlayerRating = apps.get_model("ratings", "PlayerRating")
    Membership = apps.get_model("clubs", "Membership")
    membership = Membership.objects.filter(ladder=OuterRef("ladder"), user=OuterRef("user"))
    PlayerRating.objects.filter(user__is_active=False).update(
        listing=Case(
            When(Exists(membership.filter(is_public=True)), then=Value("public")),
            When(Exists(membership), then=Value("hidden")),
            default=Value("left"),
        )
    )


class Migration(migrations.Migration):
    dependencies = [
        ("clubs", "0001_initial"),
        ("ratings", "0005_change_rows_lean_indexes"),
    ]

    operations = [
        migrations.AlterField(
            model_name="playerrating",
            name="listing",
            field=models.CharField(
                choices=[
                    ("public", "Everyone"),
                    ("hidden", "The player and moderators"),
                    ("left", "No one: not a member, or deactivated"),
                ],
                default="public",
                help_text="Who sees this row (ladder.clubs.access.listing_of): follows the "
                "player's membership of the ladder and whether their account is active.",
                max_length=6,
            ),
        ),
        migrations.RunPython(unlist_deactivated, relist_from_memberships),
    ]
