"""Helpers for the play tests: times to come, the rows a refusal must leave alone."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from django.db import DEFAULT_DB_ALIAS
from django.test import TestCase
from django.utils import timezone

from ladder.matches.models import Match, Notification
from ladder.play.models import Challenge, ChallengePlayer, OpenGame, OpenGamePlayer


def soon(days: int = 2, hour: int = 18) -> datetime:
    """A time to come, on the hour, in the club's time zone."""
    day = timezone.localtime() + timedelta(days=days)
    return day.replace(hour=hour, minute=0, second=0, microsecond=0)


def rows() -> dict[str, Any]:
    return {
        "challenges": list(Challenge.objects.values_list("pk", "state", "sequence", "match_id")),
        "players": ChallengePlayer.objects.count(),
        "games": list(OpenGame.objects.values_list("pk", "state", "sequence")),
        "game_players": OpenGamePlayer.objects.count(),
        "matches": list(Match.objects.values_list("pk", "state")),
        "notifications": Notification.objects.count(),
    }


@contextmanager
def unchanged() -> Iterator[None]:
    """The block changes no challenge, game, match or notification and sends no mail."""
    before = rows()
    with TestCase.captureOnCommitCallbacks(using=DEFAULT_DB_ALIAS) as callbacks:
        yield
    assert rows() == before
    assert callbacks == []


def started(item: Challenge | OpenGame) -> None:
    """Its time came an hour ago: its result may be reported now (RULES.md "Challenges and
    open games": from its start, never before)."""
    type(item).objects.filter(pk=item.pk).update(starts_at=timezone.now() - timedelta(hours=1))
    item.refresh_from_db()
