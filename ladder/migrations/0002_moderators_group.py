"""The Moderators group (RULES.md "Roles") with the admin permissions moderators need.

Moderators manage ladders and their members in the admin: every permission on the
ladder app's models, and view (not change) on users, so they can pick members but
cannot grant themselves more rights. Staff status follows the group (accounts/roles.py).
Later migrations that add ladder models grant them the same way.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

MODERATORS_GROUP = "Moderators"
MODERATOR_PERMISSIONS = {
    "ladder": ["ladder", "membership"],  # add, change, delete, view
}
VIEW_ONLY = {"accounts": ["user"]}


def _ensure_permissions(apps):
    # Permissions are normally created after all migrations; create them now for these apps.
    for label in {*MODERATOR_PERMISSIONS, *VIEW_ONLY}:
        app_config = apps.get_app_config(label)
        app_config.models_module = True
        create_permissions(app_config, verbosity=0, apps=apps)
        app_config.models_module = None


def create_group(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    _ensure_permissions(apps)
    group, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
    for app_label, models in MODERATOR_PERMISSIONS.items():
        for model in models:
            group.permissions.add(
                *Permission.objects.filter(content_type__app_label=app_label, content_type__model=model)
            )
    for app_label, models in VIEW_ONLY.items():
        for model in models:
            group.permissions.add(
                *Permission.objects.filter(
                    content_type__app_label=app_label, codename=f"view_{model}"
                )
            )


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=MODERATORS_GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("ladder", "0001_initial"),
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
