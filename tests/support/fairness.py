"""What a club checks on a ladder's stored ratings (RATINGS.md header and §8): wins that
lowered the winner, losses that raised the loser, and how many regulars are ranked."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date

from ladder.clubs.models import Ladder
from ladder.matches.models import Match
from ratings.models import RANKED, PlayerRating, RatingChange, active_since

#: §8's target counts members with at least this many rated matches in the window.
REGULAR_MATCHES = 10


@dataclass(frozen=True)
class LadderCheck:
    changes: int
    wins_lowering: int
    losses_raising: int
    regulars: int  # members with REGULAR_MATCHES+ rated matches in the lookback window
    ranked_regulars: int

    @property
    def ranked_share(self) -> float:
        return self.ranked_regulars / self.regulars if self.regulars else 0.0


def check_ladder(ladder: Ladder, today: date) -> LadderCheck:
    """The numbers from the stored RatingChange and PlayerRating rows of ``ladder``."""
    winner = {
        m.pk: m.winner_side for m in Match.objects.filter(ladder=ladder).prefetch_related("games")
    }
    changes = list(RatingChange.objects.filter(ladder=ladder))
    cutoff = active_since(ladder.lookback_days, today)
    in_window = Counter(c.user_id for c in changes if c.played_on >= cutoff)
    rows = {r.user_id: r for r in PlayerRating.objects.filter(ladder=ladder)}
    regulars = [user for user, n in in_window.items() if n >= REGULAR_MATCHES]
    return LadderCheck(
        changes=len(changes),
        wins_lowering=sum(
            c.side == winner[c.match_id] and c.rating_after < c.rating_before for c in changes
        ),
        losses_raising=sum(
            c.side != winner[c.match_id] and c.rating_after > c.rating_before for c in changes
        ),
        regulars=len(regulars),
        ranked_regulars=sum(rows[user].status_on(today, cutoff) == RANKED for user in regulars),
    )
