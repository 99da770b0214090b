"""RATINGS.md version 2 in the site: what a stored change records and says, and ranked
status per ladder (§8) with the RD inflated to today."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from ladder.clubs.access import VISITOR
from ladder.clubs.models import Ladder
from ladder.clubs.services import save_settings
from ratings.engine.predict import inflated_rd
from ratings.engine.types import Params, PlayerState
from ratings.leaderboards import Board
from ratings.models import (
    INACTIVE,
    PROVISIONAL,
    RANKED,
    PlayerRating,
    RatingChange,
    established_until,
    ladder_standing,
    status_of,
)
from ratings.pipeline import rate_ladder
from tests.ratings.test_pipeline import assert_equals_replay

START = date(2026, 9, 1)


def change_of(ladder, user, match):  # type: ignore[no-untyped-def]
    return RatingChange.objects.get(ladder=ladder, user=user, match=match)


# ---- the stored change ---------------------------------------------------------------------


def test_a_clear_win_is_stored_and_explained_with_its_multiplier(club, make_match, client):  # type: ignore[no-untyped-def]
    ladder, users = club
    a, b = users[1], users[2]
    clear = make_match(ladder, [a], [b], [(21, 10), (21, 11)], START)
    narrow = make_match(ladder, [b], [a], [(22, 20), (22, 20)], START + timedelta(days=1))
    rate_ladder(ladder.pk)
    assert_equals_replay(ladder)
    winner, loser = change_of(ladder, a, clear), change_of(ladder, b, clear)
    # RATINGS.md §3 step 2: ratio 10.5/21 = 0.5, at least the clamp → m = 1 + margin_boost = 2;
    # the winner's outcome is 1.
    assert ladder.margin_clamp <= 0.5 and ladder.margin_boost == 1.0
    assert (winner.won, winner.outcome, winner.margin_multiplier) == (True, 1.0, 2.0)
    assert (loser.won, loser.outcome, loser.margin_multiplier) == (False, 0.0, 2.0)
    assert not winner.floor_applied and not loser.floor_applied
    # 22-20 twice: ratio 2/21 → m = 1 + (2/21) / margin_clamp.
    m = 1 + (2 / 21) / ladder.margin_clamp
    assert change_of(ladder, b, narrow).margin_multiplier == pytest.approx(m)
    page = client.get(f"/players/{a.username}/").content.decode()
    assert "a clear win: counted 2.0× a narrow one" in page
    assert f"the margin counted: {m:.1f}× a narrow loss" in page


def test_won_is_the_match_result_even_when_the_score_counts_below_half(club, make_match, client):  # type: ignore[no-untyped-def]
    """Under ``score`` with no win bonus, a 2–1 win whose games average a negative margin
    counts below 0.5 (RATINGS.md §3 step 2): it is still a win, in W–L and in words, and
    the wrong-way floor keeps the winner from losing rating."""
    ladder, users = club
    ladder.outcome_model, ladder.match_win_bonus = "score", 0.0
    ladder.save()
    a, b = users[1], users[2]
    match = make_match(ladder, [a], [b], [(21, 19), (2, 21), (21, 19)], START)
    rate_ladder(ladder.pk)
    assert_equals_replay(ladder)
    winner = change_of(ladder, a, match)
    assert winner.outcome < 0.5 and winner.won
    assert winner.rating_after >= winner.rating_before
    assert change_of(ladder, b, match).won is False
    row = PlayerRating.objects.get(ladder=ladder, user=a)
    assert (row.wins, row.losses) == (1, 0)
    history = APIClient().get(f"/api/v1/players/{a.username}/history/").json()["results"]
    assert history[0]["won"] is True and ", won 21-19 2-21 21-19:" in history[0]["explanation"]


def test_the_floor_is_stored_and_explained(club, make_match, client):  # type: ignore[no-untyped-def]
    """RATINGS.md §3 step 9 under ``score``: a strong player's narrow win over a much weaker
    one scores below what was expected; the floor keeps the rating, the row says so."""
    ladder, users = club
    ladder.outcome_model = "score"
    ladder.save()
    strong, weak = users[0], users[1]
    memberships = ladder.memberships.filter(user__in=[strong, weak])
    memberships.filter(user=strong).update(initial_rating=7000.0, initial_rd=60.0)
    memberships.filter(user=weak).update(initial_rating=3000.0, initial_rd=60.0)
    match = make_match(ladder, [strong], [weak], [(21, 19), (21, 19)], START)
    rate_ladder(ladder.pk)
    assert_equals_replay(ladder)
    winner, loser = change_of(ladder, strong, match), change_of(ladder, weak, match)
    assert winner.floor_applied and winner.change == 0 and winner.won
    assert loser.floor_applied and loser.change == 0 and not loser.won
    page = client.get(f"/players/{strong.username}/").content.decode()
    assert "a narrow win against a weaker player: no change" in page
    page = client.get(f"/players/{weak.username}/").content.decode()
    assert "a close loss against a stronger player: no change" in page


# ---- ranked status (RATINGS.md §8) ---------------------------------------------------------


def test_established_until_is_the_last_day_the_inflated_rd_fits() -> None:
    ladder = Ladder()
    params, ranked_rd, min_matches = ladder_standing(ladder)
    last = date(2026, 1, 1)
    # RD 119, volatility 0.06: 119.9 after 2 idle weeks, 120.4 after 3.
    state = PlayerState(5000.0, 119.0, 0.06, 9, last)
    assert established_until(state, params, 120.0, 5) == last + timedelta(days=20)
    assert inflated_rd(state, last + timedelta(days=20), params) <= 120
    assert inflated_rd(state, last + timedelta(days=21), params) > 120
    assert established_until(state, params, 120.0, 10) is None  # 9 matches: too few
    assert established_until(state, params, 118.0, 5) is None  # above already
    assert established_until(state, params, 500.0, 5) == date.max  # rd_max never exceeds it
    still = PlayerState(5000.0, 119.0, 0.0, 9, last)  # no volatility: never grows
    assert established_until(still, params, 120.0, 5) == date.max
    assert established_until(PlayerState(5000.0, 80.0, 0.06, 0, None), params, 120.0, 1) is None


def test_established_until_agrees_with_the_inflation_every_day() -> None:
    """§8's condition computed straight from the engine's inflation, for many states and
    days, equals ``established_until >= on``: the precomputed date is the same rule."""
    rng = random.Random(8)
    for _ in range(400):
        ladder = Ladder(
            rating_period_days=rng.choice([1, 7, 10]),
            ranked_rd=rng.choice([60.0, 120.0, 200.0]),
            ranked_min_matches=rng.choice([1, 5]),
        )
        params, ranked_rd, min_matches = ladder_standing(ladder)
        last = date(2026, 1, 1)
        state = PlayerState(
            5000.0, rng.uniform(40, 220), rng.uniform(0.01, 0.2), rng.randint(0, 8), last
        )
        until = established_until(state, params, ranked_rd, min_matches)
        for days in (0, 1, 6, 7, 13, 14, 29, 30, 60, 89, 90, 200):
            on = last + timedelta(days=days)
            direct = state.matches >= min_matches and inflated_rd(state, on, params) <= ranked_rd
            assert direct == (until is not None and until >= on), (state, days)


def test_established_until_with_season_starts_by_hand() -> None:
    """RATINGS.md §3 step 1 and §8: RD 119, volatility 0.06 fits two periods (119.9), not
    three (120.4). A season's start adds its periods on its first day."""
    last = date(2026, 1, 1)
    state = PlayerState(5000.0, 119.0, 0.06, 9, last)

    def until(*starts: date, per_start: int = 1) -> date | None:
        params = Params(season_start_periods=per_start, season_starts=starts)
        return established_until(state, params, 120.0, 5)

    def day(n: int) -> date:
        return last + timedelta(days=n)

    assert until() == day(20)  # no season: 14 days is 2 periods, 21 is 3
    assert until(day(5)) == day(13)  # 1 + 1 from day 5, 2 + 1 from day 14
    assert until(day(5), per_start=3) == day(4)  # 3 on day 5 already
    assert until(last) == day(20)  # a start on the last match's day: not crossed
    assert until(day(20)) == day(19)  # 2 + 1 on day 20
    assert until(day(21)) == day(20)  # past the day anyway
    assert until(date(2025, 9, 1), day(30)) == day(20)
    assert until(day(5), per_start=0) == day(20)


