"""Integrity: flags a moderator reviews, bans, and their own append-only trail.

A ``Flag`` is what the detectors (``detectors.py``) found on a ladder, stored so that a
moderator's decision (keep, dismiss) sticks to it: a dismissed flag stays dismissed while
its evidence (``fingerprint``) is the same. A ``Ban`` bars a member from a ladder and
withholds their rated matches from ``void_since`` on (``BanVoid`` records which, and the
state each goes back to when the ban is lifted). Every ban, lift and decision on a flag
writes one ``IntegrityEntry``, which nothing may alter afterwards.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from ladder.clubs.models import Ladder
from ladder.matches.models import MATCH_STATES, Match

WIN_TRADING = "win_trading"
FARMING = "farming"
CLOSED_POOL = "closed_pool"
SANDBAGGING = "sandbagging"
REPORT_PATTERN = "report_pattern"
FLAG_KINDS = (
    (WIN_TRADING, "Win trading"),
    (FARMING, "Farming"),
    (CLOSED_POOL, "Closed pool"),
    (SANDBAGGING, "Sandbagging"),
    (REPORT_PATTERN, "Report pattern"),
)

OPEN = "open"
KEPT = "kept"
DISMISSED = "dismissed"
FLAG_STATES = ((OPEN, "Open"), (KEPT, "Kept"), (DISMISSED, "Dismissed"))


class IntegritySettings(models.Model):
    """A ladder's detector thresholds (overrides of ``detectors.Thresholds``' defaults) and
    the board version its stored flags were computed at."""

    ladder = models.OneToOneField(Ladder, on_delete=models.CASCADE, related_name="integrity")
    thresholds = models.JSONField(
        default=dict,
        blank=True,
        help_text='Overrides of the detectors\' defaults, e.g. {"trade_min_matches": 8}.',
    )
    computed_version = models.BigIntegerField(
        null=True, blank=True, help_text="The ladder's board_version when flags were computed."
    )
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "integrity settings"

    def __str__(self) -> str:
        return f"Integrity settings of {self.ladder}"


class FlagQuerySet(models.QuerySet["Flag"]):
    def of(self, ladder: Ladder) -> FlagQuerySet:
        return self.filter(ladder=ladder).order_by("state", "kind", "pk")


class Flag(models.Model):
    """One finding of a detector on a ladder: who, which matches, why, and the decision."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="flags")
    kind = models.CharField(max_length=20, choices=FLAG_KINDS)
    key = models.CharField(
        max_length=200, help_text="The flag's subject: its players' ids, sorted, joined by '-'."
    )
    players = models.JSONField(default=list, help_text="The players' user ids.")
    matches = models.JSONField(default=list, help_text="The evidence: match ids.")
    reason = models.TextField()
    evidence = models.JSONField(default=dict, help_text="The numbers behind the reason.")
    fingerprint = models.CharField(max_length=64, help_text="A digest of the evidence.")
    state = models.CharField(max_length=10, choices=FLAG_STATES, default=OPEN)
    current = models.BooleanField(
        default=True, help_text="Whether the detectors still find it (kept for its decision)."
    )
    note = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    objects = FlagQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ladder", "kind", "key"], name="flag_once_per_subject")
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} on {self.ladder}: {self.key}"


class BanQuerySet(models.QuerySet["Ban"]):
    def active(self) -> BanQuerySet:
        return self.filter(lifted_at__isnull=True)


class Ban(models.Model):
    """A member barred from a ladder by a moderator, with the reason they are shown."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="bans")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bans"
    )
    reason = models.TextField()
    void_since = models.DateField(
        null=True, blank=True, help_text="Rated matches from this date stop counting; empty: all."
    )
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    lift_reason = models.TextField(blank=True)

    objects = BanQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["ladder", "user"],
                condition=Q(lifted_at__isnull=True),
                name="ban_one_active_per_member",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} banned from {self.ladder}"

    @property
    def is_active(self) -> bool:
        return self.lifted_at is None


class BanVoid(models.Model):
    """A rated match a ban withheld, and the state lifting the ban gives it back."""

    ban = models.ForeignKey(Ban, on_delete=models.CASCADE, related_name="voids")
    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="+")
    restore_state = models.CharField(max_length=10, choices=MATCH_STATES)
    rated_at = models.DateTimeField(
        null=True, blank=True, help_text="When it was first rated: a restored match is not new."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ban", "match"], name="banvoid_once_per_ban")
        ]

    def __str__(self) -> str:
        return f"Match {self.match_id} withheld by ban {self.ban_id}"


INTEGRITY_ACTIONS = (
    ("ban", "Banned"),
    ("lift", "Ban lifted"),
    ("keep", "Flag kept"),
    ("dismiss", "Flag dismissed"),
    ("reopen", "Flag reopened on new evidence"),
)


class IntegrityEntryImmutable(Exception):
    """Raised on any attempt to change or delete an integrity entry."""


_IMMUTABLE = "Integrity entries are append-only: they cannot be changed or deleted."


class IntegrityEntryQuerySet(models.QuerySet["IntegrityEntry"]):
    def update(self, **kwargs: object) -> int:
        raise IntegrityEntryImmutable(_IMMUTABLE)

    def delete(self) -> tuple[int, dict[str, int]]:
        raise IntegrityEntryImmutable(_IMMUTABLE)

    def _raw_delete(self, using: str | None) -> int:
        raise IntegrityEntryImmutable(_IMMUTABLE)


class IntegrityEntry(models.Model):
    """One moderation decision on a ladder: who (None = the system), when, what, why."""

    ladder = models.ForeignKey(Ladder, on_delete=models.PROTECT, related_name="+")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    at = models.DateTimeField(default=timezone.now)
    action = models.CharField(max_length=10, choices=INTEGRITY_ACTIONS)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    ban = models.ForeignKey(Ban, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    flag = models.ForeignKey(
        Flag, on_delete=models.PROTECT, null=True, blank=True, related_name="entries"
    )
    text = models.TextField(blank=True, help_text="The reason or note.")
    details = models.JSONField(default=dict, blank=True)

    objects = IntegrityEntryQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "integrity entries"
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"{self.get_action_display()} on {self.ladder_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding or kwargs.get("update_fields"):
            raise IntegrityEntryImmutable(_IMMUTABLE)
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise IntegrityEntryImmutable(_IMMUTABLE)
