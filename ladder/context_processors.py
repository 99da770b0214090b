"""Values every page needs."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Exists, OuterRef
from django.http import HttpRequest
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from accounts.models import User
from ladder.integrity.flags import integrity_links
from ladder.matches.models import PENDING, MatchPlayer, Notification


def to_confirm_count(user: User) -> int:
    """How many matches wait for ``user`` to confirm (the inbox's "To confirm"), in one query.

    The rows where ``user`` plays a pending match on the side opposing its reporter; the
    confirmation window is per ladder, so it is checked on the few rows fetched.
    """
    reporter_on_my_side = MatchPlayer.objects.filter(
        match=OuterRef("match"), user=OuterRef("match__reporter"), side=OuterRef("side")
    )
    rows = (
        MatchPlayer.objects.filter(user=user, match__state=PENDING)
        .exclude(Exists(reporter_on_my_side))
        .values_list("match__created_at", "match__ladder__confirm_within_hours")
    )
    now = timezone.now()
    return sum(1 for created, hours in rows if now <= created + timedelta(hours=hours))


def site(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    signed_in = isinstance(user, User) and user.is_authenticated
    context: dict[str, object] = {"is_moderator": isinstance(user, User) and user.is_moderator}
    if context["is_moderator"]:
        # Lazy: the menu, the moderation queue and a ladder's page read it (issue 37.4).
        context["integrity_links"] = SimpleLazyObject(integrity_links)
    if isinstance(user, User) and signed_in:
        # Lazy: counted only when a page shows the navigation badge.
        context["inbox_count"] = SimpleLazyObject(lambda: to_confirm_count(user))
        context["unread_count"] = SimpleLazyObject(
            lambda: Notification.objects.filter(user=user).unread().count()
        )
    return context
