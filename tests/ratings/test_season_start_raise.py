"""A ladder's RD raise at a season's start on the site (RATINGS.md §3 step 1, RULES.md
"Seasons"): the rating runs, one match at a time or replayed, follow the ladder's seasons; a
first day added, moved or removed replays a ladder that raises, and only then; archived
tables stay; RD today and ranked status follow the same rule."""

from __future__ import annotations

import io
import json
from datetime import date, timedelta

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from ladder.clubs.access import OPERATOR, VISITOR
from ladder.clubs.formatting import format_rd
from ladder.clubs.services import save_settings
from ladder.matches.models import Match
from ladder.matches.visibility import shown_match
from ratings.engine.predict import inflated_rd
from ratings.engine.replay import replay
from ratings.engine.types import PlayerState
from ratings.histories import history_entries, match_changes
from ratings.models import (
    PROVISIONAL,
    RANKED,
    PlayerRating,
    RatingChange,
    Season,
    SeasonStanding,
    established_until,
    ladder_standing,
    rating_params,
    status_of,
)
from ratings.pipeline import initial_states, load_matches, rate_ladder, recompute_ladder
from ratings.seasons import freeze_season, season_table
from ratings.upkeep import delete_season, save_season
from tests.factories import LadderFactory, login
from tests.ratings.pages_support import NOON, TODAY, member, play, rated
from tests.ratings.test_pipeline import assert_equals_replay, season, stored

START = date(2026, 9, 1)
S = 173.7178


def add_season(ladder, name: str, first: date, last: date) -> Season:  # type: ignore[no-untyped-def]
    return save_season(
        Season(ladder=ladder, name=name, slug=name.lower(), starts_on=first, ends_on=last)
    )


def raise_at_season_starts(ladder, periods: int) -> None:  # type: ignore[no-untyped-def]
    ladder.season_start_periods = periods
    save_settings(ladder)


