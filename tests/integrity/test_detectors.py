"""The detectors (plain Python): each kind flags its planted case and leaves an honest one
alone; on the generated club season every planted case is flagged and at most one honest
player in twenty is (issue 26, "Done when"; the numbers are in docs/INTEGRITY.md)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from ladder.integrity.detectors import (
    Member,
    Played,
    Thresholds,
    closed_pools,
    communities,
    detect_all,
    farming,
    report_patterns,
    sandbagging,
    win_trading,
)
from ladder.integrity.planted import CASES, planted_season

DAY = date(2026, 3, 2)
T = Thresholds()


def game(
    i: int,
    a: str,
    b: str,
    winner: str = "a",
    margin: float = 0.05,
    day: date | None = None,
    before: dict[str, float] | None = None,
    change: dict[str, float] | None = None,
    **times: object,
) -> Played:
    return Played(
        id=i,
        played_on=day or DAY + timedelta(days=i),
        side_a=(a,),
        side_b=(b,),
        winner=winner,
        margin=margin,
        before=before or {a: 4500.0, b: 4500.0},
        change=change or {a: 10.0 if winner == "a" else -10.0, b: -10.0 if winner == "a" else 10.0},
        **times,  # type: ignore[arg-type]
    )


def people(*names: str, level: float | None = None, rating: float = 4500.0) -> dict[str, Member]:
    return {n: Member(n, n.capitalize(), level, rating) for n in names}


def round_robin(names: list[str], rounds: int, start: int = 1000) -> list[Played]:
    """Everyone meets everyone ``rounds`` times, results alternating by seat."""
    out = []
    i = start
    for r in range(rounds):
        for x in range(len(names)):
            for y in range(x + 1, len(names)):
                out.append(game(i, names[x], names[y], "a" if (r + x + y) % 2 else "b"))
                i += 1
    return out


def test_win_trading_flags_a_pair_taking_turns_and_not_a_normal_rivalry() -> None:
    club = round_robin(["p1", "p2", "p3", "p4", "p5", "p6"], 2)
    traders = [game(i, "x", "y", "a" if i % 2 else "b") for i in range(12)]
    rivals = [game(100 + i, "p1", "p2", "a" if i in (0, 1, 2, 5, 8) else "b") for i in range(4)]
    found = win_trading(club + traders + rivals, people("x", "y"), T)
    assert [f.players for f in found] == [("x", "y")]
    assert found[0].matches == tuple(range(12))
    assert "X and Y played each other 12 times" in found[0].reason
    assert "the winner changed in 11 of 11" in found[0].reason


def test_win_trading_flags_one_sided_big_margins() -> None:
    club = round_robin(["p1", "p2", "p3", "p4", "p5", "p6"], 2)
    feeder = [game(i, "x", "y", "a", margin=0.45) for i in range(11)]
    found = win_trading(club + feeder, people("x", "y"), T)
    assert len(found) == 1 and "X won 11 of them by a mean margin of 45%" in found[0].reason


def test_farming_flags_repeated_wins_over_new_accounts_not_one_win_over_a_newcomer() -> None:
    club = round_robin(["f", "p1", "p2", "p3", "p4", "p5"], 3)  # everyone past new
    alts = [game(500 + i, "f", f"alt{i % 3}", "a") for i in range(9)]
    newcomer = [game(600, "p1", "new", "a")]
    found = farming(club + alts + newcomer, people("f", "p1"), T)
    assert [f.evidence["farmer"] for f in found] == ["f"]
    assert found[0].players == ("alt0", "alt1", "alt2", "f")
    assert found[0].matches == tuple(range(500, 509))


def test_closed_pool_flags_a_group_that_plays_itself_with_drifted_ratings() -> None:
    club_names = [f"p{i}" for i in range(10)]
    club = round_robin(club_names, 1)
    pool = round_robin(["q1", "q2", "q3", "q4"], 3, start=5000)
    bridge = [game(9000, "q1", "p1")]
    members = {
        **people(*club_names, rating=4500.0),
        **people("q1", "q2", "q3", "q4", rating=6000.0),
    }
    found = closed_pools(club + pool + bridge, members, T)
    assert [f.players for f in found] == [("q1", "q2", "q3", "q4")]
    assert "18 matches among themselves and 1 against anyone else" in found[0].reason
    # the same group with the club's ratings has not drifted: not flagged
    level = {**members, **people("q1", "q2", "q3", "q4", rating=4550.0)}
    assert closed_pools(club + pool + bridge, level, T) == []
    assert {"q1", "q2", "q3", "q4"} in communities(club + pool + bridge)


def test_sandbagging_flags_a_low_self_assessment_beaten_by_the_first_matches() -> None:
    strong = {"s1": 5500.0, "s2": 5400.0, "s3": 5600.0, "s4": 5500.0, "s5": 5450.0}
    matches = [
        game(i, "sand", s, "a", before={"sand": 3000.0, s: r})
        for i, (s, r) in enumerate(strong.items())
    ]
    honest = [
        game(10 + i, "hon", s, "b", before={"hon": 3000.0, s: r})
        for i, (s, r) in enumerate(strong.items())
    ]
    found = sandbagging(matches + honest, people("sand", "hon", level=3.0), T)
    assert [f.players for f in found] == [("sand",)]
    assert "assessed themselves at 3.0, but won 5 of their first 5" in found[0].reason


def test_report_patterns_flag_instant_confirmations_and_late_reports() -> None:
    at = datetime(2026, 3, 2, 21, 0)
    fast = [
        game(
            i,
            "r",
            "c",
            reporter="r",
            reported_at=at + timedelta(days=i),
            confirmed_by="c",
            confirmed_at=at + timedelta(days=i, seconds=8),
        )
        for i in range(6)
    ]
    late = [
        game(
            100 + i,
            "l",
            "o",
            day=DAY,
            reporter="l",
            reported_at=at + timedelta(days=10 + i),
            confirmed_by="o",
            confirmed_at=at + timedelta(days=11 + i),
        )
        for i in range(5)
    ]
    normal = [
        game(
            200 + i,
            "n",
            "o",
            reporter="n",
            reported_at=at + timedelta(days=i, hours=3),
            confirmed_by="o",
            confirmed_at=at + timedelta(days=i, hours=9),
        )
        for i in range(8)
    ]
    found = report_patterns(fast + late + normal, people("r", "c", "l", "n", "o"), T)
    kinds = {(f.players, f.evidence["pattern"]) for f in found}
    assert kinds == {(("c", "r"), "fast_confirmations"), (("l",), "late_reports")}


def test_thresholds_take_overrides_and_refuse_nonsense() -> None:
    assert Thresholds.with_overrides({"trade_min_matches": 4}).trade_min_matches == 4
    for bad in (
        {"nope": 1},
        {"trade_min_matches": -1},
        {"trade_min_matches": 2.5},
        {"farm_gap": "1"},
    ):
        with pytest.raises(ValueError):
            Thresholds.with_overrides(bad)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_planted_season_every_case_flagged_at_most_one_honest_in_twenty(seed: int) -> None:
    season = planted_season(seed)
    found = detect_all(season.played, season.members)
    for kind, who in CASES.items():
        assert any(f.kind == kind and who <= set(f.players) for f in found), kind
    flagged = {p for f in found for p in f.players} & season.honest
    assert len(flagged) <= len(season.honest) / 20, flagged
