"""Points at stake (RATINGS.md §6): before a match, what each plausible result would do to
each player's rating: a narrow and a clear win, either way.

The rule is the engine's (``Replayer.stakes``: the same update run on copies of the
players' current states and lookback windows); this module only reads those from the
database (``pipeline.replayer_now``) and names the results. Nothing is stored. The report
form, the head-to-head page and the API's prediction all call ``points_at_stake``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from django.utils import timezone

from accounts.models import User
from ladder.clubs.formatting import format_change, format_rating
from ladder.clubs.models import Ladder
from ratings.engine.types import EngineError
from ratings.pipeline import replayer_now
from ratings.predictions import predict_sides


@dataclass(frozen=True)
class Stake:
    """One player's rating now and its change (in points) for each result of the match."""

    user: User
    side: str  # "a" or "b"
    rating: float
    narrow_win: float
    clear_win: float
    narrow_loss: float
    clear_loss: float

    @property
    def rating_display(self) -> str:
        return format_rating(self.rating)

    @property
    def shown(self) -> dict[str, str]:
        """The four changes in display units ("+0.03"), by result."""
        return {
            "narrow_win": format_change(self.narrow_win),
            "clear_win": format_change(self.clear_win),
            "narrow_loss": format_change(self.narrow_loss),
            "clear_loss": format_change(self.clear_loss),
        }


@dataclass(frozen=True)
class Stakes:
    """The points at stake of a lineup on ``on``; scores are the winner's ("21-19 21-19")."""

    on: date
    narrow_score: str
    clear_score: str
    players: list[Stake]

    @property
    def side_a(self) -> list[Stake]:
        return [s for s in self.players if s.side == "a"]

    @property
    def side_b(self) -> list[Stake]:
        return [s for s in self.players if s.side == "b"]


def _score(games: Sequence[tuple[int, int]]) -> str:
    return " ".join(f"{a}-{b}" for a, b in games)


def points_at_stake(
    ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None = None
) -> Stakes:
    """What a narrow and a clear win of either side would change, for every player.

    The sides must be complete members of the ladder (callers resolve them first); raises
    ``EngineError`` for a lineup the engine cannot rate (a player twice, an empty side).
    """
    on = on or timezone.localdate()
    replayer = replayer_now(ladder, {u.pk for u in (*side_a, *side_b)})
    names_a = [str(u.pk) for u in side_a]
    names_b = [str(u.pk) for u in side_b]
    results = replayer.stakes(names_a, names_b, on)
    games = replayer.stake_games()
    players = []
    for index, user in enumerate((*side_a, *side_b)):
        on_a = index < len(side_a)
        win, loss = ("a", "b") if on_a else ("b", "a")
        change = {key: changes[index].change for key, changes in results.items()}
        players.append(
            Stake(
                user=user,
                side="a" if on_a else "b",
                rating=results["a_narrow"][index].rating_before,
                narrow_win=change[f"{win}_narrow"],
                clear_win=change[f"{win}_clear"],
                narrow_loss=change[f"{loss}_narrow"],
                clear_loss=change[f"{loss}_clear"],
            )
        )
    return Stakes(on, _score(games["a_narrow"]), _score(games["a_clear"]), players)


def stakes_for_lineup(
    ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None = None
) -> Stakes | None:
    """RATINGS.md §6 points at stake of a full lineup, or None when there is no honest
    answer: a side not complete, or no prediction (``predictions.predict_sides``)."""
    if not len(side_a) == len(side_b) == ladder.team_size:
        return None
    if predict_sides(ladder, side_a, side_b, on) is None:
        return None
    try:
        return points_at_stake(ladder, side_a, side_b, on)
    except EngineError:
        return None
