"""Sign-ups awaiting confirmation are marked; the password is chosen when confirming.

Existing unconfirmed sign-ups (inactive, never logged in, with a usable password: one the
person who signed up chose, who may not own the address) are marked and lose that password,
so whoever confirms from the mailbox chooses it. Imported players (no usable password) and
accounts a moderator switched off are left alone.
"""

from django.contrib.auth.hashers import is_password_usable, make_password
from django.db import migrations, models


def mark_unconfirmed(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for user in User.objects.filter(is_active=False, last_login__isnull=True):
        if is_password_usable(user.password):
            user.awaiting_confirmation = True
            user.password = make_password(None)
            user.save(update_fields=["awaiting_confirmation", "password"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_api_tokens")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="awaiting_confirmation",
            field=models.BooleanField(default=False, db_default=False, editable=False),
        ),
        migrations.RunPython(mark_unconfirmed, migrations.RunPython.noop),
    ]
