"""The play app's receivers of events announced below it, connected in PlayConfig.ready()
(docs/ARCHITECTURE.md "Hooks and signals"): a match's change of state
(ladder/matches/signals.py) and an account's (accounts/signals.py). They only act; nothing
they return is read. What the matches app asks of this app, it asks through
ladder/play/hooks.py."""

from __future__ import annotations

from accounts.models import User
from ladder.matches.models import Match
from ladder.play import services


def follow_match(sender: type[Match], match: Match, to_state: str, **kwargs: object) -> None:
    """``match_state_changed``: a linked challenge or game is played once its match counts,
    and let go of when the report is cancelled, expires or is voided."""
    services.match_state_changed(match, to_state)


def account_closed(
    sender: type[User], user: User, fields: frozenset[str], **kwargs: object
) -> None:
    """``account_changed``: a deactivated account's challenges and games are called off, the
    others told once (``services.withdraw_player``): no one can report a match against it."""
    if "is_active" in fields and not user.is_active:
        services.withdraw_player(user)
