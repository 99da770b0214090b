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
from django.core.exceptions import ValidationError
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
from django.urls import reverse
from django.utils import timezone

from accounts.models import User, name_contains
from core.inputs import BadInput, parse_day
from ladder.clubs import access
from ladder.clubs.access import BANNED, LISTINGS, PUBLIC, Viewer, listing_of
from ladder.clubs.formatting import format_days, format_rating
from ladder.clubs.models import Ladder, Membership
from ratings.engine.predict import inflated_rd
from ratings.engine.ranked import established_until
from ratings.engine.types import Params, PlayerState

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


def today() -> date:
    """The club's date now (TIME_ZONE): the day whose ratings the pages show."""
    return timezone.localdate()


def active_since(lookback_days: int, today: date) -> date:
    """The earliest last match that still counts as active on ``today``."""
    return today - timedelta(days=lookback_days)


def _active(cutoffs: Mapping[int, date]) -> Q:
    """Rows whose player is active on their ladder: played on or after the ladder's cutoff."""
    q = Q(pk__in=[])
    for ladder_id, cutoff in cutoffs.items():
        q |= Q(ladder_id=ladder_id, last_played__gte=cutoff)
    return q


# ---- ranked, provisional, inactive (RATINGS.md §8) -----------------------------------------
#
# The one definition. A player is ranked on ``on`` when all hold: at least the ladder's
# ``ranked_min_matches`` rated matches, an RD grown for inactivity up to ``on`` (§3 step 1,
# ``inflated_rd``) of at most ``ranked_rd``, and a rated match within ``lookback_days``
# (inclusive). RD grows by whole rating periods since the last match, and by the periods of
# each season start crossed since, so the first two hold up to a day that follows from the
# row and the ladder's seasons alone: ``established_until`` (the engine's rule,
# ratings/engine/ranked.py) works it out when the row is written (ratings.pipeline) or the
# ladder's ranked settings change (ratings.services.restand), and a status is then a plain
# condition on two dates, which the leaderboard's counts and its walk down the rating index
# can use. A season's first day added, moved or removed while it raises RDs replays the
# ladder (ratings.upkeep), which writes the rows again.


def rating_params(ladder: Ladder) -> Params:
    """The parameters the ladder's ratings follow: its settings (``Ladder.params``) with, when
    a season's start raises RDs (``season_start_periods``), its seasons' first days (RATINGS.md
    §3 step 1). Every rating run, prediction, RD-today and status reads them here, so a
    replay and the rows written one match at a time follow the same rule.

    ``newcomer_start`` is "initial" here whatever the ladder's: on the site a member's start
    is fixed when they join and stored (RATINGS.md §4), so the replay's own rule never
    decides one (a player without a membership, who left, starts at the initial rating on
    every path). An exported history evaluated as a file takes the ladder's setting."""
    params = ladder.params().with_overrides(newcomer_start="initial")
    if params.season_start_periods == 0:
        return params  # the first days change nothing: no query
    starts = Season.objects.filter(ladder_id=ladder.pk).order_by("starts_on")
    return params.with_overrides(
        season_starts=tuple(starts.values_list("starts_on", flat=True).distinct())
    )


def ladder_standing(ladder: Ladder) -> tuple[Params, float, int]:
    """What ``established_until`` needs of a ladder besides a player's state."""
    return rating_params(ladder), ladder.ranked_rd, ladder.ranked_min_matches


def status_of(state: PlayerState, ladder: Ladder, on: date, params: Params | None = None) -> str:
    """A player's status on ``on`` from their current state (a club night's players): the
    rule the stored rows follow (``PlayerRating.status_on``). ``params``: the ladder's
    ``rating_params``, when the caller has them (one read for a page of players)."""
    if state.last_played is None or state.last_played < active_since(ladder.lookback_days, on):
        return INACTIVE
    if params is None:
        params = rating_params(ladder)
    until = established_until(state, params, ladder.ranked_rd, ladder.ranked_min_matches)
    return RANKED if until is not None and until >= on else PROVISIONAL


def _statuses(cutoffs: Mapping[int, date], on: date) -> dict[str, Q]:
    """The condition of each status (ranked, provisional, inactive) on ``on``, on
    ``cutoffs``' ladders (each ladder's ``active_since`` that day)."""
    active = _active(cutoffs)
    established = Q(established_until__gte=on)
    return {
        RANKED: active & established,
        PROVISIONAL: active & ~established,
        INACTIVE: ~active,
    }


