"""The ratings pipeline: stored ratings always equal a replay of the rated matches."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ladder.matches.models import Match
from ratings.engine.replay import replay
from ratings.engine.types import PlayerState
from ratings.models import (
    PlayerRating,
    RatingChange,
    established_until,
    ladder_standing,
    rating_params,
)
from ratings.pipeline import (
    _last_rated_key,
    _snapshot,
    initial_states,
    load_matches,
    rate_ladder,
    recompute_ladder,
)

START = date(2026, 9, 1)
SCORES = [
    ((21, 15), (21, 18)),
    ((21, 12), (19, 21), (21, 19)),
    ((15, 21), (21, 23)),
    ((30, 29), (21, 10)),
]


def stored(ladder):  # type: ignore[no-untyped-def]
    """Every stored number, in a comparable form."""
    changes = list(
        RatingChange.objects.filter(ladder=ladder)
        .order_by("played_on", "match_id", "user_id")
        .values_list(
            "match_id",
            "user_id",
            "side",
            "rating_before",
            "rd_before",
            "volatility_before",
            "rating_after",
            "rd_after",
            "volatility_after",
            "expected",
            "outcome",
            "repetition_weight",
            "diversity_ratio",
            "gate_open",
            "performance_weight",
            "won",
            "margin_multiplier",
            "floor_applied",
            "change",
        )
    )
    states = list(
        PlayerRating.objects.filter(ladder=ladder)
        .order_by("user_id")
        .values_list(
            "user_id",
            "rating",
            "rd",
            "volatility",
            "matches",
            "wins",
            "losses",
            "last_played",
            "established_until",
        )
    )
    return changes, states


def expected(ladder):  # type: ignore[no-untyped-def]
    """What a replay from scratch of the ladder's rated matches gives, straight from the engine
    (with the ladder's seasons' first days where they raise RDs: RATINGS.md §3 step 1)."""
    params = rating_params(ladder)
    result = replay(load_matches(ladder), params, ladder.scoring(), initial_states(ladder))
    changes = sorted(
        (
            m.id,
            int(c.player),
            c.rating_before,
            c.rd_before,
            c.volatility_before,
            c.rating_after,
            c.rd_after,
            c.volatility_after,
            c.expected,
            c.outcome,
            c.repetition_weight,
            c.diversity_ratio,
            c.gate_open,
            c.performance_weight,
            c.won,
            c.margin_multiplier,
            c.floor_applied,
        )
        for m, cs in zip(result.matches, result.changes, strict=True)
        for c in cs
    )
    states = {
        int(p): (s.rating, s.rd, s.volatility, s.matches, s.last_played)
        for p, s in result.states.items()
    }
    return changes, states


def assert_equals_replay(ladder) -> None:  # type: ignore[no-untyped-def]
    changes, states = stored(ladder)
    want_changes, want_states = expected(ladder)
    got = sorted((c[0], c[1], *c[3:18]) for c in changes)
    assert got == want_changes
    assert {s[0]: (s[1], s[2], s[3], s[4], s[7]) for s in states} == want_states
    assert not Match.objects.filter(ladder=ladder, needs_rating=True).exists()
    # W–L from the stored results; ranked standing (RATINGS.md §8) from the final state.
    standing = ladder_standing(ladder)
    for user_id, rating, rd, volatility, matches, wins, losses, last, until in states:
        won = [c[15] for c in changes if c[1] == user_id]
        assert (wins, losses) == (sum(won), len(won) - sum(won))
        state = PlayerState(rating, rd, volatility, matches, last)
        assert until == established_until(state, *standing)


def rows_by_pk(ladder):  # type: ignore[no-untyped-def]
    """The ladder's change rows, every stored value, by primary key."""
    return {row[0]: row[1:] for row in RatingChange.objects.filter(ladder=ladder).values_list()}


