"""Matches: a reported result, its players and games, disputes, and the audit trail.

A match moves through the states of RULES.md "Matches"; the rules live in
ladder/matches/operations.py (the state machine, the only code that changes a match),
with who may take each step in permissions.py and what input is valid in validation.py.
Every change writes one AuditEntry, which nothing may alter afterwards. The tables
kept their names (``ladder_match`` …) when the models moved here from ``ladder.models``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, TypedDict

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from ladder.clubs.models import Ladder
from ratings.engine.types import MAX_TEAM_SIZE

PENDING = "pending"
CONFIRMED = "confirmed"
DISPUTED = "disputed"
CORRECTED = "corrected"
VOIDED = "voided"
CANCELLED = "cancelled"
EXPIRED = "expired"

MATCH_STATES = (
    (PENDING, "Waiting for confirmation"),
    (CONFIRMED, "Confirmed"),
    (DISPUTED, "Disputed"),
    (CORRECTED, "Corrected by a moderator"),
    (VOIDED, "Voided by a moderator"),
    (CANCELLED, "Cancelled by the reporter"),
    (EXPIRED, "Expired unconfirmed"),
)
# States whose score counts for ratings.
RATED_STATES = (CONFIRMED, CORRECTED)
# States a duplicate report is checked against: the match still stands or may stand.
LIVE_STATES = (PENDING, CONFIRMED, DISPUTED, CORRECTED)
SIDES = (("a", "Side A"), ("b", "Side B"))


class MatchQuerySet(models.QuerySet["Match"]):
    def with_details(self) -> MatchQuerySet:
        """Everything a match page or the API shows, in a fixed number of queries."""
        return self.select_related("ladder", "reporter").prefetch_related(
            models.Prefetch(
                "players",
                queryset=MatchPlayer.objects.select_related("user").order_by("side", "position"),
            ),
            models.Prefetch("games", queryset=Game.objects.order_by("number")),
        )

    def with_history(self) -> MatchQuerySet:
        """with_details() plus disputes and the audit trail, for a match page."""
        return self.with_details().prefetch_related(
            models.Prefetch(
                "disputes",
                queryset=Dispute.objects.select_related("raised_by", "resolved_by").order_by(
                    "created_at", "pk"
                ),
            ),
            models.Prefetch(
                "audit", queryset=AuditEntry.objects.select_related("actor").order_by("at", "pk")
            ),
        )


class Match(models.Model):
    """One reported match: two sides of ladder.team_size players and the games they played."""

    RATED_STATES = RATED_STATES
    LIVE_STATES = LIVE_STATES

    ladder = models.ForeignKey(Ladder, on_delete=models.PROTECT, related_name="matches")
    played_on = models.DateField()
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reported_matches"
    )
    state = models.CharField(max_length=10, choices=MATCH_STATES, default=PENDING)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When it was confirmed, corrected, voided, cancelled or expired.",
    )
    needs_rating = models.BooleanField(
        default=False,
        help_text="Set when the match enters or leaves a rated state; the ratings pipeline clears it.",
    )
    rated_at = models.DateTimeField(null=True, blank=True)
    report_key = models.CharField(
        max_length=64,
        blank=True,
        default="",
        db_default="",  # the imports' COPY and other raw inserts leave it out
        help_text="The API client's Idempotency-Key for this report: a repeat answers this match.",
    )

    objects = MatchQuerySet.as_manager()

    # Set (not stored) on the match report_match returns for a repeated key: nothing was made.
    repeated = False

    class Meta:
        db_table = "ladder_match"  # its name from before the move
        verbose_name_plural = "matches"
        ordering = ["-played_on", "-pk"]
        indexes = [
            models.Index(fields=["ladder", "played_on"], name="match_ladder_played_on"),
            # Every ladder's matches, newest first (the API's list), read page by page.
            models.Index(fields=["-played_on", "-id"], name="match_newest"),
            models.Index(fields=["state", "created_at"], name="match_state_created"),
            models.Index(
                fields=["ladder"],
                condition=Q(needs_rating=True),
                name="match_needs_rating",
            ),
        ]
        constraints = [
            # One report per key and reporter; its index is the repeat's lookup.
            models.UniqueConstraint(
                fields=["reporter", "report_key"],
                condition=~Q(report_key=""),
                name="match_report_key_unique",
            ),
        ]

    def __str__(self) -> str:
        a = " & ".join(u.name for u in self.side_a_players)
        b = " & ".join(u.name for u in self.side_b_players)
        return f"{a} v {b}, {self.played_on:%d %b %Y}"

    def get_absolute_url(self) -> str:
        return f"/matches/{self.pk}/"  # RULES.md "Addresses"

    # ---- players and score (use the prefetched rows of MatchQuerySet.with_details) --------

    def _rows(self, side: str) -> list[MatchPlayer]:
        return sorted((p for p in self.players.all() if p.side == side), key=lambda p: p.position)

    @property
    def side_a_rows(self) -> list[MatchPlayer]:
        """Side A's MatchPlayer rows (user and stats), in order."""
        return self._rows("a")

    @property
    def side_b_rows(self) -> list[MatchPlayer]:
        return self._rows("b")

    def _side(self, side: str) -> list[User]:
        return [p.user for p in self._rows(side)]

    @property
    def side_a_players(self) -> list[User]:
        return self._side("a")

    @property
    def side_b_players(self) -> list[User]:
        return self._side("b")

    def side_of(self, user: User | AnonymousUser | None) -> str | None:
        """ "a" or "b" for a player of this match, None for anyone else."""
        user_id = getattr(user, "pk", None)
        return next((p.side for p in self.players.all() if p.user_id == user_id), None)

    @property
    def reporter_side(self) -> str | None:
        return self.side_of(self.reporter)

    @property
    def opponents(self) -> list[User]:
        """The players of the side opposing the reporter: they confirm or dispute. Every
        player, when a club night organiser who did not play reported it."""
        side = self.reporter_side
        if side is None:
            return self.side_a_players + self.side_b_players
        return self.side_b_players if side == "a" else self.side_a_players

    @property
    def game_scores(self) -> list[tuple[int, int]]:
        """The games as (side A, side B) points, in order."""
        return [(g.a_points, g.b_points) for g in sorted(self.games.all(), key=lambda g: g.number)]

    @property
    def score_text(self) -> str:
        """ "21-15 19-21 21-18", from side A's view."""
        return " ".join(f"{a}-{b}" for a, b in self.game_scores)

    @property
    def winner_side(self) -> str | None:
        """ "a" or "b" by games won; None when there are no games."""
        scores = self.game_scores
        if not scores:
            return None
        won_by_a = sum(1 for a, b in scores if a > b)
        return "a" if won_by_a * 2 > len(scores) else "b"

    # ---- time --------------------------------------------------------------------------

    @property
    def expires_at(self) -> datetime:
        """When a pending report stops being confirmable (created + confirm_within_hours)."""
        return self.created_at + timedelta(hours=self.ladder.confirm_within_hours)

    def is_expired(self, now: datetime | None = None) -> bool:
        """Expired, or pending past its confirmation window even if the sweep has not run yet."""
        if self.state == EXPIRED:
            return True
        return self.state == PENDING and (now or timezone.now()) > self.expires_at


