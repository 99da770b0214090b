"""What the matches app announces: events, sent and forgotten (docs/ARCHITECTURE.md "Hooks
and signals").

Ratings and play build on matches, never the other way. Where this app needs an answer from
them (a prediction, a report's link to its challenge), it asks through a typed hook
(``ladder/matches/hooks.py``); these signals only tell, and nothing they return is read.
"""

from __future__ import annotations

from django.dispatch import Signal

# Sent after commit when a ladder's rated matches changed (a match confirmed, corrected,
# voided, a dispute resolved): its ratings are due. Keyword: ``ladder_id``. The ratings app
# enqueues the ladder's rating (ratings.upkeep.rate_when_due).
ratings_due = Signal()

# Sent inside the transaction of every change of a match's state: keywords ``match``,
# ``from_state``, ``to_state``. The play app marks a challenge or open game played once its
# match counts, and lets go of it when the report is cancelled, expires or is voided
# (ladder/play/receivers.py).
match_state_changed = Signal()
