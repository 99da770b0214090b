"""The columnar replay: `encode` a history once, `Replayer.rate_history` it.

It must be `rate_all` over the same matches in another form: the same changes (built
from the columns when asked for, bit for bit), the same errors at the same match, the
same state left behind. The helpers and strategies are test_engine_native.py's.
"""

from __future__ import annotations

import dataclasses
from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.engine.replay import Changes, History, Replayer, decode, encode, encode_rows
from ratings.engine.types import EngineError, MatchResult, Params, PlayerChange, PlayerState
from ratings.lab.tune import train_score
from tests.ratings.engine.test_engine_native import (
    BADMINTON,
    DAY,
    FIELDS,
    PROFILE,
    _outcome_of,
    assert_same_changes,
    assert_same_replayers,
    bwf,  # noqa: F401 - the fixture
    history,
    singles,
)


def _columns_outcome(
    replayer: Replayer, matches: list[MatchResult], start: int = 0, stop: int | None = None
) -> tuple[object, list[tuple[PlayerChange, ...]]]:
    """(None, changes) or ((exception type, message), changes so far)."""
    try:
        changes = replayer.rate_history(encode(matches), start, stop)
    except Exception as exc:  # noqa: BLE001 - compared by the callers
        return (type(exc), str(exc)), []
    return None, [changes[i] for i in range(len(changes))]


def rate_both(params: Params, initial: dict, matches: list[MatchResult]) -> None:  # type: ignore[type-arg]
    columns = Replayer(params, BADMINTON, initial)
    objects = Replayer(params, BADMINTON, initial)
    error, changes = _columns_outcome(columns, matches)
    expected_error, expected = _outcome_of(objects, matches)
    assert error == expected_error
    assert_same_changes(changes, expected)
    assert_same_replayers(columns, objects)


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"team_method": "individual", "composite_rd": "rms"},
        {"outcome_model": "score"},
        {"lookback_days": 7, "rating_period_days": 1, "diversity_threshold": 0.6,
         "repetition_alpha": 1.0, "tau": 1.2},
    ],
)  # fmt: skip
def test_bwf_columns_equal_rate_all(bwf: list[MatchResult], overrides: dict) -> None:  # noqa: F811  # type: ignore[type-arg]
    rate_both(Params().with_overrides(**overrides), {}, bwf)


@PROFILE
@given(history())
def test_random_singles_histories_columns_equal_rate_all(case) -> None:  # type: ignore[no-untyped-def]
    rate_both(*case)


@PROFILE
@given(history(doubles=True))
def test_team_histories_with_stats_columns_equal_rate_all(case) -> None:  # type: ignore[no-untyped-def]
    """Every team method; performance_weighted reads each match's stats from the history."""
    rate_both(*case)


@PROFILE
@given(history(doubles=True))
def test_predict_rate_history_equals_predict_rate_all(case) -> None:  # type: ignore[no-untyped-def]
    params, initial, matches = case
    columns = Replayer(params, BADMINTON, initial)
    objects = Replayer(params, BADMINTON, initial)
    try:
        probs, changes = columns.predict_rate_history(encode(matches))
        got: tuple[object, list[float], list] = (None, probs, list(changes))  # type: ignore[type-arg]
    except Exception as exc:  # noqa: BLE001 - compared below
        got = ((type(exc), str(exc)), [], [])
    try:
        probs, expected_changes = objects.predict_rate_all(matches)
        expected: tuple[object, list[float], list] = (None, probs, expected_changes)  # type: ignore[type-arg]
    except Exception as exc:  # noqa: BLE001 - compared below
        expected = ((type(exc), str(exc)), [], [])
    assert got[0] == expected[0]
    assert got[1] == expected[1]
    assert_same_changes(got[2], expected[2])
    assert_same_replayers(columns, objects)


@PROFILE
@given(history(doubles=True), st.lists(st.integers(0, 3), min_size=1, max_size=10), st.data())
def test_pieces_of_a_history_mixed_with_rate_all_end_where_one_pass_does(case, steps, data) -> None:  # type: ignore[no-untyped-def]
    params, initial, matches = case
    whole = Replayer(params, BADMINTON, initial)
    error, expected = _outcome_of(whole, matches)
    if error is not None:
        return  # errors: the tests above
    encoded = encode(matches)
    replayer = Replayer(params, BADMINTON, initial)
    got: list[tuple[PlayerChange, ...]] = []
    i = 0
    for step in steps:
        j = data.draw(st.integers(i, len(matches)))
        if step == 0:
            changes = replayer.rate_history(encoded, i, j)
            got += [changes[k] for k in range(len(changes))]
        elif step == 1:
            got += replayer.rate_all(matches[i:j])
        elif step == 2:
            got += list(replayer.predict_rate_history(encoded, i, j)[1])
        else:
            replayer = Replayer.from_snapshot(params, BADMINTON, replayer.snapshot())
            j = i
        i = j
    got += list(replayer.rate_history(encoded, i))
    assert_same_changes(got, expected)
    assert_same_replayers(replayer, whole)


