"""Who is a moderator: the Moderators group (RULES.md "Roles"), plus superusers.

Moderators use the Django admin to manage ladders and members, so membership of the
group carries staff status with it: adding a user to the group makes them staff and
removing them takes it away (unless they are a superuser). The group's permissions are
created by the data migration ladder/migrations/0002_moderators_group.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import Group
from django.db.models.signals import m2m_changed
from django.dispatch import receiver

from accounts.models import MODERATORS_GROUP, User
from core.cache import pages_changed


def make_moderator(user: User) -> None:
    """Put ``user`` in the Moderators group (which also makes them staff)."""
    group, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
    user.groups.add(group)


def _set_moderator_staff(users: Iterable[User], moderator: bool) -> None:
    for user in users:
        staff = moderator or user.is_superuser
        if user.is_staff != staff:
            user.is_staff = staff
            user.save(update_fields=["is_staff"])
        user.__dict__.pop("_is_moderator", None)
    pages_changed()  # what the API's kept answers show a moderator (ladder.pagecache)


@receiver(m2m_changed, sender=User.groups.through)
def _moderators_changed(
    sender: type,
    instance: Any,  # a User, or a Group when ``reverse``
    action: str,
    reverse: bool,
    pk_set: set[int] | None,
    **kwargs: object,
) -> None:
    """Keep staff status in step with membership of the Moderators group."""
    if reverse:  # group.user_set.add/remove/clear(): instance is the Group, pk_set users
        if instance.name != MODERATORS_GROUP:
            return
        if action == "pre_clear":
            instance._clearing = list(instance.user_set.all())
        elif action in ("post_add", "post_remove"):
            users = User.objects.filter(pk__in=pk_set or ())
            _set_moderator_staff(users, moderator=action == "post_add")
        elif action == "post_clear":
            _set_moderator_staff(instance.__dict__.pop("_clearing", []), moderator=False)
        return
    # user.groups.add/remove/clear(): instance is the User, pk_set groups
    if action == "pre_clear":
        instance._was_moderator = instance.groups.filter(name=MODERATORS_GROUP).exists()
    elif action in ("post_add", "post_remove"):
        if Group.objects.filter(pk__in=pk_set or (), name=MODERATORS_GROUP).exists():
            _set_moderator_staff([instance], moderator=action == "post_add")
    elif action == "post_clear" and instance.__dict__.pop("_was_moderator", False):
        _set_moderator_staff([instance], moderator=False)