# Who sees a rating row is the access policy's (ladder.clubs.access: PUBLIC, HIDDEN, LEFT and
# ``listing_of``), copied onto the row so that listing a ladder joins nothing.


class PlayerRatingQuerySet(models.QuerySet["PlayerRating"]):
    def listed_for(self, viewer: Viewer) -> PlayerRatingQuerySet:
        """Ratings of members listed to ``viewer`` on their ladder (the access policy)."""
        return self.filter(access.rows_listed_q(viewer))

    def relist(self, membership: Membership | None) -> int:
        """Give these rows (one player's on one ladder) the listing ``membership`` implies."""
        return self.update(listing=listing_of(membership))

    def search(self, text: str) -> PlayerRatingQuerySet:
        """Players whose name or username contains ``text`` (``name_contains``)."""
        return self.filter(name_contains(text, "user__"))

    def of_status(self, status: str, cutoffs: Mapping[int, date], on: date) -> PlayerRatingQuerySet:
        """Only rows of this status on ``on`` on ``cutoffs``' ladders (plain conditions on
        the row, so PostgreSQL can walk the rating index in order)."""
        return self.filter(_statuses(cutoffs, on)[status])

    def status_counts(self, cutoffs: Mapping[int, date], on: date) -> dict[str, int]:
        """How many rows of each status on ``on`` on ``cutoffs``' ladders, in one query."""
        counts = {status: Count("pk", filter=q) for status, q in _statuses(cutoffs, on).items()}
        return self.order_by().aggregate(**counts)

    def ranks_of(
        self, rows: Sequence[PlayerRating], cutoffs: Mapping[int, date], on: date
    ) -> dict[int, int]:
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
        ranked = self.of_status(RANKED, cutoffs, on).filter(rating__gte=lowest)
        counts = ranked.order_by().aggregate(**above)
        return {int(name.removeprefix("above_")): n + 1 for name, n in counts.items()}

    def with_rank(
        self, viewer: Viewer, cutoffs: Mapping[int, date], on: date
    ) -> PlayerRatingQuerySet:
        """Annotate ``rank``: the place the row takes among the ranked rows of its ladder that
        ``viewer`` may see, by rating, ties to the older row. Meaningful for ranked rows only:
        telling them apart is the caller's (no status CASE to compile here). One count per
        row: for a player's few ladders; a leaderboard page uses ``ranks_of``."""
        above = (
            PlayerRating.objects.listed_for(viewer)
            .filter(
                _statuses(cutoffs, on)[RANKED],
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
    def trends(self, today: date, days: int = TREND_DAYS) -> Any:
        """Per ladder and player, ``total``: the rating now minus the rating ``days`` days
        before ``today``, which is the sum of the changes since (the rating only moves with
        matches). A player who has not played since has no row: no trend."""
        since = today - timedelta(days=days)
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

    def of_match(self, match_id: int) -> RatingChangeQuerySet:
        """A match's changes, each with its player's previous match like ``with_previous``
        (a window over only these rows would see no earlier match: a subquery finds it)."""
        earlier = RatingChange.objects.filter(
            Q(played_on__lt=OuterRef("played_on"))
            | Q(played_on=OuterRef("played_on"), match_id__lt=OuterRef("match_id")),
            user=OuterRef("user"),
            ladder=OuterRef("ladder"),
        ).order_by("-played_on", "-match_id")
        return (
            self.filter(match_id=match_id)
            .annotate(
                previous_rd=Subquery(earlier.values("rd_after")[:1]),
                previous_played_on=Subquery(earlier.values("played_on")[:1]),
            )
            .order_by("side", "change")
        )

    def history(self, user: User, ladder: Ladder | None = None) -> RatingChangeQuerySet:
        """A player's changes, newest first, with their previous match (``with_previous``).

        Just the changes: ``ratings.histories.history_entries`` reads the players and games
        of a page of them, and sets the ladders the caller already has.
        """
        changes = self.filter(user=user)
        if ladder is not None:
            changes = changes.filter(ladder=ladder)
        return changes.with_previous().order_by("-played_on", "-match_id")


class PlayerRating(models.Model):
    """A player's state on a ladder right after their last rated match (not inflated to today)."""

    ladder = models.ForeignKey("clubs.Ladder", on_delete=models.CASCADE, related_name="ratings")
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
    established_until = models.DateField(
        null=True,
        blank=True,
        help_text="The last day with enough matches and an RD, grown for inactivity, within "
        "the ladder's ranked RD (RATINGS.md §8; ratings.models.established_until). Empty: none.",
    )
    updated_at = models.DateTimeField(auto_now=True)
    listing = models.CharField(
        max_length=6,
        choices=LISTINGS,
        default=PUBLIC,
        help_text="Who sees this row (ladder.clubs.access.listing_of): follows the player's "
        "membership of the ladder and whether their account is active.",
    )

    objects = PlayerRatingQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ladder", "user"], name="one_rating_per_ladder_player")
        ]
        indexes = [models.Index(fields=["ladder", "-rating"], name="rating_ladder_rank")]

    def __str__(self) -> str:
        return f"{self.user} on {self.ladder}: {format_rating(self.rating)}"

    @property
    def is_listed(self) -> bool:
        """Everyone sees this row (no "Hidden" tag for the few who see the others)."""
        return self.listing == PUBLIC

    @property
    def is_banned(self) -> bool:
        """Banned from the ladder: only moderators see this row."""
        return self.listing == BANNED

    def status_on(self, on: date, cutoff: date) -> str:
        """This row's status on ``on`` when ``cutoff`` is its ladder's ``active_since``: the
        rule of ``_statuses``, read off the row (for a player's few rows, compiling that CASE
        costs more than their whole query). tests/ratings/test_pages_player.py keeps the two
        in step."""
        if self.last_played is None or self.last_played < cutoff:
            return INACTIVE
        if self.established_until is not None and self.established_until >= on:
            return RANKED
        return PROVISIONAL

    def rd_on(self, on: date, params: Params) -> float:
        """The RD grown for inactivity up to ``on`` (RATINGS.md §3 step 1): what the pages
        show beside the rating, and what ranked status compares (§8)."""
        state = PlayerState(self.rating, self.rd, self.volatility, self.matches, self.last_played)
        return inflated_rd(state, on, params)


class RatingChange(models.Model):
    """What one rated match did to one player, with everything needed to explain it."""

    # No index of their own on the foreign keys: those of Meta lead with each of them
    # (match: one_change_per_match_player, user: change_player_history, ladder:
    # change_ladder_order), and every index is paid for by each row a replay rewrites.
    match = models.ForeignKey(
        "matches.Match", on_delete=models.CASCADE, related_name="rating_changes", db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        db_index=False,
    )
    # Copied from the match so histories sort and filter without a join.
    ladder = models.ForeignKey(
        "clubs.Ladder", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    played_on = models.DateField()
    side = models.CharField(max_length=1, choices=[("a", "A"), ("b", "B")])
    rating_before = models.FloatField()
    rd_before = models.FloatField()
    volatility_before = models.FloatField()
    rating_after = models.FloatField()
    rd_after = models.FloatField()
    volatility_after = models.FloatField()
    expected = models.FloatField(help_text="Expected score before the match (0–1).")
    outcome = models.FloatField(
        help_text="The result as the rating counted it (0–1): 1 or 0 when the margin is "
        "information, the margin-aware score under the score model."
    )
    won = models.BooleanField(help_text="The player's side won the match.")
    margin_multiplier = models.FloatField(
        default=1.0,
        help_text="How much the margin made the match count (RATINGS.md §3 step 2: m); "
        "1 for the narrowest win and under the score model.",
    )
    floor_applied = models.BooleanField(
        default=False,
        help_text="The wrong-way floor kept the rating where it was (RATINGS.md §3 step 9).",
    )
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


# ---- seasons (RULES.md "Seasons") --------------------------------------------------------


class SeasonQuerySet(models.QuerySet["Season"]):
    def current(self, on: date) -> Season | None:
        """The season that ``on`` falls in (seasons never overlap), or None."""
        return self.filter(starts_on__lte=on, ends_on__gte=on).first()

    def overlapping(self, starts_on: date, ends_on: date) -> SeasonQuerySet:
        """Seasons sharing at least one day with ``starts_on``–``ends_on`` (both included)."""
        return self.filter(starts_on__lte=ends_on, ends_on__gte=starts_on)

    def due_to_freeze(self, on: date) -> SeasonQuerySet:
        """Seasons over before ``on`` whose table has not been stored yet."""
        return self.filter(ends_on__lt=on, frozen_at__isnull=True)


class Season(models.Model):
    """A stretch of a ladder's calendar with its own table. Ratings carry across seasons;
    the table of a season that is over is stored once (``SeasonStanding``) and read from
    there ever after (ratings.seasons)."""

    ladder = models.ForeignKey("clubs.Ladder", on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(max_length=80)
    slug = models.SlugField(
        max_length=80, help_text="Used in the address: /ladders/<ladder>/seasons/<slug>/."
    )
    starts_on = models.DateField("first day")
    ends_on = models.DateField("last day")
    frozen_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="When the table as it stood at the season's end was stored (empty: not yet).",
    )

    objects = SeasonQuerySet.as_manager()

    class Meta:
        ordering = ["-starts_on"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "slug"], name="season_slug_per_ladder"),
            models.CheckConstraint(
                condition=Q(ends_on__gte=F("starts_on")), name="season_ends_after_start"
            ),
            # PostgreSQL also refuses two seasons of a ladder sharing a day (an exclusion
            # constraint, ratings/migrations/0007_seasons); ratings.seasons says why first.
        ]

    def __str__(self) -> str:
        return f"{self.ladder}: {self.name}"

    def get_absolute_url(self) -> str:
        return reverse("ladder:season", args=[self.ladder.slug, self.slug])

    def clean(self) -> None:
        """RULES.md "Seasons": the last day is not before the first, a ladder's seasons never
        share a day nor an address, and an archived season keeps its days (its table is
        stored)."""
        if self.starts_on is None or self.ends_on is None or self.ladder_id is None:
            return  # clean_fields() reports the missing value
        days = {}
        for field, what in (("starts_on", "The first day"), ("ends_on", "The last day")):
            try:
                parse_day(getattr(self, field), what)  # the one rule of days: 1900–2100
            except BadInput as exc:
                days[field] = exc.message
        if days:
            raise ValidationError(days)
        if self.ends_on < self.starts_on:
            raise ValidationError({"ends_on": "The last day cannot be before the first day."})
        if self.pk is not None and self.frozen_at is not None:
            before = Season.objects.filter(pk=self.pk).values_list("starts_on", "ends_on").first()
            if before is not None and before != (self.starts_on, self.ends_on):
                raise ValidationError(
                    f"{self.name} is over and its table is archived: its days can no longer change."
                )
        if (
            self.slug
            and Season.objects.filter(ladder_id=self.ladder_id, slug=self.slug)
            .exclude(pk=self.pk)
            .exists()
        ):
            raise ValidationError(
                {"slug": "This ladder already has a season at this address: choose another."}
            )
        clash = (
            Season.objects.filter(ladder_id=self.ladder_id)
            .exclude(pk=self.pk)
            .overlapping(self.starts_on, self.ends_on)
            .order_by("starts_on")
            .first()
        )
        if clash is not None:
            raise ValidationError(
                f"These days overlap {clash.name} ({clash.days_label}): a ladder's seasons "
                "never share a day."
            )

    @property
    def days_label(self) -> str:
        """ "1 Sep – 30 Nov 2026", as the pages show a season's days."""
        return format_days(self.starts_on, self.ends_on)

    def is_over(self, on: date) -> bool:
        return self.ends_on < on

    def is_current(self, on: date) -> bool:
        return self.starts_on <= on <= self.ends_on


class SeasonStanding(models.Model):
    """One line of a season's table as it stood at the season's end, stored when the season
    was over (ratings.seasons.freeze_season) and never rewritten: a later correction or
    replay changes the ratings, not the archive."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="standings")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    rank = models.PositiveIntegerField(help_text="Place among everyone who played that season.")
    rating = models.FloatField(help_text="The rating after the player's last match of the season.")
    change = models.FloatField(help_text="The rating at the season's end minus at its start.")
    matches = models.PositiveIntegerField()
    wins = models.PositiveIntegerField()
    losses = models.PositiveIntegerField()

    class Meta:
        ordering = ["season", "rank"]
        constraints = [
            models.UniqueConstraint(
                fields=["season", "user"], name="one_standing_per_season_player"
            )
        ]

    def __str__(self) -> str:
        return f"{self.season}: {self.rank}. {self.user}"
