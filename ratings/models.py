"""Ratings as the site stores them: each player's current state per ladder, and one
change row per match and player. Both are outputs of the engine's replay (ratings.pipeline);
nothing else writes them.

The QuerySet methods below are how the pages and the API read them (STYLE.md "Query
logic in QuerySet methods"): each is a fixed number of queries however many players
and matches a ladder has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import (
    Count,
    F,
    FloatField,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
    Window,
)
from django.db.models.functions import Coalesce, Lag

from accounts.models import name_contains
from ladder.models import Membership, listed_q

# PRODUCT.md "Leaderboard": ranked only when not provisional (RD ≤ 120 and ≥ 5 rated
# matches) and active (played within the ladder's lookback_days).
PROVISIONAL_RD = 120.0
PROVISIONAL_MATCHES = 5
# The leaderboard's trend: rating now minus rating this many days ago.
TREND_DAYS = 30

RANKED = "ranked"
PROVISIONAL = "provisional"
INACTIVE = "inactive"
STATUSES = (
    (RANKED, "Ranked"),
    (PROVISIONAL, "Provisional"),
    (INACTIVE, "Inactive"),
)


def active_since(lookback_days: int, today: date) -> date:
    """The earliest last match that still counts as active on ``today``."""
    return today - timedelta(days=lookback_days)


def _active(cutoffs: Mapping[int, date]) -> Q:
    """Rows whose player is active on their ladder: played on or after the ladder's cutoff."""
    q = Q(pk__in=[])
    for ladder_id, cutoff in cutoffs.items():
        q |= Q(ladder_id=ladder_id, last_played__gte=cutoff)
    return q


ESTABLISHED = Q(rd__lte=PROVISIONAL_RD, matches__gte=PROVISIONAL_MATCHES)


def _statuses(cutoffs: Mapping[int, date]) -> dict[str, Q]:
    """The condition of each status (ranked, provisional, inactive) on ``cutoffs``' ladders."""
    active = _active(cutoffs)
    return {
        RANKED: active & ESTABLISHED,
        PROVISIONAL: active & ~ESTABLISHED,
        INACTIVE: ~active,
    }


# Who sees a rating row: everyone, only its player and the moderators (a hidden member), or
# no one (a player who left the ladder keeps their row, which replays need). A copy of the
# membership (``listing_of``), kept on the row so that listing a ladder joins nothing.
PUBLIC = "public"
HIDDEN = "hidden"
LEFT = "left"
LISTINGS = (
    (PUBLIC, "Everyone"),
    (HIDDEN, "The player and moderators"),
    (LEFT, "No one: not a member"),
)


def listing_of(membership: Membership | None) -> str:
    """The listing of a player's rating row, given their membership of its ladder (or None)."""
    if membership is None:
        return LEFT
    return PUBLIC if membership.is_public else HIDDEN


class PlayerRatingQuerySet(models.QuerySet["PlayerRating"]):
    def listed_for(self, viewer: Any) -> PlayerRatingQuerySet:
        """Ratings of members ``viewer`` may see on their ladder (as Membership.listed_for)."""
        return self.filter(listed_q(viewer, public=Q(listing=PUBLIC), among=~Q(listing=LEFT)))

    def relist(self, membership: Membership | None) -> int:
        """Give these rows (one player's on one ladder) the listing ``membership`` implies."""
        return self.update(listing=listing_of(membership))

    def search(self, text: str) -> PlayerRatingQuerySet:
        """Players whose name or username contains ``text`` (``name_contains``)."""
        return self.filter(name_contains(text, "user__"))

    def of_status(self, status: str, cutoffs: Mapping[int, date]) -> PlayerRatingQuerySet:
        """Only rows of this status on ``cutoffs``' ladders (plain conditions on the row, so
        PostgreSQL can walk the rating index in order)."""
        return self.filter(_statuses(cutoffs)[status])

    def status_counts(self, cutoffs: Mapping[int, date]) -> dict[str, int]:
        """How many rows of each status on ``cutoffs``' ladders, in one query."""
        counts = {status: Count("pk", filter=q) for status, q in _statuses(cutoffs).items()}
        return self.order_by().aggregate(**counts)

    def ranks_of(self, rows: Sequence[Any], cutoffs: Mapping[int, date]) -> dict[int, int]:
        """Place of each of ``rows`` (ranked rows of one ladder) among this queryset's ranked
        rows by rating, ties to the older row: {pk: rank}. One query, one pass over the
        ladder's rows down to the lowest of ``rows``, however many rows; call it on the
        ladder's rows as the viewer sees them, so a hidden member leaves no gap."""
        above = {
            f"above_{row.pk}": Count(
                "pk", filter=Q(rating__gt=row.rating) | Q(rating=row.rating, pk__lt=row.pk)
            )
            for row in rows
        }
        if not above:
            return {}
        # Rows below the lowest of ``rows`` are above none of them.
        lowest = min(row.rating for row in rows)
        ranked = self.of_status(RANKED, cutoffs).filter(rating__gte=lowest)
        counts = ranked.order_by().aggregate(**above)
        return {int(name.removeprefix("above_")): n + 1 for name, n in counts.items()}

    def with_rank(self, viewer: Any, cutoffs: Mapping[int, date]) -> PlayerRatingQuerySet:
        """Annotate ``rank``: the place the row takes among the ranked rows of its ladder that
        ``viewer`` may see, by rating, ties to the older row. Meaningful for ranked rows only:
        telling them apart is the caller's (no status CASE to compile here). One count per
        row: for a player's few ladders; a leaderboard page uses ``ranks_of``."""
        above = (
            PlayerRating.objects.listed_for(viewer)
            .filter(
                _statuses(cutoffs)[RANKED],
                Q(rating__gt=OuterRef("rating"))
                | Q(rating=OuterRef("rating"), pk__lt=OuterRef("pk")),
                ladder=OuterRef("ladder"),
            )
            .order_by()
            .values("ladder")
            .annotate(n=Count("pk"))
            .values("n")
        )
        return self.annotate(
            rank=Coalesce(Subquery(above, output_field=IntegerField()), Value(0)) + 1
        )

    def with_trend(self, today: date) -> PlayerRatingQuerySet:
        """Annotate ``trend`` (``RatingChangeQuerySet.trends``) with one subquery per row:
        for a player's few ladders; a leaderboard page reads its rows' trends in one query."""
        recent = RatingChange.objects.filter(
            ladder=OuterRef("ladder"), user=OuterRef("user")
        ).trends(today)
        return self.annotate(trend=Subquery(recent.values("total"), output_field=FloatField()))


