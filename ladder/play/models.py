"""Getting a game: challenges, open games, the ladder's rules for them, and calendar feeds.

The rules live in ``services.py`` (the only code that changes these rows); RULES.md
"Challenges and open games" and "Calendar" describe them.
"""

from __future__ import annotations

import secrets
from datetime import date, datetime
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.crypto import salted_hmac

from accounts.models import User
from ladder.clubs.models import Ladder
from ladder.matches.models import Match

# A challenge's and an open game's states.
OPEN = "open"
SCHEDULED = "scheduled"
PLAYED = "played"
DECLINED = "declined"
CANCELLED = "cancelled"
EXPIRED = "expired"
CHALLENGE_STATES = (
    (OPEN, "Waiting for an answer"),
    (SCHEDULED, "Scheduled"),
    (PLAYED, "Played"),
    (DECLINED, "Declined"),
    (CANCELLED, "Cancelled"),
    (EXPIRED, "Expired unanswered"),
)
GAME_STATES = (
    (OPEN, "Open: players wanted"),
    (SCHEDULED, "Full: scheduled"),
    (PLAYED, "Played"),
    (CANCELLED, "Cancelled"),
)
LIVE = (OPEN, SCHEDULED)  # states that can still change

ANYONE = "anyone"
PLACES = "places"
RATING = "rating"
CHALLENGE_SCOPES = (
    (ANYONE, "Anyone on the ladder"),
    (PLACES, "Members within N places"),
    (RATING, "Members within ±R rating"),
)
MAX_PROPOSED_TIMES = 3
MAX_MESSAGE_LENGTH = 500
MAX_PLACE_LENGTH = 120


class PlaySettings(models.Model):
    """A ladder's rules for challenges (one row per ladder; the defaults when it has none)."""

    ladder = models.OneToOneField(Ladder, on_delete=models.CASCADE, related_name="play_settings")
    challenge_scope = models.CharField(
        "who may be challenged", max_length=8, choices=CHALLENGE_SCOPES, default=ANYONE
    )
    challenge_places = models.PositiveSmallIntegerField(
        "N places", default=5, validators=[MinValueValidator(1)]
    )
    challenge_rating = models.PositiveIntegerField(
        "±R rating",
        default=500,
        validators=[MinValueValidator(1)],
        help_text="In rating points: 500 is ±0.50 as the ladder shows ratings.",
    )
    max_open_challenges = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="Challenges a member may have waiting for an answer at once.",
    )
    cooldown_days = models.PositiveSmallIntegerField(
        default=7,
        validators=[MaxValueValidator(365)],
        help_text="Days after a challenge ends before the same pair may start another.",
    )
    expiry_days = models.PositiveSmallIntegerField(
        default=7,
        validators=[MinValueValidator(1), MaxValueValidator(60)],
        help_text="Days a challenge waits for an answer before it expires.",
    )

    class Meta:
        verbose_name_plural = "play settings"

    def __str__(self) -> str:
        return f"Challenge rules of {self.ladder}"

    @classmethod
    def of(cls, ladder: Ladder) -> PlaySettings:
        """The ladder's rules: its row, or the defaults (unsaved) when it has none."""
        found = cls.objects.filter(ladder=ladder).first()
        return found or cls(ladder=ladder)


class Scheduled(models.Model):
    """What a challenge and an open game share once arranged: a time, a place, the match."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="+")
    starts_at = models.DateTimeField(null=True, blank=True)
    place = models.CharField(max_length=MAX_PLACE_LENGTH, blank=True)
    match = models.ForeignKey(
        Match,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The match reported from it (a void or cancelled report lets go of it).",
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    # Raised at each change a calendar should pick up (iCalendar SEQUENCE).
    sequence = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True

    @property
    def day(self) -> date:
        """The club's date it is arranged for (today while no time is agreed)."""
        return timezone.localdate(self.starts_at) if self.starts_at else timezone.localdate()

    @property
    def has_started(self) -> bool:
        """Whether its time has come: its result is reported from then on, never before
        (issue 37: "Played" on Monday for Wednesday's challenge)."""
        return self.starts_at is not None and self.starts_at <= timezone.now()


