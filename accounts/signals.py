"""What the accounts app announces: an event, sent where it happens and forgotten
(docs/ARCHITECTURE.md "Hooks and signals").

Accounts is the lowest app: the ladders that show a member, and the games they arranged,
live in the apps above it, which listen here. Nothing a receiver returns is read.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.dispatch import Signal

from accounts.models import User

# What of an account the ladders show (its name), or whether they list it at all.
SHOWN_FIELDS = frozenset({"username", "display_name", "is_active"})

# Sent by every flow that saves a change to a member's shown fields (``account_saved``: the
# admin's user page, the profile page), after the save: keywords ``user`` and ``fields`` (the
# changed ones of SHOWN_FIELDS). The ratings app relists the member's rating rows and renews
# their ladders' pages (ratings.upkeep.account_changed); the play app calls off a deactivated
# account's challenges and games (ladder/play/receivers.py). Signing up and confirming it
# send nothing: an account not confirmed yet is on no ladder and has arranged no game.
account_changed = Signal()


def account_saved(user: User, changed: Iterable[str]) -> None:
    """Tell the apps above that ``user``'s shown fields among ``changed`` were saved, if any."""
    fields = SHOWN_FIELDS.intersection(changed)
    if fields:
        account_changed.send(sender=User, user=user, fields=fields)
