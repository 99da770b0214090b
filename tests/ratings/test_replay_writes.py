"""A replay after a late, corrected or voided match writes only the rows it changes (issue 14:
a replay from an early date on a large ladder), and what it stores still equals a replay
from scratch: the change rows, the states, and what the notifications and the match page
read from them."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ladder.matches import operations as matches
from ladder.matches.models import Game, Match, Notification
from ratings.models import PlayerRating, RatingChange
from ratings.pipeline import rate_ladder, recompute_ladder
from tests.factories import LadderFactory, MembershipFactory, UserFactory, login
from tests.matches.support import doubles_match
from tests.ratings.pages_support import text_of
from tests.ratings.test_pipeline import SCORES, START, assert_equals_replay, rows_by_pk

pytestmark = pytest.mark.django_db


def two_groups(make_match, name: str = "Groups"):  # type: ignore[no-untyped-def]
    """A ladder whose members play in two groups that never meet: A (4) and B (4)."""
    ladder = LadderFactory(name=name)
    users = [UserFactory(username=f"{name.lower()}{i}") for i in range(8)]
    for user in users:
        MembershipFactory(ladder=ladder, user=user)
    rng = random.Random(3)
    made = []
    for i in range(24):
        group = users[:4] if i % 2 else users[4:]
        a, b = rng.sample(group, 2)
        made.append(
            make_match(ladder, [a], [b], rng.choice(SCORES), START + timedelta(days=i // 2))
        )
    rate_ladder(ladder.pk)
    return ladder, users, made


def turn_round(match: Match, played_on: date | None = None) -> None:
    """Correct a rated match: its score the other way round (and maybe its date)."""
    for game in Game.objects.filter(match=match):
        game.a_points, game.b_points = game.b_points, game.a_points
        game.save()
    Match.objects.filter(pk=match.pk).update(
        state="corrected", needs_rating=True, played_on=played_on or match.played_on
    )


def test_a_correction_rewrites_only_the_rows_it_reached(make_match) -> None:  # type: ignore[no-untyped-def]
    ladder, users, made = two_groups(make_match)
    before = rows_by_pk(ladder)
    corrected = made[5]  # group A's
    turn_round(corrected)
    result = rate_ladder(ladder.pk)
    assert result.replayed_from == (corrected.played_on, corrected.pk)
    assert_equals_replay(ladder)
    after = rows_by_pk(ladder)
    # The corrected match's rows are written anew, the others it changed updated in place.
    own = {pk for pk, row in before.items() if row[0] == corrected.pk}  # row[0]: the match
    assert after.keys() - before.keys() and after.keys() & before.keys() == before.keys() - own
    changed = {pk for pk, row in after.items() if row != before.get(pk)}
    assert result.written == len(changed) > 2
    group_b = {u.pk for u in users[4:]}
    assert not any(after[pk][1] in group_b for pk in changed)  # [1]: the user
    earlier = {c.pk for c in RatingChange.objects.filter(played_on__lt=corrected.played_on)}
    assert not changed & earlier


def test_a_void_deletes_its_rows_and_replays_its_players(make_match) -> None:  # type: ignore[no-untyped-def]
    ladder, users, made = two_groups(make_match, "Voids")
    voided = made[2]
    Match.objects.filter(pk=voided.pk).update(state="voided", needs_rating=True)
    result = rate_ladder(ladder.pk)
    assert result.written > 0
    assert not RatingChange.objects.filter(match=voided).exists()
    assert_equals_replay(ladder)


@pytest.mark.parametrize("days", [-3, 3])
def test_a_correction_may_move_a_match_earlier_or_later(make_match, days) -> None:  # type: ignore[no-untyped-def]
    """Moved later, the match's rows stood before where its replay starts by its new date:
    the run starts where they stood."""
    ladder, _, made = two_groups(make_match, f"Moves{days + 3}")
    moved = made[10]
    turn_round(moved, moved.played_on + timedelta(days=days))
    result = rate_ladder(ladder.pk)
    assert result.replayed_from is not None
    assert result.replayed_from[0] == min(moved.played_on, moved.played_on + timedelta(days=days))
    assert_equals_replay(ladder)
    assert set(RatingChange.objects.filter(match=moved).values_list("played_on", flat=True)) == {
        moved.played_on + timedelta(days=days)
    }


def test_many_changed_matches_compare_every_row(make_match, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Past SNAPSHOT_NAMED changed matches (new settings mark them all) every row from the
    first is compared, written where it differs, and rows of matches no longer rated go."""
    monkeypatch.setattr("ratings.pipeline.SNAPSHOT_NAMED", 2)
    ladder, _, made = two_groups(make_match, "Many")
    before = rows_by_pk(ladder)
    turn_round(made[3])
    turn_round(made[8])
    Match.objects.filter(pk=made[6].pk).update(state="voided", needs_rating=True)
    result = rate_ladder(ladder.pk)
    assert_equals_replay(ladder)
    after = rows_by_pk(ladder)
    assert after.keys() == {pk for pk, row in before.items() if row[0] != made[6].pk}
    assert result.written == sum(1 for pk, row in after.items() if row != before[pk])
    # Nothing changed: nothing is written.
    Match.objects.filter(ladder=ladder, state__in=Match.RATED_STATES).update(needs_rating=True)
    assert rate_ladder(ladder.pk).written == 0
    assert rows_by_pk(ladder) == after
    assert recompute_ladder(ladder.pk) == 23
    assert rows_by_pk(ladder) == after


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(["correct", "move", "void", "late"]),
            st.integers(0, 17),
            st.integers(-4, 4),
        ),
        min_size=1,
        max_size=4,
    ),
    batch=st.booleans(),
)
def test_any_corrections_voids_and_late_matches_equal_the_replay(
    steps, batch, club, make_match
) -> None:  # type: ignore[no-untyped-def]
    """Random changes to a rated ladder, rated one at a time or together: the stored rows
    and states are always a replay from scratch."""
    _, users = club
    ladder = LadderFactory(name=f"Changes {LadderFactory._meta.model.objects.count()}")
    for user in users:
        MembershipFactory(ladder=ladder, user=user)
    rng = random.Random(9)
    made = [
        make_match(
            ladder,
            *[[u] for u in rng.sample(users, 2)],
            rng.choice(SCORES),
            START + timedelta(days=i // 2),
        )
        for i in range(18)
    ]
    rate_ladder(ladder.pk)
    for kind, at, days in steps:
        match = Match.objects.get(pk=made[at].pk)
        if kind == "correct" and match.state in Match.RATED_STATES:
            turn_round(match)
        elif kind == "move" and match.state in Match.RATED_STATES:
            turn_round(match, match.played_on + timedelta(days=days))
        elif kind == "void":
            Match.objects.filter(pk=match.pk).update(state="voided", needs_rating=True)
        else:
            a, b = rng.sample(users, 2)
            make_match(ladder, [a], [b], rng.choice(SCORES), match.played_on)
        if not batch:
            rate_ladder(ladder.pk)
            assert_equals_replay(ladder)
    rate_ladder(ladder.pk)
    assert_equals_replay(ladder)
    assert PlayerRating.objects.filter(ladder=ladder).count() == len(
        set(RatingChange.objects.filter(ladder=ladder).values_list("user_id", flat=True))
    )


def test_what_players_are_told_and_shown_after_a_late_match_and_a_correction(  # type: ignore[no-untyped-def]
    client, doubles, alice, bob, charlie, dave, mod
) -> None:
    """Through the site: matches confirmed, then one played earlier (late), then the first
    corrected to a later date. The late match's notification tells its stored change; the
    match pages explain the stored rows; everything equals a replay from scratch."""
    today = timezone.localdate()
    first = doubles_match(doubles, alice, bob, charlie, dave, played_on=today - timedelta(days=6))
    second = reported_match_on(doubles, alice, bob, charlie, dave, today - timedelta(days=2))
    for match in (first, second):
        matches.confirm_match(match, dave)
    rate_ladder(doubles.pk)
    late = reported_match_on(doubles, charlie, dave, alice, bob, today - timedelta(days=4))
    matches.confirm_match(late, alice)
    result = rate_ladder(doubles.pk)
    assert result.replayed_from == (late.played_on, late.pk)
    assert_equals_replay(doubles)
    for user in (alice, bob, charlie, dave):
        change = RatingChange.objects.get(match=late, user=user)
        told = Notification.objects.filter(user=user, kind="rating", match=late).get().text
        assert (
            f"went from {change.rating_before / 1000:.2f} to {change.rating_after / 1000:.2f}"
            in told
        )
    matches.correct_match(
        first, mod, [(15, 21), (18, 21)], "Scores swapped", played_on=today - timedelta(days=1)
    )
    result = rate_ladder(doubles.pk)
    assert result.replayed_from == (today - timedelta(days=6), first.pk)
    assert_equals_replay(doubles)
    assert Notification.objects.filter(kind="rating").count() == 12  # the runs told no one again
    login(client, alice)
    for match in (first, second, late):
        text = text_of(client.get(f"/matches/{match.pk}/").content.decode())
        for change in RatingChange.objects.filter(match=match):
            before = f"{change.rating_before / 1000:.2f}"
            after = f"{change.rating_after / 1000:.2f}"
            assert f"{change.user.name} : {before} → {after}" in text


def reported_match_on(ladder, reporter, partner, opponent, other, day):  # type: ignore[no-untyped-def]
    """``reporter`` & ``partner`` v ``opponent`` & ``other`` on ``day``, pending."""
    return doubles_match(ladder, reporter, partner, opponent, other, played_on=day)


def test_recompute_sets_right_the_marks_of_what_it_counted(make_match) -> None:  # type: ignore[no-untyped-def]
    """`recompute_ladder` (the repair after new settings, or by hand) counts every settled
    rated match and no other, and marks them so, as the incremental path expects."""
    ladder, _, made = two_groups(make_match, "Repair")
    Match.objects.filter(pk=made[3].pk).update(rated_at=None)  # counted, marked unrated
    Match.objects.filter(pk=made[7].pk).update(state="voided")  # not counted, marked rated
    assert recompute_ladder(ladder.pk) == 23
    assert_equals_replay(ladder)
    assert Match.objects.get(pk=made[3].pk).rated_at is not None
    assert Match.objects.get(pk=made[7].pk).rated_at is None
    assert not RatingChange.objects.filter(match=made[7]).exists()
