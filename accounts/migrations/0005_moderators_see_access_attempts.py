"""Moderators may view django-axes' pages in the admin ("Access attempts", "Access failures",
"Access logs"), as the README promises: view only, to see who is being guessed at and from
where. Unlocking (deleting an attempt) stays with superusers."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

MODERATORS_GROUP = "Moderators"
AXES_MODELS = ["accessattempt", "accessfailurelog", "accesslog"]


def grant(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    # Permissions are normally created after all migrations; create axes' now.
    app_config = apps.get_app_config("axes")
    app_config.models_module = True
    create_permissions(app_config, verbosity=0, apps=apps)
    app_config.models_module = None
    group, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
    group.permissions.add(
        *Permission.objects.filter(
            content_type__app_label="axes",
            codename__in=[f"view_{model}" for model in AXES_MODELS],
        )
    )


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=MODERATORS_GROUP).first()
    if group is not None:
        group.permissions.remove(
            *Permission.objects.filter(
                content_type__app_label="axes", content_type__model__in=AXES_MODELS
            )
        )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_user_awaiting_confirmation"),
        ("axes", "0010_accessattemptexpiration"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
