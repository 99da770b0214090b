"""RATINGS.md §1: scales, conversions both ways, bounds and the display value."""

from __future__ import annotations

from datetime import date

import pytest

from ratings.engine.formats import get_format
from ratings.engine.outcome import Outcome
from ratings.engine.replay import Replayer
from ratings.engine.scales import (
    clamp,
    display,
)
from ratings.engine.teams import Contestant, rate_sides
from ratings.engine.types import MatchResult, Params


def test_no_drift_against_even_opponents() -> None:
    """The seed's +4000 typo would pull a player down ~500 points per match; we use the centre.

    Two players at the centre who keep splitting matches stay at the centre.
    """
    fmt = get_format("generic", best_of=1, points_per_game=21)
    replayer = Replayer(Params(), fmt)
    for day in range(1, 29):
        games = ((21, 19),) if day % 2 else ((19, 21),)
        replayer.rate(MatchResult(date(2024, 2, day), ("Ann",), ("Bob",), games))
    for name in ("Ann", "Bob"):
        assert abs(replayer.state(name).rating - 4500) < 60


def test_clamp() -> None:
    assert clamp(5, 1, 3) == 3 and clamp(-5, 1, 3) == 1 and clamp(2, 1, 3) == 2


def test_rating_clamped_after_an_update() -> None:
    """§1/§3 step 9: a strong win from near the top ends at rating_max, not above."""
    fmt = get_format("generic", best_of=1, points_per_game=21)
    params = Params(rating_max=4550.0)
    winner, loser = Replayer(params, fmt).rate(
        MatchResult(date(2024, 1, 1), ("A",), ("B",), ((21, 0),))
    )
    assert winner.rating_after == 4550.0
    params = Params(rating_min=4480.0)
    winner, loser = Replayer(params, fmt).rate(
        MatchResult(date(2024, 1, 1), ("A",), ("B",), ((21, 0),))
    )
    assert loser.rating_after == 4480.0


def test_rd_capped_at_rd_max() -> None:
    """A closed gate lets RD grow (phi' = phi* > phi) but never past rd_max."""
    volatile = Contestant("A", 4500.0, 499.0, 0.5, (1.0,), gate_open=False)
    steady = Contestant("B", 4500.0, 100.0, 0.06, (1.0,), gate_open=True)
    (a,), (b,) = rate_sides([volatile], [steady], Outcome("a", 0.25, 0.9625), Params())
    assert a.rd == 500.0  # sqrt(499^2 + (0.5 * 173.7)^2) = 506.5 before the cap
    assert b.rd < 100.0


@pytest.mark.parametrize(
    ("rating", "shown"),
    [
        (4500, "4.50"),
        (2000, "2.00"),
        (9000, "9.00"),
        (4505, "4.51"),
        (4504.9, "4.50"),
        (3999.99, "4.00"),
    ],
)
def test_display(rating: float, shown: str) -> None:
    assert display(rating) == shown