class MatchPlayer(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="match_players"
    )
    side = models.CharField(max_length=1, choices=SIDES)
    position = models.PositiveSmallIntegerField(
        validators=[MaxValueValidator(MAX_TEAM_SIZE - 1)],
        help_text="Order within the side, 0-based.",
    )
    stats = models.JSONField(
        null=True, blank=True, help_text='Performance stats, e.g. {"kills": 21, "deaths": 14}.'
    )

    class Meta:
        db_table = "ladder_matchplayer"  # its name from before the move
        ordering = ["match", "side", "position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "user"], name="matchplayer_once_per_match"),
            models.UniqueConstraint(
                fields=["match", "side", "position"], name="matchplayer_one_per_position"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} (side {self.side.upper()})"


class Game(models.Model):
    """One game's points, from side A's view."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveSmallIntegerField(help_text="1-based.")
    a_points = models.PositiveSmallIntegerField("side A points")
    b_points = models.PositiveSmallIntegerField("side B points")

    class Meta:
        db_table = "ladder_game"  # its name from before the move
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="game_number_unique")
        ]

    def __str__(self) -> str:
        return f"Game {self.number}: {self.a_points}-{self.b_points}"


DISPUTE_RESOLUTIONS = (
    ("upheld", "Upheld (the report stands)"),
    ("corrected", "Corrected"),
    ("voided", "Voided"),
)


class Dispute(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="disputes")
    raised_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="disputes_raised"
    )
    reason = models.TextField()
    proposed_games = models.JSONField(
        null=True,
        blank=True,
        help_text="The score the disputing player says is right: [[a, b], …].",
    )
    created_at = models.DateTimeField(default=timezone.now)
    # NULL while the dispute is open (the shared contract); one of the resolutions after.
    resolution = models.CharField(  # noqa: DJ001
        max_length=10, choices=DISPUTE_RESOLUTIONS, null=True, blank=True
    )
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="disputes_resolved",
    )
    resolution_reason = models.TextField(blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "ladder_dispute"  # its name from before the move
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"Dispute on match {self.match_id} by {self.raised_by}"

    @property
    def is_open(self) -> bool:
        return self.resolution is None

    @property
    def proposed_score_text(self) -> str:
        return " ".join(f"{a}-{b}" for a, b in self.proposed_games or [])


AUDIT_ACTIONS = (
    ("report", "Reported"),
    ("confirm", "Confirmed"),
    ("dispute", "Disputed"),
    ("cancel", "Cancelled"),
    ("edit", "Changed by the reporter"),
    ("expire", "Expired"),
    ("resolve_uphold", "Dispute resolved: report upheld"),
    ("resolve_correct", "Dispute resolved: score corrected"),
    ("resolve_void", "Dispute resolved: match voided"),
    ("correct", "Corrected"),
    ("void", "Voided"),
    ("withhold", "Withheld: a player was banned"),
    ("restore", "Restored: the ban was lifted"),
)


class Snapshot(TypedDict, total=False):
    """What an audit entry's ``before`` and ``after`` hold of a match (operations.snapshot)."""

    played_on: str  # ISO date
    side_a: list[str]  # usernames, in order
    side_b: list[str]
    games: list[list[int]]  # [side A's points, side B's]
    stats: dict[str, dict[str, float]]  # by username, for ladders that keep stats
    proposed_games: list[list[int]] | None  # a dispute's after: the score it proposes


class AuditEntryImmutable(Exception):
    """Raised on any attempt to change or delete an audit entry."""


_IMMUTABLE = "Audit entries are append-only: they cannot be changed or deleted."


class AuditEntryQuerySet(models.QuerySet["AuditEntry"]):
    def update(self, **kwargs: object) -> int:
        raise AuditEntryImmutable(_IMMUTABLE)

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AuditEntryImmutable(_IMMUTABLE)

    def bulk_update(
        self, objs: Iterable[AuditEntry], fields: Iterable[str], batch_size: int | None = None
    ) -> int:
        raise AuditEntryImmutable(_IMMUTABLE)

    def _raw_delete(self, using: str | None) -> int:  # what cascades use
        raise AuditEntryImmutable(_IMMUTABLE)


class AuditEntry(models.Model):
    """One transition of a match: who (None = the system), when, from/to state, before/after.

    Append-only: the ORM refuses to save an existing entry or delete one (and on
    PostgreSQL a trigger refuses UPDATE and DELETE, see migration 0003).
    """

    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="audit")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="audit_entries",
        help_text="Empty for the system (e.g. expiry).",
    )
    at = models.DateTimeField(default=timezone.now)
    action = models.CharField(max_length=20, choices=AUDIT_ACTIONS)
    from_state = models.CharField(max_length=10, choices=MATCH_STATES, blank=True)
    to_state = models.CharField(max_length=10, choices=MATCH_STATES)
    before = models.JSONField(null=True, blank=True, help_text="Date, players and score before.")
    after = models.JSONField(null=True, blank=True, help_text="Date, players and score after.")
    reason = models.TextField(blank=True)

    objects = AuditEntryQuerySet.as_manager()

    class Meta:
        db_table = "ladder_auditentry"  # its name from before the move
        verbose_name_plural = "audit entries"
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"{self.get_action_display()} (match {self.match_id})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding or kwargs.get("update_fields"):
            raise AuditEntryImmutable(_IMMUTABLE)
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise AuditEntryImmutable(_IMMUTABLE)

    @property
    def actor_name(self) -> str:
        return self.actor.name if self.actor else "System"