@pytest.mark.parametrize(
    "bad",
    [
        singles(DAY, "P1", "P2"),  # dated before the last rated match
        singles(DAY + timedelta(days=20), "P1", "P2", match_id=3),  # same day, smaller id
        singles(DAY + timedelta(days=30), "P1", "P1"),  # against oneself
        singles(DAY + timedelta(days=30), "P1", "P2", ((21, 20), (21, 3))),  # invalid game
        singles(DAY + timedelta(days=30), "P1", "P2", ((21, 3),)),  # not finished
        MatchResult(DAY + timedelta(days=30), ("P1", "P2"), ("P2",), ((21, 3), (21, 3))),  # twice
        MatchResult(DAY + timedelta(days=30), (), ("P2",), ((21, 3), (21, 3))),  # nobody
        MatchResult(  # too many a side
            DAY + timedelta(days=30), tuple(f"Q{i}" for i in range(17)), ("P2",), ((21, 3), (21, 3))
        ),
    ],
)
def test_bad_match_raises_rate_alls_error_after_rating_the_matches_before(
    bad: MatchResult,
) -> None:
    good = [
        singles(DAY + timedelta(days=i), f"P{i % 3}", f"P{(i + 1) % 3}", match_id=i)
        for i in range(21)
    ]
    after = [singles(DAY + timedelta(days=40), "P1", "P3")]
    columns, objects = (
        Replayer(Params(lookback_days=10), BADMINTON),
        Replayer(Params(lookback_days=10), BADMINTON),
    )
    columns.rate_history(encode(good[:5]))
    objects.rate_all(good[:5])
    error, _ = _columns_outcome(columns, [*good[5:], bad, *after])
    assert error is not None
    assert _outcome_of(objects, [*good[5:], bad, *after])[0] == error
    assert_same_replayers(columns, objects)
    assert_same_changes(list(columns.rate_history(encode(after))), objects.rate_all(after))


def test_encode_takes_what_rate_takes_in_plain_form() -> None:
    """Sides and games as lists, as rate_all takes them; names and lines numbered once."""
    matches = [
        MatchResult(DAY, ["A"], ["B"], [[21, 15], [21, 17]], id=1),  # type: ignore[arg-type]
        MatchResult(DAY, ("B",), ("C",), ((21, 15), (21, 17)), id=2),
        MatchResult(DAY + timedelta(days=1), ("A", "C"), ("B", "D"), ((15, 21), (21, 9), (21, 3))),
    ]
    encoded = encode(matches)
    assert isinstance(encoded, History)
    assert len(encoded) == 3
    assert encoded.names == ["A", "B", "C", "D"]
    assert encoded.lines == [((21, 15), (21, 17)), ((15, 21), (21, 9), (21, 3))]
    assert decode(encoded, 0) == MatchResult(DAY, ("A",), ("B",), ((21, 15), (21, 17)), id=1)
    assert decode(encoded, 2) == matches[2]
    assert encoded.column("players").tolist() == [0, 1, 1, 2, 0, 2, 1, 3]
    assert encoded.column("line").tolist() == [0, 0, 1]
    assert encoded.column("ordinal").tolist() == [DAY.toordinal()] * 2 + [DAY.toordinal() + 1]
    columns, objects = Replayer(Params(), BADMINTON), Replayer(Params(), BADMINTON)
    assert_same_changes(list(columns.rate_history(encoded)), objects.rate_all(matches))
    assert_same_replayers(columns, objects)