class RatingChangeQuerySet(models.QuerySet["RatingChange"]):
    def trends(self, today: date) -> Any:
        """Per ladder and player, ``total``: the rating now minus the rating ``TREND_DAYS`` days
        before ``today``, which is the sum of the changes since (the rating only moves with
        matches). A player who has not played since has no row: no trend."""
        since = today - timedelta(days=TREND_DAYS)
        return (
            self.filter(played_on__gt=since)
            .order_by()
            .values("ladder", "user")
            .annotate(total=Sum("change"))
        )

    def with_previous(self) -> RatingChangeQuerySet:
        """Annotate ``previous_rd`` and ``previous_played_on``: the player's RD after, and the
        date of, their previous match on the ladder (None for their first). Computed over
        every row the filters keep, so filter by player (and ladder) before slicing."""
        order = [F("played_on").asc(), F("match_id").asc()]
        partition = [F("user_id"), F("ladder_id")]
        return self.annotate(
            previous_rd=Window(Lag("rd_after"), partition_by=partition, order_by=order),
            previous_played_on=Window(Lag("played_on"), partition_by=partition, order_by=order),
        )

    def history(self, user: Any, ladder: Any | None = None) -> RatingChangeQuerySet:
        """A player's changes, newest first, with their previous match (``with_previous``).

        Just the changes: ``ratings.queries.history_entries`` reads the players and games
        of a page of them, and sets the ladders the caller already has.
        """
        changes = self.filter(user=user)
        if ladder is not None:
            changes = changes.filter(ladder=ladder)
        return changes.with_previous().order_by("-played_on", "-match_id")


class PlayerRating(models.Model):
    """A player's state on a ladder right after their last rated match (not inflated to today)."""

    ladder = models.ForeignKey("ladder.Ladder", on_delete=models.CASCADE, related_name="ratings")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    rating = models.FloatField()
    rd = models.FloatField("RD")
    volatility = models.FloatField()
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    last_played = models.DateField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    listing = models.CharField(
        max_length=6,
        choices=LISTINGS,
        default=PUBLIC,
        help_text="Who sees this row: follows the player's membership of the ladder.",
    )

    objects = PlayerRatingQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ladder", "user"], name="one_rating_per_ladder_player")
        ]
        indexes = [models.Index(fields=["ladder", "-rating"], name="rating_ladder_rank")]

    def __str__(self) -> str:
        return f"{self.user} on {self.ladder}: {self.rating / 1000:.2f}"

    @property
    def is_listed(self) -> bool:
        """Everyone sees this row (no "Hidden" tag for the few who see the others)."""
        return self.listing == PUBLIC

    def status_on(self, cutoff: date) -> str:
        """This row's status when ``cutoff`` is its ladder's ``active_since``: the rule of
        ``_statuses``, read off the row (for a player's few rows, compiling that CASE costs
        more than their whole query). tests/ratings/test_pages_player.py keeps the two in step."""
        if self.last_played is None or self.last_played < cutoff:
            return INACTIVE
        if self.rd <= PROVISIONAL_RD and self.matches >= PROVISIONAL_MATCHES:
            return RANKED
        return PROVISIONAL


class RatingChange(models.Model):
    """What one rated match did to one player, with everything needed to explain it."""

    match = models.ForeignKey(
        "ladder.Match", on_delete=models.CASCADE, related_name="rating_changes"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    # Copied from the match so histories sort and filter without a join.
    ladder = models.ForeignKey("ladder.Ladder", on_delete=models.CASCADE, related_name="+")
    played_on = models.DateField()
    side = models.CharField(max_length=1, choices=[("a", "A"), ("b", "B")])
    rating_before = models.FloatField()
    rd_before = models.FloatField()
    volatility_before = models.FloatField()
    rating_after = models.FloatField()
    rd_after = models.FloatField()
    volatility_after = models.FloatField()
    expected = models.FloatField(help_text="Expected score before the match (0–1).")
    outcome = models.FloatField(help_text="Score from the result and margin (0–1).")
    repetition_weight = models.FloatField()
    diversity_ratio = models.FloatField()
    gate_open = models.BooleanField(help_text="Whether RD was allowed to shrink.")
    performance_weight = models.FloatField(default=1.0)
    change = models.FloatField()

    objects = RatingChangeQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "user"], name="one_change_per_match_player")
        ]
        indexes = [
            models.Index(fields=["ladder", "played_on", "match"], name="change_ladder_order"),
            models.Index(fields=["user", "ladder", "played_on"], name="change_player_history"),
        ]
        ordering = ["played_on", "match_id"]

    def __str__(self) -> str:
        return f"{self.user} {self.change:+.0f} in match {self.match_id}"

    @property
    def won(self) -> bool:
        return self.outcome > 0.5