# ---- notifications -----------------------------------------------------------------------

TO_CONFIRM = "to_confirm"
NOTIFICATION_KINDS = (
    (TO_CONFIRM, "A match to confirm"),
    ("confirmed", "Your report was confirmed"),
    ("disputed", "Your report was disputed"),
    ("to_settle", "A dispute to settle"),
    ("resolved", "A dispute was settled"),
    ("corrected", "A match was corrected"),
    ("voided", "A match was voided"),
    ("rating", "Your rating changed"),
    ("moderation", "A moderation decision"),
    ("partner", "A report names you as a partner"),
    ("edited", "A report was changed"),
    ("cancelled", "A report was cancelled"),
    ("challenge", "A challenge"),
    ("open_game", "An open game"),
)

# What a member may be e-mailed about (the site's notifications are always written): each
# choice of the notification settings, and what it covers.
MAIL_EVENTS = (
    ("to_confirm", "A match waits for my confirmation (reported, or changed by its reporter)"),
    ("partner", "A partner reports a match I played"),
    ("confirmed", "My report is confirmed"),
    ("disputed", "A dispute about my report (moderators: a dispute to settle)"),
    ("decided", "A moderator decides on my match"),
    ("cancelled", "A report waiting for me is cancelled"),
    ("challenge", "Challenges: one to me, an answer, a cancellation or expiry"),
    ("open_game", "Open games I am in: someone joins or leaves, it is full or cancelled"),
    ("moderation", "A moderator bans me or lifts my ban, or my rating is recalculated after one"),
)


