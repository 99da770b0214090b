"""Ladders and who plays on them.

A ladder holds its scoring format, its rating method and every rating parameter of
RATINGS.md §2 and §5 (``Ladder.params()`` is the one place that turns them into the
engine's ``Params``), and its match policy. A membership holds a member's
self-assessment and the starting rating and RD it gave (RATINGS.md §4).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Count, Exists, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

from accounts.models import RequestUser, User
from core.cache import pages_changed
from ladder.clubs import hooks
from ladder.clubs.formatting import format_rating, format_rd
from ladder.clubs.params import (
    DEFAULTS,
    METHOD_OPTIONS,
    PARAM_FIELDS,
    field_options,
    ladder_values,
    method_option_errors,
    problem_field,
    problem_message,
    sentence,
)
from ratings.engine.errors import ParamsError
from ratings.engine.formats import (
    FORMAT_CHOICES,
    GENERIC,
    GENERIC_BEST_OF,
    ScoringFormat,
    get_format,
)
from ratings.engine.initial import CERTAINTY_CHOICES, LEVEL_CHOICES, default_state, initial_state
from ratings.engine.replay import validate_params
from ratings.engine.settings import TEAM_METHOD_LABELS
from ratings.engine.types import MAX_TEAM_SIZE, EngineError, Params, PlayerState, preset

GENERIC_FORMAT = GENERIC

# Choices that come from the engine are callables, so migrations refer to them instead of
# copying the engine's wording (a reworded level must not need a migration).


def level_choices() -> list[tuple[Decimal, str]]:
    """The self-assessment levels of RATINGS.md §4 (2.0–6.0 in 0.5 steps), keyed by Decimal."""
    return [(Decimal(value), label) for value, label in LEVEL_CHOICES]


def certainty_choices() -> tuple[tuple[str, str], ...]:
    return CERTAINTY_CHOICES


def scoring_format_choices() -> tuple[tuple[str, str], ...]:
    return FORMAT_CHOICES


# RATINGS.md §2 and §3 step 9: the wrong-way floor is always on for a ladder (only
# backtest and tune may switch it off), so it has no field and no method option.
LADDER_FLOOR = True

# RATINGS.md §8: who is ranked. Per ladder; these are the defaults.
RANKED_MIN_MATCHES = 5
RANKED_RD = 120.0


class LadderQuerySet(models.QuerySet["Ladder"]):
    def with_member_count(self) -> LadderQuerySet:
        """Annotate ``member_count`` with a subquery (a join and GROUP BY would sort every
        membership row of every ladder)."""
        members = (
            Membership.objects.filter(ladder=OuterRef("pk"))
            .order_by()
            .values("ladder")
            .annotate(n=Count("pk"))
            .values("n")
        )
        return self.annotate(
            member_count=Coalesce(Subquery(members, output_field=models.IntegerField()), 0)
        )

    def with_is_member(self, user: RequestUser | None) -> LadderQuerySet:
        """Annotate ``is_member`` for ``user`` (False for visitors)."""
        if not isinstance(user, User) or not user.is_authenticated:
            return self.annotate(is_member=models.Value(False, output_field=models.BooleanField()))
        return self.annotate(
            is_member=Exists(Membership.objects.filter(ladder=OuterRef("pk"), user=user))
        )


class Ladder(models.Model):
    # Basics
    name = models.CharField(max_length=80)
    slug = models.SlugField(
        max_length=80, unique=True, help_text="Used in the address: /ladders/<slug>/."
    )
    description = models.TextField(blank=True, max_length=2000)
    is_public = models.BooleanField(
        "public",
        default=True,
        help_text="Public ladders are listed for everyone and anyone signed in may join. "
        "Private ones are seen only by their members and moderators; a moderator adds members.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    # Scoring
    team_size = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_TEAM_SIZE)],
        help_text="Players per side: 1 singles, 2 doubles, up to 5.",
    )
    scoring_format = models.CharField(
        max_length=20, choices=scoring_format_choices, default="badminton_21"
    )
    best_of = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Generic format only: games in a match, odd, 1–7. Badminton formats set it themselves.",
    )
    points_per_game = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Generic format only: the usual points to win a game, used to weigh the margin. "
        "Badminton formats set it themselves.",
    )

    # Rating method and parameters (RATINGS.md §2, §5): each field is a setting of the
    # engine's one list (ratings/engine/settings.py), its default, words, choices and bounds
    # from there (ladder.clubs.params.field_options); here only the column each is kept in.
    team_method = models.CharField(max_length=24, **field_options("team_method"))
    composite_rd = models.CharField(max_length=16, **field_options("composite_rd"))
    tau = models.FloatField(**field_options("tau"))
    scale_factor = models.FloatField(**field_options("scale_factor"))
    repetition_alpha = models.FloatField(**field_options("repetition_alpha"))
    diversity_threshold = models.FloatField(**field_options("diversity_threshold"))
    outcome_model = models.CharField(max_length=24, **field_options("outcome_model"))
    margin_boost = models.FloatField(**field_options("margin_boost"))
    match_win_bonus = models.FloatField(**field_options("match_win_bonus"))
    margin_weight = models.FloatField(**field_options("margin_weight"))
    margin_clamp = models.FloatField(**field_options("margin_clamp"))
    rating_center = models.FloatField(**field_options("rating_center"))
    rating_min = models.FloatField(**field_options("rating_min"))
    rating_max = models.FloatField(**field_options("rating_max"))
    rd_max = models.FloatField(**field_options("rd_max"))
    initial_rating = models.FloatField(**field_options("initial_rating"))
    initial_rd = models.FloatField(**field_options("initial_rd"))
    initial_volatility = models.FloatField(**field_options("initial_volatility"))
    newcomer_start = models.CharField(max_length=20, **field_options("newcomer_start"))
    lookback_days = models.PositiveIntegerField(**field_options("lookback_days"))
    rating_period_days = models.PositiveIntegerField(**field_options("rating_period_days"))
    season_start_periods = models.PositiveIntegerField(**field_options("season_start_periods"))
    ranked_min_matches = models.PositiveIntegerField(
        "ranked after",
        default=RANKED_MIN_MATCHES,
        validators=[MinValueValidator(1)],
        help_text="Rated matches a player needs to be ranked (RATINGS.md §8).",
    )
    ranked_rd = models.FloatField(
        "ranked RD",
        default=RANKED_RD,
        help_text="A player is ranked while their RD, grown for inactivity up to today, is at "
        "most this (RATINGS.md §8; 120 reads ± 0.12). Above 0, at most the RD maximum.",
    )
    method_options = models.JSONField(
        default=dict,
        blank=True,
        help_text="Method settings of RATINGS.md §5, e.g. "
        '{"stat_weights": {"kills": 1.0, "deaths": -0.7}, "perf_alpha": 0.2, "delta_max": 150}. '
        "Allowed keys: " + ", ".join(METHOD_OPTIONS) + ".",
    )

    # Match policy
    max_report_age_days = models.PositiveIntegerField(
        default=14,
        validators=[MinValueValidator(1)],
        help_text="A match may be reported up to this many days after it was played.",
    )
    confirm_within_hours = models.PositiveIntegerField(
        default=168,
        validators=[MinValueValidator(1)],
        help_text="A pending report expires (and is never rated) after this many hours.",
    )
    max_pending_reports = models.PositiveIntegerField(
        default=10,
        validators=[MinValueValidator(1)],
        help_text="Reports a member may have waiting for confirmation at once.",
    )
    board_version = models.PositiveBigIntegerField(
        default=0,
        editable=False,
        help_text="A new random number whenever what the leaderboard shows changes "
        "(ratings, members, names); cached leaderboard pages are keyed by it.",
    )
    reports_per_hour = models.PositiveIntegerField(
        default=20,
        validators=[MinValueValidator(1)],
        help_text="Reports a member may file in any hour (rate limit). 20 is more than a "
        "busy club night needs and still stops a runaway script.",
    )

    objects = LadderQuerySet.as_manager()

    class Meta:
        db_table = "ladder_ladder"  # its name from before the move
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self._state.adding:
            self.apply_preset()
        super().save(*args, **kwargs)
        pages_changed()  # its pages show its name, settings and whether it is public

    def get_absolute_url(self) -> str:
        return reverse("ladder:detail", args=[self.slug])

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        deleted = super().delete(*args, **kwargs)
        pages_changed()
        return deleted

    # ---- engine mapping -------------------------------------------------------------------

    def apply_preset(self) -> None:
        """A new ladder of 3–5 a side starts from the team-game preset (RATINGS.md §2
        "Presets"): each preset setting still at §2's default takes the preset's value; one
        chosen otherwise stays. Only at creation: an existing ladder keeps its settings."""
        for name, value in preset(self.team_size or 1).items():
            if getattr(self, name) == getattr(DEFAULTS, name):
                setattr(self, name, value)

    def params(self) -> Params:
        """This ladder's rating parameters as the engine's Params (the only mapping)."""
        values = ladder_values(
            {name: getattr(self, name) for name in PARAM_FIELDS}, self.method_options or {}
        )
        values["wrong_way_floor"] = LADDER_FLOOR
        return DEFAULTS.with_overrides(**values)

    def scoring(self) -> ScoringFormat:
        """The engine's scoring format for this ladder."""
        if self.scoring_format == GENERIC_FORMAT:
            return get_format(
                GENERIC_FORMAT, best_of=self.best_of, points_per_game=self.points_per_game
            )
        return get_format(self.scoring_format)

    # ---- validation -----------------------------------------------------------------------

    def clean(self) -> None:
        errors: dict[str, list[str]] = {}

        def add(field: str, message: str) -> None:
            errors.setdefault(field, []).append(message)

        if self.scoring_format == GENERIC_FORMAT:
            if self.best_of is None:
                add("best_of", "The generic format needs the number of games (odd, 1–7).")
            elif self.best_of not in GENERIC_BEST_OF:
                add("best_of", "Best of must be odd, from 1 to 7, so a match always has a winner.")
            if self.points_per_game is None:
                add("points_per_game", "The generic format needs the usual points per game.")
        elif self.scoring_format in dict(FORMAT_CHOICES):
            fmt = self.scoring()
            derived = {"best_of": fmt.best_of, "points_per_game": fmt.points_per_game}
            for field, value in derived.items():
                given = getattr(self, field)
                if given is not None and given != value:
                    add(
                        field,
                        f"{self.scoring_format} always uses {value}; leave this blank "
                        "and it is set from the format.",
                    )
                else:
                    setattr(self, field, value)

        bounds = (self.rating_min, self.rating_max, self.rating_center, self.initial_rating)
        if any(value is None for value in bounds):
            pass  # clean_fields() reports the missing value
        elif self.rating_min >= self.rating_max:
            add("rating_max", "The maximum rating must be above the minimum.")
        else:
            for field in ("rating_center", "initial_rating"):
                if not self.rating_min <= getattr(self, field) <= self.rating_max:
                    add(field, "Must lie between the minimum and maximum rating.")
        if (
            self.initial_rd is not None
            and self.rd_max is not None
            and self.initial_rd > self.rd_max
        ):
            add("initial_rd", "The initial RD cannot exceed the RD maximum.")

        if self.ranked_rd is not None:
            if not self.ranked_rd > 0:
                add("ranked_rd", "The ranked RD must be above 0.")
            elif self.rd_max is not None and self.ranked_rd > self.rd_max:
                add("ranked_rd", "The ranked RD cannot exceed the RD maximum.")

        option_errors = method_option_errors(self.method_options)
        for message in option_errors:
            add("method_options", message)
        if not errors:
            for field, message in self.param_errors():
                add(field, message)
        if errors:
            raise ValidationError(errors)

    def param_errors(self) -> list[tuple[str, str]]:
        """What the engine refuses in these settings, as (field, message) pairs: the
        engine's ``validate_params`` is the one place parameters are checked, and each of
        its refusals names the setting, so the field, it is about."""
        try:
            validate_params(self.params())
        except ParamsError as exc:
            return [(problem_field(p), problem_message(p)) for p in exc.problems]
        except EngineError as exc:
            return [("method_options", sentence(str(exc)))]
        except (TypeError, ValueError) as exc:
            return [("method_options", f"The rating engine refused these settings: {exc}")]
        return []

    # ---- display --------------------------------------------------------------------------

    @property
    def team_label(self) -> str:
        return {1: "Singles", 2: "Doubles"}.get(self.team_size, f"{self.team_size} a side")

    @property
    def format_label(self) -> str:
        """Short, for cards: "Badminton to 21, best of 3" or "1 game (16 points)"."""
        if self.scoring_format != GENERIC_FORMAT:
            return f"Badminton to {self.points_per_game}, best of {self.best_of}"
        games = "1 game" if self.best_of == 1 else f"Best of {self.best_of} games"
        return f"{games} ({self.points_per_game} points)"

    @property
    def format_description(self) -> str:
        """In full, from the engine: "Best of 3 games to 21, win by 2, capped at 30"."""
        text = self.scoring().description
        return text[:1].upper() + text[1:]

    @property
    def method_label(self) -> str:
        return TEAM_METHOD_LABELS.get(self.team_method, self.team_method)

    @property
    def outcome_label(self) -> str:
        """How a result counts, in words (RATINGS.md §3 steps 2 and 9)."""
        floor = "a win never lowers a rating, a loss never raises one"
        if self.outcome_model == "score":
            return f"The score sets the result; {floor}"
        if not self.margin_boost:
            return f"A win is a win, whatever the score; {floor}"
        return (
            f"A win is a win; a clear one counts up to {1 + self.margin_boost:.1f}× a narrow "
            f"one; {floor}"
        )

    @property
    def ranked_label(self) -> str:
        """Who is ranked, in words (RATINGS.md §8)."""
        return (
            f"At least {self.ranked_min_matches} rated matches, ± {format_rd(self.ranked_rd)} "
            f"or less, and a match in the last {self.lookback_days} days"
        )

    @property
    def stat_names(self) -> list[str]:
        """The per-player stats this ladder's method uses (performance weighting)."""
        if self.team_method != "performance_weighted":
            return []
        return sorted((self.method_options or {}).get("stat_weights", {}))

    def stat_label(self, name: str) -> str:
        """What members read for a stat: the ladder's own label (``stat_labels``), else the
        name made readable ("adr" → "ADR", "first_kills" → "First kills")."""
        labels = (self.method_options or {}).get("stat_labels")
        if isinstance(labels, dict) and isinstance(labels.get(name), str) and labels[name].strip():
            return str(labels[name]).strip()
        words = name.replace("_", " ").strip()
        return words.upper() if len(words) <= 3 else words[:1].upper() + words[1:]

    @property
    def stat_labels(self) -> list[str]:
        """The labels of ``stat_names``, in the same order."""
        return [self.stat_label(name) for name in self.stat_names]

    def default_start(self) -> PlayerState:
        """Where a member without a self-assessment starts now (RATINGS.md §4): the initial
        rating and RD, or with newcomer_start "recent_newcomers" the mean rating of the last
        members to start playing (once anyone has)."""
        state = default_state(self.params())
        if self.newcomer_start == "recent_newcomers":
            rating = hooks.ratings().newcomer_rating(self)
            if rating is not None:
                state = replace(state, rating=rating)
        return state

    @property
    def confirm_within_label(self) -> str:
        hours = self.confirm_within_hours
        if hours % 24 == 0:
            days = hours // 24
            return "1 day" if days == 1 else f"{days} days"
        return "1 hour" if hours == 1 else f"{hours} hours"


