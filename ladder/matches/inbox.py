"""What waits for a member (matches to confirm, their own open reports) and for a
moderator (disputes to settle)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import RequestUser, User
from ladder.matches.models import (
    DISPUTED,
    PENDING,
    Match,
)


@dataclass
class Inbox:
    """What waits for a member: matches to confirm, their own open reports, open disputes."""

    to_confirm: list[Match] = field(default_factory=list)
    my_pending: list[Match] = field(default_factory=list)
    disputes: list[Match] = field(default_factory=list)  # moderators only

    @property
    def count(self) -> int:
        return len(self.to_confirm)


def inbox_for(user: RequestUser | None, now: datetime | None = None) -> Inbox:
    """The inbox of ``user`` (empty for visitors), each list newest first."""
    if not isinstance(user, User) or not user.is_authenticated:
        return Inbox()
    now = now or timezone.now()
    waiting = (
        Match.objects.filter(state=PENDING, players__user=user)
        .exclude(reporter=user)
        .with_details()
        .order_by("-created_at", "-pk")  # newest first, as the notifications (issue 37.6)
    )
    to_confirm = [
        m for m in waiting if m.side_of(user) != m.reporter_side and not m.is_expired(now)
    ]
    mine = (
        Match.objects.filter(reporter=user, state__in=(PENDING, DISPUTED))
        .with_details()
        .order_by("-created_at", "-pk")
    )
    my_pending = [m for m in mine if not m.is_expired(now)]
    disputes = list(moderation_queue()) if user.is_moderator else []
    return Inbox(to_confirm=to_confirm, my_pending=my_pending, disputes=disputes)


def moderation_queue() -> QuerySet[Match]:
    """Disputed matches, the longest waiting first, with players, games and disputes."""
    return (
        Match.objects.filter(state=DISPUTED)
        .with_details()
        .prefetch_related("disputes__raised_by")
        .order_by("updated_at", "pk")
    )