def season(ladder, users, make_match, n: int, seed: int = 1, start: date = START):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    matches = []
    for i in range(n):
        a, b = rng.sample(users, 2)
        matches.append(
            make_match(ladder, [a], [b], rng.choice(SCORES), start + timedelta(days=i // 3))
        )
    return matches


def test_confirmed_matches_are_rated_once_in_order(club, make_match) -> None:
    ladder, users = club
    season(ladder, users, make_match, 12)
    result = rate_ladder(ladder.pk)
    assert result.rated == 12 and result.replayed_from is None
    assert RatingChange.objects.filter(ladder=ladder).count() == 24
    assert_equals_replay(ladder)
    again = rate_ladder(ladder.pk)
    assert again.rated == 0
    assert RatingChange.objects.filter(ladder=ladder).count() == 24


def test_new_matches_continue_from_the_stored_state(club, make_match) -> None:
    """The incremental path (stored states + lookback window) equals a replay from scratch."""
    ladder, users = club
    season(ladder, users, make_match, 10, seed=2)
    rate_ladder(ladder.pk)
    season(ladder, users, make_match, 10, seed=3, start=START + timedelta(days=5))
    result = rate_ladder(ladder.pk)
    assert result.rated == 10 and result.replayed_from is None
    assert_equals_replay(ladder)
    counts = dict(PlayerRating.objects.filter(ladder=ladder).values_list("user_id", "matches"))
    for rating in PlayerRating.objects.filter(ladder=ladder):
        assert rating.wins + rating.losses == rating.matches == counts[rating.user_id]


def test_a_late_match_replays_from_its_date(club, make_match) -> None:
    ladder, users = club
    season(ladder, users, make_match, 9, seed=4, start=START + timedelta(days=10))
    rate_ladder(ladder.pk)
    before = rows_by_pk(ladder)
    make_match(ladder, [users[0]], [users[1]], ((21, 5), (21, 7)), START)
    result = rate_ladder(ladder.pk)
    assert result.replayed_from is not None and result.replayed_from[0] == START
    assert result.rated == 10
    assert_equals_replay(ladder)
    # The late match's rows are added, those it changed are updated in place.
    after = rows_by_pk(ladder)
    assert len(after) == len(before) + 2 and before.keys() < after.keys()
    written = [pk for pk, row in after.items() if before.get(pk) != row]
    assert result.written == len(written) > 2


def test_void_and_correction_replay_from_that_match(club, make_match) -> None:
    ladder, users = club
    matches = season(ladder, users, make_match, 12, seed=5)
    rate_ladder(ladder.pk)
    voided, corrected = matches[3], matches[6]
    Match.objects.filter(pk=voided.pk).update(state="voided", needs_rating=True)
    corrected.games.all().delete()
    corrected.games.create(number=1, a_points=2, b_points=21)
    corrected.games.create(number=2, a_points=3, b_points=21)
    Match.objects.filter(pk=corrected.pk).update(state="corrected", needs_rating=True)
    result = rate_ladder(ladder.pk)
    assert result.replayed_from is not None and result.replayed_from == (
        voided.played_on,
        voided.pk,
    )
    assert not RatingChange.objects.filter(match=voided).exists()
    loser = RatingChange.objects.get(match=corrected, side="a")
    assert loser.outcome < 0.5 and loser.change < 0
    assert_equals_replay(ladder)
    voided.refresh_from_db()
    assert voided.rated_at is None and not voided.needs_rating


def test_unrated_states_are_never_rated(club, make_match) -> None:
    ladder, users = club
    for state in ("pending", "disputed", "cancelled", "expired", "voided"):
        make_match(ladder, [users[0]], [users[1]], ((21, 5), (21, 5)), START, state=state)
    Match.objects.filter(ladder=ladder).update(needs_rating=True)  # even if flagged by mistake
    assert rate_ladder(ladder.pk).rated == 0
    assert not RatingChange.objects.exists() and not PlayerRating.objects.exists()


def test_recompute_twice_gives_identical_rows(club, make_match) -> None:
    ladder, users = club
    season(ladder, users, make_match, 15, seed=6)
    rate_ladder(ladder.pk)
    first = stored(ladder)
    assert recompute_ladder(ladder.pk) == 15
    second = stored(ladder)
    recompute_ladder(ladder.pk)
    third = stored(ladder)
    assert second[1] == third[1] and first[1] == second[1]
    # Rows are rewritten (new ids), their content is identical.
    assert [c[1:] for c in second[0]] == [c[1:] for c in third[0]] == [c[1:] for c in first[0]]


@pytest.mark.parametrize("team_size", [1, 2])
@pytest.mark.parametrize("named", [True, False])
def test_a_new_match_reads_only_its_players_and_still_equals_the_replay(  # type: ignore[no-untyped-def]
    db, make_match, team_size, named, monkeypatch
) -> None:
    """The incremental path rebuilds the states and lookback windows of the new matches'
    players only (a ladder of thousands is not read for one match), or of the whole ladder
    past SNAPSHOT_NAMED players; repeat opponents, a first match from a self-assessment
    and a chain of matches in one run all agree with a replay from scratch."""
    if not named:
        monkeypatch.setattr("ratings.pipeline.SNAPSHOT_NAMED", 2)
    from decimal import Decimal

    from tests.factories import LadderFactory, MembershipFactory, UserFactory

    ladder = LadderFactory(
        name=f"Partial {team_size}", slug=f"partial{team_size}", team_size=team_size
    )
    users = [UserFactory(username=f"q{team_size}{i}") for i in range(12)]
    for i, user in enumerate(users):
        MembershipFactory(ladder=ladder, user=user, self_level=Decimal("5.5") if i == 11 else None)
    rng = random.Random(5)
    regulars = users[:11]
    for i in range(40):
        four = rng.sample(regulars, 2 * team_size)
        make_match(
            ladder,
            four[:team_size],
            four[team_size:],
            rng.choice(SCORES),
            START + timedelta(days=i // 4),
        )
    rate_ladder(ladder.pk)
    a, b, c, d, e, f = users[0], users[1], users[2], users[3], users[11], users[4]
    later = START + timedelta(days=12)
    if team_size == 1:
        batch = [([a], [b]), ([b], [e]), ([a], [b])]  # a repeat, a newcomer, a chain
    else:
        batch = [([a, b], [c, d]), ([b, e], [c, f]), ([a, b], [c, d])]
    new = [make_match(ladder, x, y, rng.choice(SCORES), later) for x, y in batch]
    players = {u.pk for x, y in batch for u in (*x, *y)}
    snapshot = _snapshot(ladder, _last_rated_key(ladder), players)
    read = {int(name) for name in (*snapshot.states, *snapshot.initial, *snapshot.recent)}
    assert read <= players if named else read == {u.pk for u in users}
    assert str(e.pk) in snapshot.initial and str(a.pk) in snapshot.recent
    result = rate_ladder(ladder.pk)
    assert result.rated == len(new) and result.replayed_from is None
    assert_equals_replay(ladder)


def test_doubles_ladder_is_rated_with_the_team_method(db, make_match) -> None:  # type: ignore[no-untyped-def]
    from tests.factories import LadderFactory, MembershipFactory, UserFactory

    ladder = LadderFactory(name="Pipeline Doubles", slug="pdoubles", team_size=2)
    users = [UserFactory(username=f"d{i}") for i in range(6)]
    for user in users:
        MembershipFactory(ladder=ladder, user=user)
    rng = random.Random(7)
    for i in range(10):
        four = rng.sample(users, 4)
        make_match(ladder, four[:2], four[2:], rng.choice(SCORES), START + timedelta(days=i))
    rate_ladder(ladder.pk)
    assert RatingChange.objects.filter(ladder=ladder).count() == 40
    assert_equals_replay(ladder)


@pytest.mark.django_db
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(order=st.permutations(range(8)), batch=st.integers(min_value=1, max_value=4))
def test_any_confirmation_order_equals_the_chronological_replay(
    order, batch, club, make_match
) -> None:  # type: ignore[no-untyped-def]
    """Confirmations arrive shuffled and in batches; the result is always the replay."""
    # A fresh ladder for each example: matches are never deleted (their audit trail stays).
    from tests.factories import LadderFactory, MembershipFactory

    _, users = club
    ladder = LadderFactory(name=f"Shuffle {LadderFactory._meta.model.objects.count()}")
    for user in users:
        MembershipFactory(ladder=ladder, user=user)
    rng = random.Random(8)
    matches = [
        make_match(
            ladder,
            *[[u] for u in rng.sample(users, 2)],
            rng.choice(SCORES),
            START + timedelta(days=i),
            state="pending",
        )
        for i in range(8)
    ]
    for start in range(0, 8, batch):
        ids = [matches[i].pk for i in order[start : start + batch]]
        Match.objects.filter(pk__in=ids).update(state="confirmed", needs_rating=True)
        rate_ladder(ladder.pk)
    assert_equals_replay(ladder)
