"""Ladder-level rating operations: new settings mean a replay."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from ladder.models import METHOD_OPTIONS, Ladder, Match
from ratings.engine.replay import validate_params
from ratings.engine.types import EngineError

# Settings with a field of their own on Ladder; the others (RATINGS.md §5) go in `method_options`.
_FIELDS = {f.name for f in Ladder._meta.get_fields()}


def replay_later(ladder: Ladder) -> None:
    """Mark every rated match of the ladder for rating and ask a worker: the next run replays
    the whole ladder (ratings must always equal a replay with the ladder's current settings)."""
    from ratings.tasks import enqueue_rating

    Match.objects.filter(ladder=ladder, state__in=Match.RATED_STATES).update(needs_rating=True)
    ladder_id = ladder.pk
    transaction.on_commit(lambda: enqueue_rating(ladder_id))


def apply_params(slug: str, params: dict[str, Any]) -> Ladder:
    """Store rating settings (e.g. from `tune`) on a ladder and replay it with them.

    Each name is set as the ladder field of that name, or as a method option (RATINGS.md §5);
    a name that is neither is refused (the ladder would silently ignore it). Validation is the
    ladder's own (`full_clean`, then the engine's `validate_params` on `params()`); the replay
    is `recompute_ladder`'s, as `manage.py recompute_ratings` does it.
    """
    from ratings.pipeline import recompute_ladder

    ladder = Ladder.objects.filter(slug=slug).first()
    if ladder is None:
        raise EngineError(f"no ladder {slug!r}")
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
    ladder.save()
    recompute_ladder(ladder.pk)
    return ladder
