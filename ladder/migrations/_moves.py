"""What the migrations that moved models out of this app share (issue 14). Django's migration
loader skips modules whose names start with an underscore, so this is no migration itself."""

from django.db import migrations


def rename_content_types(app_label, models):
    """Keep the moved models' content types, and so the permissions granted on them (the
    Moderators group's), by renaming their app label rather than making new ones."""

    def forward(apps, schema_editor):
        ContentType = apps.get_model("contenttypes", "ContentType")
        for model in models:
            if not ContentType.objects.filter(app_label=app_label, model=model).exists():
                ContentType.objects.filter(app_label="ladder", model=model).update(app_label=app_label)

    def backward(apps, schema_editor):
        ContentType = apps.get_model("contenttypes", "ContentType")
        for model in models:
            if not ContentType.objects.filter(app_label="ladder", model=model).exists():
                ContentType.objects.filter(app_label=app_label, model=model).update(app_label="ladder")

    return migrations.RunPython(forward, backward)