def test_established_until_agrees_with_the_inflation_every_day_across_seasons() -> None:
    """As above, with a ladder's seasons raising RDs at their starts: §8's condition from the
    engine's inflation (its own count of periods) equals ``established_until >= on``."""
    rng = random.Random(25)
    last = date(2026, 1, 1)
    for _ in range(400):
        ladder = Ladder(
            rating_period_days=rng.choice([1, 7, 10]),
            season_start_periods=rng.choice([0, 1, 4, 13, 52, 1000]),
            ranked_rd=rng.choice([60.0, 120.0, 200.0]),
            ranked_min_matches=rng.choice([1, 5]),
        )
        offsets = sorted(rng.sample(range(-30, 200), rng.randint(0, 5)))
        starts = tuple(last + timedelta(days=d) for d in offsets)
        params = ladder.params().with_overrides(season_starts=starts)
        state = PlayerState(
            5000.0, rng.uniform(40, 220), rng.uniform(0.01, 0.2), rng.randint(0, 8), last
        )
        until = established_until(state, params, ladder.ranked_rd, ladder.ranked_min_matches)
        for days in range(0, 230):
            on = last + timedelta(days=days)
            direct = (
                state.matches >= ladder.ranked_min_matches
                and inflated_rd(state, on, params) <= ladder.ranked_rd
            )
            assert direct == (until is not None and until >= on), (state, starts, days)


