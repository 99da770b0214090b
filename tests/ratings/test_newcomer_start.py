"""RATINGS.md §4 newcomer_start on the site: a member who skips the self-assessment on a
ladder set to "recent_newcomers" starts at the mean current rating of the last members to
play their first rated match (stored on the membership when they join)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.urls import reverse

from ladder.clubs.models import Membership
from ladder.clubs.services import join_ladder, save_settings
from ladder.matches.models import Match
from ratings import services
from ratings.engine.types import EngineError
from ratings.models import PlayerRating, RatingChange, rating_params
from ratings.pipeline import rate_ladder, recompute_ladder
from ratings.services import apply_params
from tests.factories import LadderFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

WIN = ((21, 10), (21, 12))


@pytest.fixture
def running(make_match):
    """A recent_newcomers ladder where a (self-assessed 5.5) and b started on day 1, c on
    day 2, d on day 3."""
    ladder = LadderFactory(slug="newcomers", newcomer_start="recent_newcomers")
    users = {}
    for name in "abcd":
        users[name] = UserFactory(username=name)
        level = "5.5" if name == "a" else None
        MembershipFactory(ladder=ladder, user=users[name], self_level=level)
    make_match(ladder, [users["a"]], [users["b"]], WIN, date(2026, 3, 1))
    make_match(ladder, [users["c"]], [users["a"]], WIN, date(2026, 3, 2))
    make_match(ladder, [users["b"]], [users["d"]], WIN, date(2026, 3, 3))
    rate_ladder(ladder.pk)
    return ladder, users


def ratings_of(ladder, names):
    return [PlayerRating.objects.get(ladder=ladder, user__username=n).rating for n in names]


def test_a_member_without_a_level_starts_at_the_mean_of_those_who_started_playing(running):
    ladder, _ = running
    ratings = ratings_of(ladder, "abcd")
    assert len(set(ratings)) == 4  # the mean is not the initial rating by accident
    membership = join_ladder(UserFactory(username="eve"), ladder)
    assert membership.initial_rating == pytest.approx(sum(ratings) / 4)
    assert membership.initial_rating != ladder.initial_rating
    assert membership.initial_rd == ladder.initial_rd


def test_only_the_last_members_to_start_playing_count(running, monkeypatch):
    ladder, _ = running
    monkeypatch.setattr(services, "NEWCOMER_SAMPLE", 2)
    membership = join_ladder(UserFactory(username="eve"), ladder)
    assert membership.initial_rating == pytest.approx(sum(ratings_of(ladder, "dc")) / 2)


def test_a_self_assessment_still_decides(running):
    ladder, _ = running
    membership = join_ladder(UserFactory(username="eve"), ladder, Decimal("5.5"), "rated")
    assert (membership.initial_rating, membership.initial_rd) == (5500, 150)


def test_before_anyone_has_played_the_initial_rating(db):
    ladder = LadderFactory(slug="fresh", newcomer_start="recent_newcomers")
    MembershipFactory(ladder=ladder, user=UserFactory(username="a"))
    assert join_ladder(UserFactory(username="eve"), ladder).initial_rating == ladder.initial_rating


def test_a_ladder_left_at_initial_starts_everyone_there(running):
    ladder, _ = running
    ladder.newcomer_start = "initial"
    ladder.save()
    assert join_ladder(UserFactory(username="eve"), ladder).initial_rating == 4500


def test_the_join_page_stores_it(client, running):
    ladder, _ = running
    eve = UserFactory(username="eve")
    client.force_login(eve)
    response = client.post(
        reverse("ladder:join", args=[ladder.slug]), {"level": "", "certainty": ""}
    )
    assert response.status_code == 302
    stored = Membership.objects.get(ladder=ladder, user=eve).initial_rating
    assert stored == pytest.approx(sum(ratings_of(ladder, "abcd")) / 4)


def test_the_stored_start_holds_in_a_replay_and_one_match_at_a_time(running, make_match):
    ladder, users = running
    eve = UserFactory(username="eve")
    start = join_ladder(eve, ladder).initial_rating
    make_match(ladder, [eve], [users["b"]], WIN, date(2026, 3, 4))
    rate_ladder(ladder.pk)
    change = RatingChange.objects.get(ladder=ladder, user=eve)
    assert change.rating_before == pytest.approx(start)
    one_at_a_time = sorted(
        PlayerRating.objects.filter(ladder=ladder).values_list("rating", flat=True)
    )
    recompute_ladder(ladder.pk)
    assert sorted(
        PlayerRating.objects.filter(ladder=ladder).values_list("rating", flat=True)
    ) == pytest.approx(one_at_a_time)
    # the site's runs never let the replay decide a start; a file of the ladder's matches does
    assert rating_params(ladder).newcomer_start == "initial"
    assert ladder.params().newcomer_start == "recent_newcomers"


def test_tune_apply_stores_the_choice(db):
    LadderFactory(slug="tuned")
    ladder = apply_params("tuned", {"newcomer_start": "recent_newcomers"})
    ladder.refresh_from_db()
    assert ladder.newcomer_start == "recent_newcomers"
    with pytest.raises(EngineError):
        apply_params("tuned", {"newcomer_start": "median"})
    ladder.refresh_from_db()
    assert ladder.newcomer_start == "recent_newcomers"


def test_the_join_form_says_where_a_member_without_a_level_starts(client, running):
    ladder, _ = running
    client.force_login(UserFactory(username="eve"))
    said = "you start where this ladder's newcomers stand"
    mean = sum(ratings_of(ladder, "abcd")) / 4
    page = client.get(reverse("ladder:join", args=[ladder.slug])).content.decode()
    assert said in page and f"Skip – where newcomers stand ({mean / 1000:.2f})" in page
    ladder.newcomer_start = "initial"
    ladder.save()
    page = client.get(reverse("ladder:join", args=[ladder.slug])).content.decode()
    assert said not in page and "Skip – ladder default (4.50)" in page


def test_a_new_newcomer_start_replays_nothing(running, django_capture_on_commit_callbacks):
    ladder, _ = running
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        ladder.newcomer_start = "initial"
        save_settings(ladder)
    assert callbacks == []  # stored starts stay: the ratings cannot change
    assert not Match.objects.filter(ladder=ladder, needs_rating=True).exists()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        ladder.tau = 0.6
        save_settings(ladder)
    assert Match.objects.filter(ladder=ladder, needs_rating=True).count() == 3