class NotificationQuerySet(models.QuerySet["Notification"]):
    def unread(self) -> NotificationQuerySet:
        return self.filter(read_at__isnull=True)


class Notification(models.Model):
    """One thing a member is told on the site (the e-mails say the same): written in the
    transaction that made it true, so a notification exists exactly when its cause does."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=12, choices=NOTIFICATION_KINDS)
    match = models.ForeignKey(
        Match,
        on_delete=models.CASCADE,
        related_name="+",
        null=True,
        blank=True,
        help_text="The match it is about; empty for a decision about a member (a ban).",
    )
    link = models.CharField(
        max_length=200, blank=True, help_text="Where it leads when it is not about one match."
    )
    text = models.CharField(max_length=300)
    created_at = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)
    # Who caused it, where a member did (a challenge, a join): the daily cap on what one
    # member's actions send others counts these (RULES.md "Challenges and open games").
    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        related_name="+",
        null=True,
        blank=True,
    )
    # When it was also e-mailed (the open games' e-mails are batched: one an hour per game).
    mailed_at = models.DateTimeField(null=True, blank=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["user", "-created_at"], name="notification_newest"),
            models.Index(
                fields=["user"], condition=Q(read_at__isnull=True), name="notification_unread"
            ),
            models.Index(
                fields=["sender", "-created_at"],
                condition=Q(sender__isnull=False),
                name="notification_sender",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} for {self.user_id}"

    @property
    def url(self) -> str:
        """Where the notification leads: its match's page, or its link."""
        return Match(pk=self.match_id).get_absolute_url() if self.match_id else self.link


class MailSettings(models.Model):
    """Which e-mails a member wants (``MAIL_EVENTS``); without a row, all of them."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="mail_settings",
    )
    muted = models.JSONField(
        default=list, blank=True, help_text="The MAIL_EVENTS keys this member is not e-mailed."
    )

    class Meta:
        verbose_name = "e-mail settings"
        verbose_name_plural = "e-mail settings"

    def __str__(self) -> str:
        return f"E-mail settings of {self.user_id}"