def run_command(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def waiting(ladder) -> int:  # type: ignore[no-untyped-def]
    return Match.objects.filter(ladder=ladder, needs_rating=True).count()


# ---- the rating runs -----------------------------------------------------------------------


def test_a_crossing_player_grows_by_the_seasons_periods(club, make_match) -> None:  # type: ignore[no-untyped-def]
    """p0 and p1 play on 1 Sep; p0 meets p2 (new) on 20 Sep, across a season starting on
    10 Sep: p0's RD going in is the RD after 1 Sep grown by 2 + 52 periods; p2's is its start."""
    ladder, p = club
    raise_at_season_starts(ladder, 52)
    add_season(ladder, "Autumn", date(2026, 9, 10), date(2026, 11, 30))
    make_match(ladder, [p[0]], [p[1]], [(21, 15), (21, 18)], START)
    rate_ladder(ladder.pk)
    second = make_match(ladder, [p[0]], [p[2]], [(21, 15), (21, 18)], date(2026, 9, 20))
    assert rate_ladder(ladder.pk).replayed_from is None  # one match at a time
    first = RatingChange.objects.get(ladder=ladder, user=p[0], played_on=START)
    after = RatingChange.objects.get(match=second, user=p[0])
    want = S * ((first.rd_after / S) ** 2 + 54 * first.volatility_after**2) ** 0.5
    assert after.rd_before == pytest.approx(want, rel=1e-12)
    newcomer = RatingChange.objects.get(match=second, user=p[2])
    assert newcomer.rd_before == p[2].memberships.get(ladder=ladder).initial_rd
    assert_equals_replay(ladder)
    # The match page says why the RD had grown after 19 days (a break alone says nothing
    # before 30 days): the season's start.
    why = {
        row.change.user_id: row.explanation for row in match_changes(shown_match(OPERATOR, second))
    }
    grew = f"from ± {format_rd(first.rd_after)} to ± {format_rd(after.rd_before)}"
    assert f"first match of a new season: RD had grown {grew}" in why[p[0].pk]
    assert "new season" not in why[p[2].pk]  # a first match: nothing grew
    history = RatingChange.objects.history(p[0], ladder)
    entries = history_entries(history, {ladder.pk: ladder}, {})
    assert "first match of a new season" in entries[0].explanation
    assert "new season" not in entries[1].explanation


def test_one_match_at_a_time_equals_a_full_replay_across_season_starts(club, make_match) -> None:  # type: ignore[no-untyped-def]
    ladder, users = club
    raise_at_season_starts(ladder, 4)
    add_season(ladder, "One", date(2026, 9, 1), date(2026, 9, 14))
    add_season(ladder, "Two", date(2026, 9, 15), date(2026, 9, 30))
    add_season(ladder, "Three", date(2026, 10, 1), date(2026, 10, 31))
    for seed, start in ((1, START), (2, date(2026, 9, 13)), (3, date(2026, 10, 1))):
        season(ladder, users, make_match, 12, seed=seed, start=start)
        assert rate_ladder(ladder.pk).replayed_from is None
    assert_equals_replay(ladder)
    step_by_step = stored(ladder)
    recompute_ladder(ladder.pk)
    assert stored(ladder) == step_by_step
    # The seasons mattered: without them the same matches give other RDs.
    plain = replay(load_matches(ladder), ladder.params(), ladder.scoring(), initial_states(ladder))
    plain_rds = sorted(c.rd_before for changes in plain.changes for c in changes)
    assert plain_rds != sorted(row[4] for row in step_by_step[0])


def test_without_the_raise_seasons_change_no_number(club, make_match) -> None:  # type: ignore[no-untyped-def]
    """season_start_periods 0, the default: the same rows with seasons as without, and a
    season added or deleted replays nothing."""
    ladder, users = club
    season(ladder, users, make_match, 24, seed=4)
    rate_ladder(ladder.pk)
    before = stored(ladder)
    autumn = add_season(ladder, "Autumn", date(2026, 9, 4), date(2026, 9, 30))
    assert waiting(ladder) == 0
    delete_season(autumn)
    assert waiting(ladder) == 0
    add_season(ladder, "Winter", date(2026, 9, 6), date(2026, 12, 31))
    recompute_ladder(ladder.pk)
    assert stored(ladder) == before
    assert rating_params(ladder) == ladder.params()


def test_season_edits_replay_a_ladder_that_raises(
    club, make_match, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    ladder, users = club
    raise_at_season_starts(ladder, 13)
    season(ladder, users, make_match, 24, seed=5)
    rate_ladder(ladder.pk)
    plain = stored(ladder)
    with django_capture_on_commit_callbacks(execute=True):
        autumn = add_season(ladder, "Autumn", date(2026, 9, 4), date(2026, 9, 30))
    assert waiting(ladder) == 0  # the replay ran when the season was stored
    assert_equals_replay(ladder)
    raised = stored(ladder)
    assert raised != plain
    # A name or a last day changes no rating: nothing replays.
    autumn.name, autumn.ends_on = "Fall", date(2026, 10, 15)
    with django_capture_on_commit_callbacks(execute=False):
        save_season(autumn)
    assert waiting(ladder) == 0
    # Moving the first day does.
    autumn.starts_on = date(2026, 9, 6)
    with django_capture_on_commit_callbacks(execute=True):
        save_season(autumn)
    assert waiting(ladder) == 0
    assert_equals_replay(ladder)
    assert stored(ladder) != raised
    # So does deleting it: back to the ratings without seasons.
    with django_capture_on_commit_callbacks(execute=True):
        delete_season(autumn)
    assert_equals_replay(ladder)
    assert stored(ladder) == plain


def test_season_edits_wait_for_the_run_like_new_settings(club, make_match) -> None:  # type: ignore[no-untyped-def]
    """Without the commit (a task not run yet), the edit has marked every rated match."""
    ladder, users = club
    raise_at_season_starts(ladder, 4)
    season(ladder, users, make_match, 9, seed=6)
    rate_ladder(ladder.pk)
    add_season(ladder, "Autumn", date(2026, 9, 2), date(2026, 9, 30))
    assert waiting(ladder) == 9


def test_turning_the_raise_on_replays_and_archived_tables_stay(
    club, make_match, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    ladder, users = club
    spring = add_season(ladder, "Spring", date(2026, 3, 1), date(2026, 5, 31))
    add_season(ladder, "Summer", date(2026, 6, 1), date(2026, 8, 31))
    season(ladder, users, make_match, 18, seed=7, start=date(2026, 4, 20))
    season(ladder, users, make_match, 18, seed=8, start=date(2026, 7, 20))
    rate_ladder(ladder.pk)
    assert freeze_season(spring, date(2026, 9, 1))
    archive = list(SeasonStanding.objects.filter(season=spring).values_list())
    table = season_table(spring, VISITOR, date(2026, 9, 1))
    ratings_before = stored(ladder)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        raise_at_season_starts(ladder, 26)
    assert callbacks  # the replay, as for any rating setting
    assert_equals_replay(ladder)
    assert stored(ladder) != ratings_before
    assert list(SeasonStanding.objects.filter(season=spring).values_list()) == archive
    assert season_table(spring, VISITOR, date(2026, 9, 1)) == table


def test_deleting_a_ladder_with_seasons_that_raise_asks_for_no_run(
    db, monkeypatch, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    """Its seasons go with it; a rating run asked for then would look for a ladder that is
    gone (and a ladder with matches cannot be deleted at all)."""
    asked: list[int] = []
    monkeypatch.setattr("ratings.services.enqueue_rating", asked.append)
    ladder = LadderFactory(season_start_periods=4)
    ladder_id = ladder.pk
    autumn = add_season(ladder, "Autumn", date(2026, 9, 4), date(2026, 9, 30))
    add_season(ladder, "Winter", date(2026, 12, 1), date(2027, 2, 28))
    with django_capture_on_commit_callbacks(execute=True):
        delete_season(autumn)  # a season deleted on its own: the ladder replays
    assert asked == [ladder_id]
    with django_capture_on_commit_callbacks(execute=True):
        ladder.delete()
    assert asked == [ladder_id]
    assert not Season.objects.exists()


# ---- RD today and ranked status (RATINGS.md §8) ----------------------------------------------


@pytest.fixture
def frozen(time_machine):  # type: ignore[no-untyped-def]
    time_machine.move_to(NOON, tick=False)


def test_rd_today_and_status_count_a_season_start_crossed(db, frozen) -> None:  # type: ignore[no-untyped-def]
    """ann last played 10 days ago, before a season that started 5 days ago; ben played 3
    days ago, in it. With 100 periods a start, ann's RD today is
    173.7178 * sqrt((60 / 173.7178)^2 + (1 + 100) * 0.06^2) = 120.72: above the ranked RD
    of 120, so she is provisional; ben, who crossed nothing, stays at 60 and ranked."""
    ladder = LadderFactory(name="Club", slug="club", season_start_periods=100)
    add_season(ladder, "Summer", TODAY - timedelta(days=5), TODAY + timedelta(days=60))
    ann, ben = member(ladder, "ann"), member(ladder, "ben")
    row_ann = rated(ladder, ann, rd=60.0, last_played=TODAY - timedelta(days=10))
    rated(ladder, ben, rd=60.0, last_played=TODAY - timedelta(days=3))
    assert row_ann.established_until == TODAY - timedelta(days=6)  # the day before the start
    body = APIClient().get("/api/v1/ladders/club/leaderboard/").json()
    rows = {row["username"]: row for row in body["results"]}
    assert rows["ann"]["rd_today"] == pytest.approx(120.72, abs=0.01)
    assert (rows["ann"]["status"], rows["ann"]["rd_display"]) == (PROVISIONAL, "0.12")
    assert (rows["ben"]["status"], rows["ben"]["rd_today"]) == (RANKED, 60.0)
    # The engine's rule, straight: the same RD, and the same status from the state alone.
    state = PlayerState(4500.0, 60.0, 0.06, 10, TODAY - timedelta(days=10))
    assert inflated_rd(state, TODAY, rating_params(ladder)) == rows["ann"]["rd_today"]
    assert status_of(state, ladder, TODAY) == PROVISIONAL
    assert status_of(state, ladder, TODAY - timedelta(days=6)) == RANKED
    page = APIClient().get("/api/v1/ladders/club/leaderboard/", {"status": "ranked"}).json()
    assert [row["username"] for row in page["results"]] == ["ben"]


def test_without_the_raise_the_same_player_stays_ranked(db, frozen) -> None:  # type: ignore[no-untyped-def]
    ladder = LadderFactory(name="Club", slug="club")
    add_season(ladder, "Summer", TODAY - timedelta(days=5), TODAY + timedelta(days=60))
    ann = member(ladder, "ann")
    rated(ladder, ann, rd=60.0, last_played=TODAY - timedelta(days=10))
    row = APIClient().get("/api/v1/ladders/club/leaderboard/").json()["results"][0]
    assert row["status"] == RANKED
    assert row["rd_today"] == pytest.approx(S * ((60 / S) ** 2 + 0.06**2) ** 0.5, rel=1e-12)


def test_a_season_added_later_moves_ranked_until_through_the_replay(
    db, frozen, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    """Rows written before a season was added are written again by the replay it sets off:
    each ranked-until counts the new first day (a later one, too: RDs will grow then)."""
    ladder = LadderFactory(name="Club", slug="club", season_start_periods=1000, ranked_rd=200)
    players = [member(ladder, name) for name in ("ann", "ben", "cat", "dan")]
    for week in range(6):
        for i, (a, b) in enumerate(((0, 1), (2, 3), (0, 2), (1, 3))):
            day = TODAY - timedelta(days=60 - 7 * week - i)
            play(ladder, [players[a]], [players[b]], [(21, 15), (21, 17)], day)
    rate_ladder(ladder.pk)
    before = dict(PlayerRating.objects.values_list("user__username", "established_until"))
    with django_capture_on_commit_callbacks(execute=True):
        add_season(ladder, "Autumn", TODAY + timedelta(days=10), TODAY + timedelta(days=90))
    after = dict(PlayerRating.objects.values_list("user__username", "established_until"))
    standing = ladder_standing(ladder)
    for row in PlayerRating.objects.all():
        state = PlayerState(row.rating, row.rd, row.volatility, row.matches, row.last_played)
        assert row.established_until == established_until(state, *standing)
    moved = [n for n in after if before[n] != after[n]]
    assert moved
    # 1000 periods take any RD past 200 (sqrt(1000) * 0.06 * 173.7 = 330): ranked until the
    # day before the start at the latest.
    assert all(after[n] <= TODAY + timedelta(days=9) < before[n] for n in moved)


# ---- the seasons pages ------------------------------------------------------------------------


def test_the_seasons_pages_say_what_a_raising_ladder_does(
    client, club, make_match, mod, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    ladder, users = club
    url = f"/ladders/{ladder.slug}/seasons/"
    add_season(ladder, "Autumn", date(2026, 9, 4), date(2026, 9, 30))
    login(client, mod)
    assert "grows as" not in client.get(url).content.decode()
    raise_at_season_starts(ladder, 4)
    season(ladder, users, make_match, 9, seed=10)
    rate_ladder(ladder.pk)
    page = client.get(url).content.decode()
    assert "the ± of everyone who played before it grows as 4 more rating periods" in page
    assert "A new season's first day recalculates the ratings" in page
    edit = client.get(f"{url}autumn/edit/").content.decode()
    assert "moving the first day recalculates the ratings" in edit
    # The days as a date input takes them, so the browser shows them (not 04/09/2026).
    assert 'name="starts_on" value="2026-09-04"' in edit
    assert 'name="ends_on" value="2026-09-30"' in edit
    assert "the ratings are recalculated without this season's start" in edit
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{url}autumn/edit/", {"delete": "1"}, follow=True)
    assert "Autumn is deleted; the ratings are recalculated without its start." in (
        response.content.decode().replace("&#x27;", "'")
    )
    assert_equals_replay(ladder)


def test_backtest_on_a_raising_ladder_follows_its_seasons(club, make_match) -> None:  # type: ignore[no-untyped-def]
    """`backtest --ladder` starts from the ladder's rules, season starts included."""
    ladder, users = club
    season(ladder, users, make_match, 30, seed=11)
    rate_ladder(ladder.pk)
    plain = json.loads(run_command("backtest", "--ladder", ladder.slug, "--json"))
    raise_at_season_starts(ladder, 52)
    add_season(ladder, "Autumn", date(2026, 9, 6), date(2026, 9, 30))
    raised = json.loads(run_command("backtest", "--ladder", ladder.slug, "--json"))
    assert raised["matches"] == plain["matches"] == 30
    assert raised["systems"]["default"] != plain["systems"]["default"]
    assert raised["systems"]["elo"] == plain["systems"]["elo"]  # the peers know no seasons
