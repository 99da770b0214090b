"""Helpers for the match tests (domain, API and pages): roles, states, "nothing changed"."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db import DEFAULT_DB_ALIAS
from django.test import TestCase
from django.utils import timezone

from ladder.clubs.models import Ladder
from ladder.matches import operations as matches
from ladder.matches.models import AuditEntry, Dispute, Game, Match, MatchPlayer
from tests.factories import reported_match

COUNTED = (Match, Game, MatchPlayer, AuditEntry, Dispute)
ROLES = ("reporter", "partner", "opponent", "moderator", "outsider", "anonymous")


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in COUNTED}


def row(match: Match | None) -> Any:
    if match is None:
        return None
    fresh = Match.objects.with_details().get(pk=match.pk)
    return (
        fresh.state,
        fresh.needs_rating,
        fresh.updated_at,
        fresh.decided_at,
        fresh.played_on,
        fresh.game_scores,
    )


@contextmanager
def unchanged(match: Match | None = None) -> Iterator[None]:
    """Assert the block changes no match, game, player, dispute or audit row, and queues no
    after-commit work (emails, rating)."""
    before = (counts(), row(match))
    with TestCase.captureOnCommitCallbacks(using=DEFAULT_DB_ALIAS) as callbacks:
        yield
    assert (counts(), row(match)) == before
    assert callbacks == []


def cast_roles(alice, bob, charlie, mod, outsider) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """Who is who for a match alice (+ bob) reported against charlie (+ dave)."""
    return {
        "reporter": alice,
        "partner": bob,
        "opponent": charlie,
        "moderator": mod,
        "outsider": outsider,
        "anonymous": AnonymousUser(),
    }


def doubles_match(doubles: Ladder, alice, bob, charlie, dave, **kwargs: Any) -> Match:  # type: ignore[no-untyped-def]
    """alice & bob v charlie & dave, reported by alice, pending."""
    return reported_match(doubles, alice, [alice, bob], [charlie, dave], **kwargs)


def in_state(state: str, match: Match, *, opponent, reporter, mod) -> Match:  # type: ignore[no-untyped-def]
    """Drive a freshly reported match into ``state`` through the domain operations."""
    if state == "pending":
        return match
    if state in ("confirmed", "corrected", "voided"):
        match = matches.confirm_match(match, opponent)
        if state == "corrected":
            match = matches.correct_match(match, mod, [(21, 10), (21, 12)], "Typo in the report")
        elif state == "voided":
            match = matches.void_match(match, mod, "Not a ladder match")
        return match
    if state == "disputed":
        return matches.dispute_match(match, opponent, "Wrong score")
    if state == "cancelled":
        return matches.cancel_match(match, reporter)
    if state in ("expired", "overdue"):
        Match.objects.filter(pk=match.pk).update(
            created_at=timezone.now() - timedelta(hours=match.ladder.confirm_within_hours + 1)
        )
        if state == "expired":
            assert matches.expire_overdue() == 1
        return Match.objects.with_details().get(pk=match.pk)
    raise ValueError(state)


# ---- the API --------------------------------------------------------------------------------

API = "/api/v1/matches/"


def api_client(user: Any = None) -> Any:
    """An APIClient, signed in as ``user`` (force_authenticate) unless it is None or anonymous."""
    from rest_framework.test import APIClient

    client = APIClient()
    if user is not None and user.is_authenticated:
        client.force_authenticate(user)
    return client


def report_payload(ladder: Ladder, side_a: list[Any], side_b: list[Any], **overrides: Any) -> dict:
    payload = {
        "ladder": ladder.slug,
        "played_on": timezone.localdate().isoformat(),
        "side_a": [u.username for u in side_a],
        "side_b": [u.username for u in side_b],
        "games": [[21, 15], [21, 18]],
    }
    payload.update(overrides)
    return payload


def singles_report(ladder: Ladder, reporter: Any, opponent: Any) -> dict[str, Any]:
    """A ``Report``'s values for a singles win today, 21-15 21-18."""
    return {
        "ladder": ladder,
        "reporter": reporter,
        "played_on": timezone.localdate(),
        "side_a": [reporter],
        "side_b": [opponent],
        "games": [(21, 15), (21, 18)],
    }
