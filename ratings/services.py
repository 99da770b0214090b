"""Ladder-level rating operations: new settings mean a replay."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from ladder.models import Ladder, Match
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
    """Store rating settings (e.g. from `tune`) on a ladder and replay it with them."""
    from ratings.pipeline import rate_ladder

    ladder = Ladder.objects.get(slug=slug)
    options = dict(ladder.method_options or {})
    for name, value in params.items():
        if name in _FIELDS:
            setattr(ladder, name, value)
        else:
            options[name] = value
    ladder.method_options = options
    try:
        ladder.full_clean()
        ladder.params()
    except (ValidationError, EngineError) as exc:
        raise EngineError(f"the tuned settings do not fit {ladder.slug}: {exc}") from None
    ladder.save()  # the signal marks the ladder for a replay
    rate_ladder(ladder.pk)
    return ladder
