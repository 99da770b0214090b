"""Keep what people see in step with the data: a ladder's new rating settings mean a replay
(admin, `tune --apply`), and so does a season's first day added, moved or removed while a
season's start raises RDs (RATINGS.md §3 step 1); new ranked settings a new standing; a membership's change is copied
to the member's rating row (its listing); member, name and season changes make cached
leaderboard pages stale; a migration that marks the ladders for a replay (new rating rules) is followed
by that replay."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from django.conf import settings
from django.db import transaction
from django.db.migrations import Migration
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import Signal, receiver

from accounts.models import User
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.signals import newcomer_rating_wanted
from ladder.matches.signals import lineup_wanted, ratings_due, stakes_wanted
from ratings.engine.formats import ScoringFormat
from ratings.engine.types import Params
from ratings.models import PlayerRating, RatingChange, Season, rating_params
from ratings.pipeline import bump_board, ladders_needing_rating, rate_ladder
from ratings.predictions import Prediction, predict_sides
from ratings.services import newcomer_rating, replay_later, restand
from ratings.stakes import Stakes, stakes_for_lineup
from ratings.tasks import enqueue_rating


@receiver(pre_save, sender=Ladder)
def remember_settings(sender: type[Ladder], instance: Ladder, **kwargs: object) -> None:
    old = Ladder.objects.filter(pk=instance.pk).first() if instance.pk else None
    instance._settings_before = _settings(old) if old else None  # type: ignore[attr-defined]


def _settings(ladder: Ladder) -> tuple[Params, ScoringFormat, float, int]:
    """What the ratings depend on (the parameters they follow, scoring), then what the
    ranked status does. A new newcomer_start replays nothing: stored starts stay."""
    return (rating_params(ladder), ladder.scoring(), ladder.ranked_rd, ladder.ranked_min_matches)


@receiver(post_save, sender=Ladder)
def replay_on_new_settings(
    sender: type[Ladder], instance: Ladder, created: bool, **kwargs: object
) -> None:
    before = getattr(instance, "_settings_before", None)
    if before is None:
        return
    after = _settings(instance)
    if before[:2] != after[:2]:
        replay_later(instance)
    if before[2:] != after[2:]:
        # Who is ranked changes at once; the ratings themselves do not.
        restand(instance)


# Fields of a user that a leaderboard shows, or that decide whether it lists them at all.
SHOWN_USER_FIELDS = frozenset({"username", "display_name", "is_active"})


@receiver(pre_save, sender=Membership)
def remember_start(sender: type[Membership], instance: Membership, **kwargs: object) -> None:
    old = Membership.objects.filter(pk=instance.pk).first() if instance.pk else None
    instance._start_before = (old.initial_rating, old.initial_rd) if old else None  # type: ignore[attr-defined]


@receiver(post_save, sender=Membership)
@receiver(post_delete, sender=Membership)
def membership_changed(
    sender: type[Membership], instance: Membership, signal: Signal, **kwargs: object
) -> None:

    ratings = PlayerRating.objects.filter(ladder_id=instance.ladder_id, user_id=instance.user_id)
    with transaction.atomic():
        # Bumping the version updates the ladder row: it waits for a rating run's lock on it
        # (ratings.pipeline.rate_ladder). A run that read this membership before it changed
        # has then written its rows, and the listing below overwrites theirs.
        bump_board(instance.ladder_id)
        ratings.relist(None if signal is post_delete else instance)
    before = getattr(instance, "_start_before", None)
    # A new starting rating changes everything the player's matches did (RATINGS.md §4).
    started_anew = before is not None and before != (instance.initial_rating, instance.initial_rd)
    if (
        started_anew
        and RatingChange.objects.filter(
            ladder_id=instance.ladder_id, user_id=instance.user_id
        ).exists()
    ):
        replay_later(instance.ladder)


@receiver(pre_save, sender=Season)
def remember_first_day(sender: type[Season], instance: Season, **kwargs: object) -> None:
    before = None
    if instance.pk is not None:
        before = Season.objects.filter(pk=instance.pk).values_list("starts_on", flat=True).first()
    instance._starts_before = before  # type: ignore[attr-defined]


@receiver(post_save, sender=Season)
@receiver(post_delete, sender=Season)
def season_changed(
    sender: type[Season],
    instance: Season,
    signal: Signal,
    update_fields: frozenset[str] | None = None,
    origin: object = None,
    **kwargs: object,
) -> None:
    """The ladder page shows the current season's table, kept with its leaderboard: a new,
    changed or deleted season makes it stale (storing an ended season's table does not).
    Where a season's start raises RDs (``season_start_periods``, RATINGS.md §3 step 1), a
    first day added, moved or removed changes the ratings: the ladder is replayed, as for
    new rating settings. A name or a last day changes no rating."""
    if update_fields is not None and set(update_fields) <= {"frozen_at"}:
        return
    bump_board(instance.ladder_id)
    if signal is post_delete:
        if isinstance(origin, Ladder):
            return  # the ladder itself goes, and its matches with it
        moved = True
    else:
        moved = getattr(instance, "_starts_before", None) != instance.starts_on
    if moved:
        raising = Ladder.objects.filter(pk=instance.ladder_id, season_start_periods__gt=0)
        ladder = raising.only("pk").first()
        if ladder is not None:
            replay_later(ladder)


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def user_changed(
    sender: type[User],
    instance: User,
    created: bool,
    update_fields: frozenset[str] | None = None,
    **kwargs: object,
) -> None:
    fields = update_fields
    if created or (fields is not None and not SHOWN_USER_FIELDS & set(fields)):
        return  # e.g. a login touching last_login

    memberships = list(Membership.objects.filter(user=instance).order_by())
    with transaction.atomic():
        bump_board(*(m.ladder_id for m in memberships))
        # A deactivated account leaves every leaderboard (the access policy's listing_of).
        for membership in memberships:
            membership.user = instance
            PlayerRating.objects.filter(ladder_id=membership.ladder_id, user=instance).relist(
                membership
            )


def replay_after_migrate(
    plan: list[tuple[Migration, bool]] | None = None, **kwargs: object
) -> None:
    """After ``migrate`` applied a migration with ``replays_ratings`` (it marked rated matches
    ``needs_rating``, e.g. ratings/migrations/0003_ratings_v2), rate every ladder with marked
    matches, as the periodic sweep would: the ratings then equal a replay of all rated
    matches under the new rules as soon as ``migrate`` returns. Connected for the ratings
    app only (ratings.apps), so it runs once per ``migrate``."""
    if not plan or not any(
        getattr(migration, "replays_ratings", False) and not backwards
        for migration, backwards in plan
    ):
        return

    for ladder_id in ladders_needing_rating():
        rate_ladder(ladder_id)


@receiver(ratings_due)
def rate_when_due(sender: type, ladder_id: int, **kwargs: object) -> None:
    """A match changed what counts on a ladder: rate it (ladder/matches/signals.py)."""

    enqueue_rating(ladder_id)


@receiver(lineup_wanted)
def predict_lineup(
    sender: type[Ladder],
    ladder: Ladder,
    side_a: Sequence[User],
    side_b: Sequence[User],
    on: date | None,
    **kwargs: object,
) -> Prediction | None:
    """The §6 prediction of a lineup for the report form (ladder/matches/signals.py)."""

    return predict_sides(ladder, side_a, side_b, on)


@receiver(stakes_wanted)
def stakes_of_lineup(
    sender: type[Ladder],
    ladder: Ladder,
    side_a: Sequence[User],
    side_b: Sequence[User],
    on: date | None,
    **kwargs: object,
) -> Stakes | None:
    """The §6 points at stake of a lineup for the report form (ladder/matches/signals.py)."""
    return stakes_for_lineup(ladder, side_a, side_b, on)


@receiver(newcomer_rating_wanted)
def rating_for_newcomer(sender: type[Ladder], ladder: Ladder, **kwargs: object) -> float | None:
    """Where a member without a self-assessment starts (ladder/clubs/signals.py)."""
    return newcomer_rating(ladder)
