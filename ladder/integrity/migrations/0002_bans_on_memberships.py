"""A ban became a state of the membership (issue 36): copy each active ban onto its member's
membership, and make their rating row seen by moderators only (ladder.clubs.access.BANNED)."""

from django.db import migrations


def forwards(apps, schema_editor):
    Ban = apps.get_model("integrity", "Ban")
    Membership = apps.get_model("clubs", "Membership")
    PlayerRating = apps.get_model("ratings", "PlayerRating")
    for ban in Ban.objects.filter(lifted_at__isnull=True):
        Membership.objects.filter(ladder_id=ban.ladder_id, user_id=ban.user_id).update(
            banned_at=ban.created_at, ban_reason=ban.reason
        )
        PlayerRating.objects.filter(
            ladder_id=ban.ladder_id, user_id=ban.user_id, listing__in=("public", "hidden")
        ).update(listing="banned")


def backwards(apps, schema_editor):
    Membership = apps.get_model("clubs", "Membership")
    PlayerRating = apps.get_model("ratings", "PlayerRating")
    for membership in Membership.objects.filter(banned_at__isnull=False):
        PlayerRating.objects.filter(
            ladder_id=membership.ladder_id, user_id=membership.user_id, listing="banned"
        ).update(listing="public" if membership.is_public else "hidden")


class Migration(migrations.Migration):
    dependencies = [
        ("integrity", "0001_initial"),
        ("clubs", "0006_bans"),
        ("ratings", "0008_bans"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
