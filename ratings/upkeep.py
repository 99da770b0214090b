"""Keep what people see in step with the data, called where the data changes.

Nothing here runs on its own on a model's save: each function is called by the code that
made the change, or is a receiver of an event connected in RatingsConfig.ready()
(docs/ARCHITECTURE.md "Hooks and signals"):

- a ladder's new rating settings mean a replay, new ranked settings a new standing
  (``settings_changed``: the clubs services through ``ladder.clubs.hooks``, the admin,
  ``tune --apply``);
- a membership's change is copied to the member's rating row, its listing
  (``membership_changed``, ``membership_left``: the clubs services, through the same hook),
  and a new starting rating replays the ladder;
- a season saved or deleted (``save_season``, ``store_season``, ``delete_season``: its
  pages, the admin, the demo) makes cached leaderboard pages stale, and a first day added,
  moved or removed while a season's start raises RDs (RATINGS.md §3 step 1) replays it;
- a member's new name or active state (the event ``accounts.signals.account_changed``)
  makes their ladders' pages stale and relists their rows (``account_changed``);
- a match that changed what counts (the event ``ladder.matches.signals.ratings_due``) is
  rated (``rate_when_due``), and a migration that marks the ladders for a replay (new rating
  rules) is followed by that replay (``replay_after_migrate``, on ``post_migrate``).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.migrations import Migration

from accounts.models import User
from ladder.clubs.models import Ladder, Membership
from ratings.engine.formats import ScoringFormat
from ratings.engine.types import Params
from ratings.models import PlayerRating, RatingChange, Season, rating_params
from ratings.pipeline import bump_board, ladders_needing_rating, rate_ladder
from ratings.seasons import SeasonError
from ratings.services import replay_later, restand
from ratings.tasks import enqueue_rating

# ---- a ladder's settings ---------------------------------------------------------------------


def _settings(ladder: Ladder) -> tuple[Params, ScoringFormat, float, int]:
    """What the ratings depend on (the parameters they follow, scoring), then what the
    ranked status does. A new newcomer_start replays nothing: stored starts stay."""
    return (rating_params(ladder), ladder.scoring(), ladder.ranked_rd, ladder.ranked_min_matches)


def settings_changed(ladder: Ladder, before: Ladder) -> None:
    """``ladder``'s settings were saved (``before``: its row until then). New rating
    settings replay it (ratings must always equal a replay under its current settings); new
    ranked settings re-rank its rows at once, their ratings unchanged."""
    old, new = _settings(before), _settings(ladder)
    if old[:2] != new[:2]:
        replay_later(ladder)
    if old[2:] != new[2:]:
        restand(ladder)


# ---- memberships -----------------------------------------------------------------------------


def _relist(membership: Membership, listed: Membership | None) -> None:
    ratings = PlayerRating.objects.filter(
        ladder_id=membership.ladder_id, user_id=membership.user_id
    )
    with transaction.atomic():
        # Bumping the version updates the ladder row: it waits for a rating run's lock on it
        # (ratings.pipeline.rate_ladder). A run that read this membership before it changed
        # has then written its rows, and the listing below overwrites theirs.
        bump_board(membership.ladder_id)
        ratings.relist(listed)


def membership_changed(membership: Membership, restarted: bool) -> None:
    """A membership was saved: the member's rating row takes its listing (hidden, banned,
    back), the ladder's pages are stale, and a new starting rating (``restarted``) changes
    everything the player's matches did (RATINGS.md §4): the ladder is replayed."""
    _relist(membership, membership)
    if (
        restarted
        and RatingChange.objects.filter(
            ladder_id=membership.ladder_id, user_id=membership.user_id
        ).exists()
    ):
        replay_later(membership.ladder)


def membership_left(membership: Membership) -> None:
    """A membership was deleted: the member's rating row stays, listed as left."""
    _relist(membership, None)


# ---- seasons ---------------------------------------------------------------------------------


def save_season(season: Season) -> Season:
    """Store a new or changed season after ``Season.clean``'s checks (no overlap, the last
    day not before the first, an archived season's days unchanged), under the ladder's
    lock so that two moderators adding overlapping seasons at once cannot both succeed;
    PostgreSQL's exclusion constraint stands behind it. Raises SeasonError."""
    try:
        with transaction.atomic():
            Ladder.objects.select_for_update().only("pk").get(pk=season.ladder_id)
            season.full_clean()
            store_season(season)
    except ValidationError as exc:
        raise SeasonError(" ".join(exc.messages)) from None
    except IntegrityError:
        raise SeasonError(
            "Another season of this ladder was saved meanwhile and shares a day with this one: "
            "seasons of a ladder never overlap."
        ) from None
    return season


def store_season(season: Season) -> None:
    """Save a season already checked (``save_season``, the admin's form) and keep its ladder
    in step (``_season_changed``)."""
    before = None
    if season.pk is not None:
        stored = Season.objects.filter(pk=season.pk).values_list("starts_on", flat=True)
        before = stored.first()
    season.save()
    _season_changed(season, moved=before != season.starts_on)


def delete_season(season: Season) -> None:
    """Remove a season and its archived table (the ratings are untouched, unless its first
    day raised RDs: ``_season_changed``)."""
    season.delete()
    _season_changed(season, moved=True)


def _season_changed(season: Season, moved: bool) -> None:
    """The ladder page shows the current season's table, kept with its leaderboard: a new,
    changed or deleted season makes it stale (storing an ended season's table does not:
    ``seasons.freeze_season`` calls nothing here). Where a season's start raises RDs
    (``season_start_periods``, RATINGS.md §3 step 1), a first day added, moved or removed
    (``moved``) changes the ratings: the ladder is replayed, as for new rating settings. A
    name or a last day changes no rating."""
    bump_board(season.ladder_id)
    if moved:
        raising = Ladder.objects.filter(pk=season.ladder_id, season_start_periods__gt=0)
        ladder = raising.only("pk").first()
        if ladder is not None:
            replay_later(ladder)


# ---- events ----------------------------------------------------------------------------------


def account_changed(
    sender: type[User], user: User, fields: frozenset[str], **kwargs: object
) -> None:
    """``accounts.signals.account_changed``: a member's name or active state was saved. Their
    ladders' pages are stale, and a deactivated account leaves every leaderboard (the access
    policy's listing_of)."""
    memberships = list(Membership.objects.filter(user=user).order_by())
    with transaction.atomic():
        bump_board(*(m.ladder_id for m in memberships))
        for membership in memberships:
            membership.user = user
            PlayerRating.objects.filter(ladder_id=membership.ladder_id, user=user).relist(
                membership
            )


def rate_when_due(sender: type, ladder_id: int, **kwargs: object) -> None:
    """``ladder.matches.signals.ratings_due``: a match changed what counts on a ladder: rate
    it."""
    enqueue_rating(ladder_id)


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