# Short forms of the certainty answers, for tables.
CERTAINTY_SHORT = {"rated": "league-rated", "regular": "plays regularly", "unsure": "not sure"}


class MembershipQuerySet(models.QuerySet["Membership"]):
    """Who sees which memberships is the access policy's (ladder.clubs.access.members)."""


class Membership(models.Model):
    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    joined_at = models.DateTimeField(default=timezone.now)
    is_public = models.BooleanField(
        "listed publicly",
        default=True,
        help_text="Appear on this ladder for everyone. Off: only you and moderators see you.",
    )
    self_level = models.DecimalField(
        "self-assessed level",
        max_digits=2,
        decimal_places=1,
        null=True,
        blank=True,
        choices=level_choices,
    )
    self_certainty = models.CharField(
        "how sure", max_length=10, choices=certainty_choices, blank=True
    )
    initial_rating = models.FloatField(help_text="Starting rating from the self-assessment.")
    initial_rd = models.FloatField("initial RD", help_text="Starting RD from the self-assessment.")
    away_until = models.DateField(
        "away until",
        null=True,
        blank=True,
        help_text="Away (injury, holiday) up to and including this day: the board says so "
        'instead of "inactive", and no one may challenge or invite the member '
        '(RULES.md "Time away"). Empty: not away.',
    )
    # A ban (RULES.md "Integrity"): set and cleared only by ladder.integrity.bans, read by the
    # access policy (ladder.clubs.access.barred and the listing rules).
    banned_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="When a moderator banned the member from this ladder; empty: not banned.",
    )
    ban_reason = models.TextField(
        blank=True, editable=False, help_text="The ban's reason, as the member is told it."
    )

    objects = MembershipQuerySet.as_manager()

    class Meta:
        db_table = "ladder_membership"  # its name from before the move
        constraints = [
            models.UniqueConstraint(fields=["ladder", "user"], name="membership_unique_per_ladder")
        ]
        indexes = [
            # Hidden members are few; reading them for a page should not scan every member.
            models.Index(fields=["ladder"], condition=Q(is_public=False), name="membership_hidden"),
            # Banned members are fewer still; every listing excludes them.
            models.Index(
                fields=["ladder"], condition=Q(banned_at__isnull=False), name="membership_banned"
            ),
        ]
        ordering = ["ladder", "-initial_rating", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} on {self.ladder}"

    def apply_self_assessment(self, level: Decimal | None, certainty: str | None) -> None:
        """Store the self-assessment and the starting rating and RD it gives (RATINGS.md §4).

        Without a level the ladder's initial rating, or, when its newcomer_start is
        "recent_newcomers", the mean rating now of the last members to start playing.
        Raises the engine's EngineError for a level outside the ladder's rating range.
        """
        state = initial_state(self.ladder.params(), level=level, certainty=certainty or None)
        self.self_level = level
        self.self_certainty = certainty or ""
        self.initial_rating = (
            state.rating if level is not None else self.ladder.default_start().rating
        )
        self.initial_rd = state.rd

    @property
    def is_banned(self) -> bool:
        return self.banned_at is not None

    def away_on(self, on: date) -> date | None:
        """The last day of the member's time away if they are away on ``on``, else None."""
        return self.away_until if self.away_until is not None and self.away_until >= on else None

    @property
    def initial_rating_display(self) -> str:
        return format_rating(self.initial_rating)

    @property
    def initial_rd_display(self) -> str:
        """The starting ± RD in display units: 200 → "0.20"."""
        return format_rd(self.initial_rd)

    @property
    def assessment_label(self) -> str:
        """Short, for tables: "Level 5.5, league-rated", "Not sure", or "Ladder default"."""
        certainty = CERTAINTY_SHORT.get(self.self_certainty, self.self_certainty)
        if self.self_level is None:
            return certainty.capitalize() if certainty else "Ladder default"
        return f"Level {self.self_level}, {certainty}" if certainty else f"Level {self.self_level}"
