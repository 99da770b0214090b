"""The play app's answers to the matches app's signals (docs/ARCHITECTURE.md): matches
never import this app; a report names its challenge or game and the state changes reach
it through ladder/matches/signals.py."""

from __future__ import annotations

from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import User
from ladder.clubs.models import Ladder
from ladder.matches.errors import MatchValidationError
from ladder.matches.models import Match
from ladder.matches.signals import match_reported, match_state_changed, scheduled_lineup_wanted
from ladder.play import services
from ladder.play.models import Challenge, OpenGame


@receiver(match_reported, dispatch_uid="play.link_reported_match")
def link_reported_match(
    sender: type[Match], match: Match, links: dict[str, int], **kwargs: object
) -> None:
    services.link_reported_match(match, links)
    for model in (Challenge, OpenGame):
        item = model.objects.filter(match=match).only("starts_at").first()
        if item is not None and not item.has_started:
            raise MatchValidationError(
                {
                    "challenge" if model is Challenge else "open_game": [
                        "It has not started yet: report its result once it has been played."
                    ]
                }
            )


@receiver(match_state_changed, dispatch_uid="play.match_state_changed")
def follow_match(sender: type[Match], match: Match, to_state: str, **kwargs: object) -> None:
    services.match_state_changed(match, to_state)


@receiver(scheduled_lineup_wanted, dispatch_uid="play.scheduled_lineup")
def lineup(
    sender: type[Ladder], ladder: Ladder, user: User, links: dict[str, int], **kwargs: object
) -> services.Lineup | None:
    return services.scheduled_lineup(ladder, user, links)


@receiver(post_save, sender=User, dispatch_uid="play.account_closed")
def account_closed(
    sender: type[User],
    instance: User,
    created: bool,
    update_fields: frozenset[str] | None = None,
    **kwargs: object,
) -> None:
    """A deactivated account's challenges and games are called off, the others told once
    (``services.withdraw_player``): no one can report a match against it."""
    if created or instance.is_active:
        return
    if update_fields is not None and "is_active" not in update_fields:
        return
    services.withdraw_player(instance)
