"""Ladder-level rating operations: new settings mean a replay; new ranked settings a new
standing for every rating row."""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Min

from ladder.clubs.models import LADDER_FLOOR, Ladder
from ladder.clubs.params import METHOD_OPTIONS, PARAM_FIELDS
from ladder.clubs.services import save_settings
from ladder.matches.models import Match
from ratings.engine.ranked import established_until
from ratings.engine.replay import validate_params
from ratings.engine.types import NEWCOMER_SAMPLE, EngineError, PlayerState
from ratings.models import PlayerRating, RatingChange, ladder_standing
from ratings.pipeline import bump_board, recompute_ladder
from ratings.tasks import enqueue_rating

# Settings with a field of their own on Ladder; the others (RATINGS.md §5) go in `method_options`.
_FIELDS = frozenset(PARAM_FIELDS)


def replay_later(ladder: Ladder) -> None:
    """Mark every rated match of the ladder for rating and ask a worker: the next run replays
    the whole ladder (ratings must always equal a replay with the ladder's current settings)."""

    Match.objects.filter(ladder=ladder, state__in=Match.RATED_STATES).update(needs_rating=True)
    ladder_id = ladder.pk
    transaction.on_commit(lambda: enqueue_rating(ladder_id))


def newcomer_rating(ladder: Ladder) -> float | None:
    """RATINGS.md §4 recent_newcomers on the site: the mean current rating of the last
    NEWCOMER_SAMPLE members to play their first rated match on ``ladder`` (by its day, ties
    to the later match), or None when no one has. Two queries."""
    latest = (
        RatingChange.objects.filter(ladder=ladder)
        .values("user_id")
        .annotate(first_day=Min("played_on"), first_match=Min("match_id"))
        .order_by("-first_day", "-first_match")
        .values_list("user_id", flat=True)[:NEWCOMER_SAMPLE]
    )
    ratings = list(
        PlayerRating.objects.filter(ladder=ladder, user_id__in=list(latest)).values_list(
            "rating", flat=True
        )
    )
    return sum(ratings) / len(ratings) if ratings else None


def restand(ladder: Ladder) -> int:
    """Work out every rating row's ``established_until`` again from the ladder's ranked
    settings (RATINGS.md §8), and make cached leaderboards stale. Returns the rows changed."""

    standing = ladder_standing(ladder)
    changed = []
    for row in PlayerRating.objects.filter(ladder=ladder).only(
        "rating", "rd", "volatility", "matches", "last_played", "established_until"
    ):
        state = PlayerState(row.rating, row.rd, row.volatility, row.matches, row.last_played)
        until = established_until(state, *standing)
        if until != row.established_until:
            row.established_until = until
            changed.append(row)
    PlayerRating.objects.bulk_update(changed, ["established_until"], batch_size=2000)
    ladder.board_version = bump_board(ladder.pk)
    return len(changed)


def apply_params(slug: str, params: Mapping[str, object]) -> Ladder:
    """Store rating settings (e.g. from `tune`) on a ladder and replay it with them.

    Each name is set as the ladder field of that name, or as a method option (RATINGS.md §5);
    a name that is neither is refused (the ladder would silently ignore it). Validation is the
    ladder's own (`full_clean`, then the engine's `validate_params` on `params()`); the replay
    is `recompute_ladder`'s, as `manage.py recompute_ratings` does it.
    """

    ladder = Ladder.objects.filter(slug=slug).first()
    if ladder is None:
        raise EngineError(f"no ladder {slug!r}")
    params = dict(params)
    # RATINGS.md §2: the wrong-way floor is always on for a ladder; saying so is fine.
    if params.pop("wrong_way_floor", LADDER_FLOOR) != LADDER_FLOOR:
        raise EngineError(
            f"the tuned settings do not fit {ladder.slug}: the wrong-way floor is always on "
            "for a ladder (RATINGS.md §3 step 9)"
        )
    unknown = sorted(name for name in params if name not in _FIELDS and name not in METHOD_OPTIONS)
    if unknown:
        raise EngineError(
            f"{ladder.slug} has no setting {', '.join(unknown)}: this ladder model cannot "
            "store these settings"
        )
    options = dict(ladder.method_options or {})
    for name, value in params.items():
        if name in _FIELDS:
            setattr(ladder, name, value)
        else:
            options[name] = value
    ladder.method_options = options
    try:
        ladder.full_clean()
        validate_params(ladder.params())
    except (ValidationError, EngineError) as exc:
        raise EngineError(f"the tuned settings do not fit {ladder.slug}: {exc}") from None
    save_settings(ladder)
    recompute_ladder(ladder.pk)
    return ladder