def test_status_needs_a_match_in_the_window_inclusive() -> None:
    ladder = Ladder(lookback_days=90)
    on = date(2026, 6, 30)
    state = PlayerState(5000.0, 50.0, 0.06, 10, on - timedelta(days=90))
    assert status_of(state, ladder, on) == RANKED
    assert status_of(state, ladder, on + timedelta(days=1)) == INACTIVE
    assert status_of(PlayerState(5000.0, 50.0, 0.06, 4, on), ladder, on) == PROVISIONAL


def test_new_ranked_settings_change_who_is_ranked_at_once(
    club, make_match, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    ladder, users = club
    rng = random.Random(3)
    today = timezone.localdate()
    for i in range(60):
        a, b = rng.sample(users, 2)
        make_match(ladder, [a], [b], [(21, 15), (21, 17)], today - timedelta(days=60 - i))
    rate_ladder(ladder.pk)
    changes = list(RatingChange.objects.filter(ladder=ladder).values_list("pk", "rating_after"))

    def counts() -> dict[str, int]:
        return Board(Ladder.objects.get(pk=ladder.pk), VISITOR).counts

    before = counts()
    assert before[RANKED] > 0
    version = Ladder.objects.get(pk=ladder.pk).board_version
    ladder.ranked_min_matches = 100
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        save_settings(ladder)
    assert callbacks == []  # no replay: the ratings do not change
    assert list(RatingChange.objects.filter(ladder=ladder).values_list("pk", "rating_after")) == (
        changes
    )
    assert Ladder.objects.get(pk=ladder.pk).board_version != version  # cached pages are stale
    after = counts()
    assert after[RANKED] == 0 and after[PROVISIONAL] == before[RANKED] + before[PROVISIONAL]
    untils = PlayerRating.objects.filter(ladder=ladder).values_list("established_until", flat=True)
    assert set(untils) == {None}
    ladder.ranked_min_matches, ladder.ranked_rd = 1, 500.0
    save_settings(ladder)
    everyone = counts()
    assert everyone[RANKED] == before[RANKED] + before[PROVISIONAL]
    assert_equals_replay(ladder)


def test_the_api_shows_the_ladders_v2_settings(club) -> None:  # type: ignore[no-untyped-def]
    ladder, _ = club
    body = APIClient().get(f"/api/v1/ladders/{ladder.slug}/").json()
    assert (body["outcome_model"], body["margin_boost"]) == ("margin_information", 1.0)
    assert (body["ranked_min_matches"], body["ranked_rd"], body["ranked_rd_display"]) == (
        5,
        120.0,
        "0.12",
    )
    assert body["params"]["wrong_way_floor"] is True
    assert body["params"]["outcome_model"] == "margin_information"


def test_tuned_settings_cannot_switch_the_floor_off(club) -> None:  # type: ignore[no-untyped-def]
    """`tune --apply` stores settings on a ladder: the wrong-way floor stays on (RATINGS.md §2);
    settings that would switch it off are refused and change nothing."""
    from ratings.engine.types import EngineError
    from ratings.services import apply_params

    ladder, _ = club
    before = Ladder.objects.filter(pk=ladder.pk).values().get()
    with pytest.raises(EngineError, match="the wrong-way floor is always on"):
        apply_params(ladder.slug, {"wrong_way_floor": False, "margin_boost": 2.0})
    assert Ladder.objects.filter(pk=ladder.pk).values().get() == before
    with pytest.raises(EngineError, match="Margin boost must be between 0 and 10"):
        apply_params(ladder.slug, {"margin_boost": 12.0})
    assert Ladder.objects.filter(pk=ladder.pk).values().get() == before
    applied = apply_params(
        ladder.slug, {"wrong_way_floor": True, "outcome_model": "score", "margin_boost": 0.5}
    )
    assert (applied.outcome_model, applied.margin_boost) == ("score", 0.5)
    assert applied.params().wrong_way_floor is True
