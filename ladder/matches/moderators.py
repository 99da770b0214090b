"""Who moderates: who settles disputes, and who hears of them by e-mail."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from accounts.models import MODERATORS_GROUP, User


def everyone_moderating() -> QuerySet[User]:
    """Who settles disputes: the Moderators group and superusers."""
    return User.objects.filter(
        Q(groups__name=MODERATORS_GROUP) | Q(is_superuser=True), is_active=True
    ).distinct()


def moderators() -> QuerySet[User]:
    """Who hears about disputes by e-mail: those settling them who have an address."""
    return everyone_moderating().exclude(email="")
