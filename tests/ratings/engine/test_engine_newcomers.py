"""RATINGS.md §4 newcomer_start: where a player without a given starting state starts.

"initial": at the ladder's initial rating (as before). "recent_newcomers": at the mean
current rating of the last NEWCOMER_SAMPLE players to join who have played since, the same
on every path through the Replayer (one match at a time, rate_all, the columnar history,
a snapshot continued).
"""

from __future__ import annotations

import pickle
import random
import statistics
from datetime import date, timedelta

import pytest

from ratings.engine import replay as replay_module
from ratings.engine.formats import get_format
from ratings.engine.replay import Replayer, encode, validate_params
from ratings.engine.types import NEWCOMER_SAMPLE, EngineError, MatchResult, Params, PlayerState

BADMINTON = get_format("badminton_21")
DAY = date(2024, 3, 1)
RECENT = Params(newcomer_start="recent_newcomers")


def singles(day: date, a: str, b: str, games=((21, 15), (21, 17)), match_id=None) -> MatchResult:
    return MatchResult(day, (a,), (b,), games, id=match_id)


def growing_field(n: int, seed: int, team_size: int = 1) -> list[MatchResult]:
    """A field that keeps taking in newcomers: match i may bring in a new player."""
    rng = random.Random(seed)
    people = [f"P{i}" for i in range(2 * team_size)]
    scores = [((21, 15), (21, 17)), ((19, 21), (21, 12), (21, 19)), ((12, 21), (22, 24))]
    day, matches = DAY, []
    for i in range(n):
        day += timedelta(days=rng.choice((0, 0, 1, 3, 9)))
        if rng.random() < 0.3:
            people.append(f"P{len(people)}")
        picked = rng.sample(people[-12:], 2 * team_size)
        if rng.random() < 0.4:  # a newcomer often plays at once
            picked[-1] = people[-1] if people[-1] not in picked else picked[-1]
        matches.append(
            MatchResult(
                day, tuple(picked[:team_size]), tuple(picked[team_size:]), rng.choice(scores), id=i
            )
        )
    return matches


def test_initial_starts_everyone_at_the_initial_rating() -> None:
    replayer = Replayer(Params(), BADMINTON)
    replayer.rate_all(growing_field(40, seed=1))
    assert replayer.state("Nobody").rating == Params().initial_rating
    firsts = _first_changes(Replayer(Params(), BADMINTON).rate_all(growing_field(40, seed=1)))
    assert {c.rating_before for c in firsts.values()} == {Params().initial_rating}


def test_the_first_players_start_at_the_initial_rating_then_at_the_newcomers_mean() -> None:
    replayer = Replayer(RECENT, BADMINTON)
    first = replayer.rate(singles(DAY, "Ann", "Bob"))
    # Nobody had joined (and played) before Ann or Bob: both start at the initial rating.
    assert [c.rating_before for c in first] == [4500.0, 4500.0]
    ann, bob = replayer.state("Ann").rating, replayer.state("Bob").rating
    assert ann > 4500.0 > bob
    # Cat joins against Ann: she starts at the mean of Ann's and Bob's ratings now.
    assert replayer.state("Cat").rating == pytest.approx((ann + bob) / 2)
    cat_first = replayer.rate(singles(DAY + timedelta(days=1), "Cat", "Ann"))[0]
    assert cat_first.rating_before == pytest.approx((ann + bob) / 2)
    # Dan and Eve join in one match: both start at the mean of Ann, Bob and Cat (neither
    # counts the other, who has not played yet).
    day = DAY + timedelta(days=2)
    mean = statistics.fmean(replayer.state(n).rating for n in ("Ann", "Bob", "Cat"))
    both = replayer.rate(singles(day, "Dan", "Eve"))
    assert [c.rating_before for c in both] == pytest.approx([mean, mean])


def test_only_the_last_sample_of_newcomers_counts(monkeypatch) -> None:
    monkeypatch.setattr(replay_module, "NEWCOMER_SAMPLE", 2)
    replayer = Replayer(RECENT, BADMINTON)
    replayer.rate(singles(DAY, "Ann", "Bob"))
    replayer.rate(singles(DAY, "Cat", "Ann", ((21, 5), (21, 5))))
    last_two = [replayer.state(n).rating for n in ("Bob", "Cat")]  # Ann joined first
    assert replayer.state("Dan").rating == pytest.approx(statistics.fmean(last_two))
    assert NEWCOMER_SAMPLE == 30  # the real sample: measured robust from 10 to 100


def test_a_given_starting_state_is_kept_and_not_a_newcomer() -> None:
    given = {"Pro": PlayerState(7000.0, 150.0, 0.06)}
    replayer = Replayer(RECENT, BADMINTON, given)
    replayer.rate(singles(DAY, "Ann", "Bob"))
    ann, bob = replayer.state("Ann").rating, replayer.state("Bob").rating
    assert replayer.rate(singles(DAY, "Pro", "Ann"))[0].rating_before == 7000.0
    # Pro is not among the newcomers whose mean the next one starts at.
    assert replayer.state("Cat").rating == pytest.approx((ann + bob) / 2)


@pytest.mark.parametrize("team_size", [1, 2])
def test_every_path_gives_the_same_predictions_changes_and_states(team_size: int) -> None:
    matches = growing_field(150, seed=4, team_size=team_size)
    one = Replayer(RECENT, BADMINTON)
    probs, changes = [], []
    for m in matches:
        probs.append(one.predict(m.side_a, m.side_b, m.played_on))
        changes.append(one.rate(m))
    batch = Replayer(RECENT, BADMINTON)
    assert batch.predict_rate_all(matches) == (probs, changes)
    columns = Replayer(RECENT, BADMINTON)
    history = encode(matches)
    assert list(columns.rate_history(history, 0, 60)) == changes[:60]
    column_probs, rest = columns.predict_rate_history(history, 60)
    assert column_probs == probs[60:] and list(rest) == changes[60:]
    for other in (batch, columns):
        assert dict(other.states) == dict(one.states)
    # and newcomers do start apart from the initial rating (the test is not vacuous)
    starts = {c.rating_before for c in _first_changes(changes).values()}
    assert len(starts) > 10


def test_a_snapshot_continues_with_the_same_newcomers() -> None:
    matches = growing_field(120, seed=7)
    whole = Replayer(RECENT, BADMINTON)
    expected = whole.rate_all(matches)
    part = Replayer(RECENT, BADMINTON)
    first = part.rate_all(matches[:50])
    snapshot = pickle.loads(pickle.dumps(part.snapshot()))
    assert snapshot.joined and snapshot == part.snapshot()
    restored = Replayer.from_snapshot(RECENT, BADMINTON, snapshot)
    assert first + restored.rate_all(matches[50:]) == expected
    assert dict(restored.states) == dict(whole.states)


def test_an_unknown_newcomer_start_is_refused() -> None:
    with pytest.raises(
        EngineError, match="newcomer_start must be one of initial, recent_newcomers"
    ):
        validate_params(Params(newcomer_start="median"))


def _first_changes(changes) -> dict:
    """Each player's change in their first match."""
    firsts: dict = {}
    for match in changes:
        for c in match:
            firsts.setdefault(c.player, c)
    return firsts
