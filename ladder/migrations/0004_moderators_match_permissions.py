"""Moderators may view matches, games, players, disputes and the audit trail in the admin.

View only: every change to a match goes through the domain operations of
ladder/matches.py (resolve, correct, void on the site), which write the audit trail.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

MODERATORS_GROUP = "Moderators"
VIEW_ONLY = ["match", "matchplayer", "game", "dispute", "auditentry"]


def _ensure_permissions(apps):
    # Permissions are normally created after all migrations; create them now.
    app_config = apps.get_app_config("ladder")
    app_config.models_module = True
    create_permissions(app_config, verbosity=0, apps=apps)
    app_config.models_module = None


def grant(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    _ensure_permissions(apps)
    group, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
    group.permissions.add(
        *Permission.objects.filter(
            content_type__app_label="ladder",
            codename__in=[f"view_{model}" for model in VIEW_ONLY],
        )
    )


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=MODERATORS_GROUP).first()
    if group is not None:
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="ladder", content_type__model__in=VIEW_ONLY)
        )


class Migration(migrations.Migration):
    dependencies = [("ladder", "0003_matches"), ("ladder", "0002_moderators_group")]

    operations = [migrations.RunPython(grant, revoke)]