class Challenge(Scheduled):
    """A member challenges others (their side: them and their partners; the other side: the
    challenged) with up to three times; the side that did not propose them answers."""

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_made"
    )
    message = models.TextField(blank=True, max_length=MAX_MESSAGE_LENGTH)
    proposed_times = models.JSONField(default=list, help_text="ISO 8601 times, at most three.")
    proposed_by = models.CharField(
        max_length=1, default="a", help_text="The side whose times wait for an answer."
    )
    state = models.CharField(max_length=10, choices=CHALLENGE_STATES, default=OPEN)
    expires_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["state", "expires_at"], name="challenge_state_expiry")]

    def __str__(self) -> str:
        return f"Challenge {self.pk} on {self.ladder}"

    def get_absolute_url(self) -> str:
        return f"/challenges/#challenge-{self.pk}"

    def side(self, side: str) -> list[User]:
        return [p.user for p in self.players.all() if p.side == side]

    @property
    def side_a(self) -> list[User]:
        """The challenger and their partners."""
        return self.side("a")

    @property
    def side_b(self) -> list[User]:
        """The challenged."""
        return self.side("b")

    def side_of(self, user: User) -> str | None:
        return next((p.side for p in self.players.all() if p.user_id == user.pk), None)

    @property
    def proposed_datetimes(self) -> list[datetime]:
        """The proposed times as aware datetimes, in order."""
        return [datetime.fromisoformat(t) for t in self.proposed_times]

    @property
    def answering_side(self) -> str:
        return "b" if self.proposed_by == "a" else "a"

    @property
    def players_list(self) -> list[User]:
        return [p.user for p in self.players.all()]


class ChallengePlayer(models.Model):
    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    side = models.CharField(max_length=1, choices=(("a", "Challenger"), ("b", "Challenged")))

    class Meta:
        ordering = ["side", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "user"], name="challenge_player_once")
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.side})"


class OpenGame(Scheduled):
    """A game a member posts for others in a level range to join; full means scheduled."""

    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games_hosted"
    )
    team_size = models.PositiveSmallIntegerField(
        choices=((1, "Singles"), (2, "Doubles")), default=1
    )
    # In rating points, as the API gives ratings (4500 reads "4.50"); empty: no bound.
    level_min = models.PositiveIntegerField(null=True, blank=True, help_text="Lowest rating.")
    level_max = models.PositiveIntegerField(null=True, blank=True, help_text="Highest rating.")
    state = models.CharField(max_length=10, choices=GAME_STATES, default=OPEN)

    class Meta:
        ordering = ["starts_at", "pk"]

    def __str__(self) -> str:
        return f"Open game {self.pk} on {self.ladder}"

    def get_absolute_url(self) -> str:
        return f"/ladders/{self.ladder.slug}/open-games/#game-{self.pk}"

    @property
    def capacity(self) -> int:
        return 2 * self.team_size

    @property
    def players_list(self) -> list[User]:
        return [p.user for p in self.players.all()]

    @property
    def places_left(self) -> int:
        return self.capacity - len(self.players.all())


class OpenGamePlayer(models.Model):
    game = models.ForeignKey(OpenGame, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["joined_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="game_player_once")]

    def __str__(self) -> str:
        return f"{self.user} in game {self.game_id}"


def new_feed_token() -> str:
    return secrets.token_urlsafe(24)


def password_mark(user: User) -> str:
    """A keyed digest of the member's password hash (as Django's session auth hash): it
    changes with the password, so a feed address made before a change stops working."""
    return salted_hmac("ladder.play.CalendarFeed", user.password, algorithm="sha256").hexdigest()


class CalendarFeed(models.Model):
    """A member's private calendar address: the secret in it is the only key (no session);
    a new one replaces it, and the old address answers 404 from then on. So does an address
    made before the member's password changed (``password_mark``): a leaked address dies
    with the password it was leaked with (RULES.md "Calendar")."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feed"
    )
    token = models.CharField(max_length=64, unique=True, default=new_feed_token)
    created_at = models.DateTimeField(default=timezone.now)
    password_mark = models.CharField(max_length=64, blank=True)

    def __str__(self) -> str:
        return f"Calendar feed of {self.user}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.password_mark:  # made for the password the member has now
            self.password_mark = password_mark(self.user)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return f"/calendar/{self.token}.ics"

    @property
    def is_current(self) -> bool:
        """Made since the member's last password change (and the account is open)."""
        return self.user.is_active and self.password_mark == password_mark(self.user)