def test_encode_rows_is_encode_of_the_same_matches() -> None:
    """Rows as a database query gives them (the site's runs): the same History as the
    matches; a row not in plain form is made plain, one that is no match refused."""
    matches = [
        MatchResult(DAY, ("A",), ("B",), ((21, 15), (21, 17)), id=1),
        MatchResult(DAY, ["B"], ["C"], [(21, 15), (21, 17)], id=2),  # type: ignore[arg-type]
        MatchResult(
            DAY + timedelta(days=1),
            ("A", "C"),
            ("B", "D"),
            ((15, 21), (21, 9), (21, 3)),
            stats={"A": {"kills": 3.0}},
            id=3,
        ),
    ]
    rows = [(m.played_on, m.side_a, m.side_b, m.games, m.id, m.stats) for m in matches]
    by_rows, by_matches = encode_rows(rows), encode(matches)
    assert [by_rows.row(i) for i in range(3)] == [by_matches.row(i) for i in range(3)]
    assert (by_rows.names, by_rows.lines, by_rows.stats) == (
        by_matches.names,
        by_matches.lines,
        by_matches.stats,
    )
    assert decode(by_rows, 2) == matches[2]
    with pytest.raises(EngineError, match="a match row is"):
        encode_rows([(DAY, ("A",), ("B",))])  # type: ignore[list-item]


def test_a_snapshots_windows_may_name_players_the_history_does_not() -> None:
    """Continuing from a snapshot (the site's new matches), loading a player loads the
    opponents of their window too, who need not play in the history rated: their rows'
    states before are still the players' (the run once read them out of bounds)."""
    params = Params(lookback_days=60)
    before = [
        singles(DAY + timedelta(days=i), f"Old{i}", "P1" if i % 2 else "P2", match_id=i)
        for i in range(40)
    ]
    later = DAY + timedelta(days=41)
    matches = [
        singles(later, "P1", "P2", match_id=100),
        singles(later, "P2", "New", match_id=101),
        singles(later, "P1", "P2", match_id=102),
    ]
    initial = {"New": PlayerState(5500.0, 250.0, 0.06)}
    first = Replayer(params, BADMINTON, initial)
    first.rate_all(before)
    columns = Replayer.from_snapshot(params, BADMINTON, first.snapshot())
    objects = Replayer.from_snapshot(params, BADMINTON, first.snapshot())
    got = columns.rate_history(encode(matches))
    assert_same_changes(list(got), objects.rate_all(matches))
    assert got.column("rating_before").tolist()[3] == 5500.0
    assert_same_replayers(columns, objects)


def test_encode_refuses_what_it_cannot_hold() -> None:
    with pytest.raises(EngineError, match="cannot be rated"):
        encode([MatchResult(DAY, ("A",), ("B",), ((21, 3), (21, 3)), id=2**70)])


def test_changes_are_columns_and_player_changes(bwf: list[MatchResult]) -> None:  # noqa: F811
    changes = Replayer(Params(), BADMINTON).rate_history(encode(bwf))
    expected = Replayer(Params(), BADMINTON).rate_all(bwf)
    assert isinstance(changes, Changes)
    assert len(changes) == len(bwf)
    assert changes[-1] == expected[-1]
    with pytest.raises(IndexError):
        changes[len(bwf)]
    flat = [c for match_changes in expected for c in match_changes]
    first = changes.column("first").tolist()
    assert first[0] == 0 and first[-1] == len(flat) and len(first) == len(bwf) + 1
    for name in FIELDS:
        if name == "player":
            names = encode(bwf).names
            assert [names[k] for k in changes.column("player")] == [c.player for c in flat]
        else:
            assert changes.column(name).tolist() == [getattr(c, name) for c in flat], name
    with pytest.raises(KeyError):
        changes.column("nothing")
    change = changes[2][0]
    assert type(change) is PlayerChange
    with pytest.raises(dataclasses.FrozenInstanceError):
        change.rating_after = 1.0  # type: ignore[misc]


def test_tune_scores_an_encoded_history_as_the_matches(bwf: list[MatchResult]) -> None:  # noqa: F811
    params = Params(outcome_model="score")
    assert train_score(encode(bwf), params, BADMINTON) == train_score(bwf, params, BADMINTON)


def test_a_history_of_no_matches() -> None:
    changes = Replayer(Params(), BADMINTON).rate_history(encode([]))
    assert len(changes) == 0
    assert changes.column("first").tolist() == [0]
    assert Replayer(Params(), BADMINTON).predict_rate_history(encode([]))[0] == []


def test_a_date_in_the_far_past_or_future() -> None:
    matches = [singles(date(1, 1, 1), "A", "B"), singles(date(9999, 12, 31), "A", "B")]
    rate_both(Params(), {}, matches)
