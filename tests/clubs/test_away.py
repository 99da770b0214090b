"""Time away (RULES.md "Time away"): a member marks "away until DATE" per ladder, on the
ladder page or by the API; the board and the player page say so instead of "inactive";
nothing in the rating maths changes."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import pytest
from django.utils import timezone

from ladder.clubs.models import Membership
from ladder.clubs.services import LadderError, set_away
from ladder.matches.operations import confirm_match
from ratings.models import PlayerRating, RatingChange
from ratings.pipeline import bump_board, rate_ladder, recompute_ladder
from tests.factories import login, reported_match

TODAY = timezone.localdate()


def away_until(ladder, user):  # type: ignore[no-untyped-def]
    return Membership.objects.get(ladder=ladder, user=user).away_until


# ---- the rule ----------------------------------------------------------------------------


def test_a_member_marks_themselves_away_and_back(ladder, alice):
    until = TODAY + timedelta(days=20)
    set_away(alice, ladder, until)
    assert away_until(ladder, alice) == until
    set_away(alice, ladder, TODAY)  # today is the last day away: allowed
    assert away_until(ladder, alice) == TODAY
    set_away(alice, ladder, None)
    assert away_until(ladder, alice) is None


@pytest.mark.parametrize(
    "days, message",
    [(-1, "is in the past"), (-400, "is in the past"), (367, "more than a year ahead")],
)
def test_a_bad_day_is_refused_and_nothing_changes(ladder, alice, days, message):
    set_away(alice, ladder, TODAY + timedelta(days=5))
    with pytest.raises(LadderError, match=message) as refused:
        set_away(alice, ladder, TODAY + timedelta(days=days))
    assert refused.value.field == "until"
    assert away_until(ladder, alice) == TODAY + timedelta(days=5)


def test_only_a_member_may_be_away(ladder, outsider):
    with pytest.raises(LadderError, match="You are not a member of Club Singles.") as refused:
        set_away(outsider, ladder, TODAY + timedelta(days=3))
    assert refused.value.field is None
    assert not Membership.objects.filter(user=outsider).exists()


def test_away_changes_no_rating(ladder, alice, bob, charlie):
    """The same matches rate the same with and without time away (replayed from scratch)."""
    for day, (a, b) in enumerate([(alice, bob), (bob, charlie), (charlie, alice), (alice, bob)]):
        match = reported_match(ladder, a, [a], [b], played_on=TODAY - timedelta(days=13 - 3 * day))
        confirm_match(match, b)
    rate_ladder(ladder.pk)

    def numbers():  # type: ignore[no-untyped-def]
        return (
            list(
                PlayerRating.objects.order_by("user_id").values_list(
                    "user_id", "rating", "rd", "volatility", "established_until"
                )
            ),
            list(
                RatingChange.objects.order_by("match_id", "user_id").values_list(
                    "rating_after", "rd_after", "change"
                )
            ),
        )

    before = numbers()
    set_away(alice, ladder, TODAY + timedelta(days=30))
    set_away(bob, ladder, TODAY)
    recompute_ladder(ladder.pk)
    assert numbers() == before


# ---- the API -----------------------------------------------------------------------------


def test_api_put_away_and_back(client, ladder, alice):
    login(client, alice)
    until = TODAY + timedelta(days=14)
    url = f"/api/v1/ladders/{ladder.slug}/away/"
    response = client.put(url, {"until": until.isoformat()}, content_type="application/json")
    assert response.status_code == 200
    body = response.json()
    assert body["ladder"] == "singles" and body["until"] == until.isoformat()
    assert body["until_display"] == f"{until.day} {until.strftime('%b')} {until.year}"
    assert away_until(ladder, alice) == until
    response = client.put(url, {"until": None}, content_type="application/json")
    assert response.status_code == 200 and response.json()["until"] is None
    assert away_until(ladder, alice) is None


@pytest.mark.parametrize(
    "body, field",
    [
        ({"until": "yesterday"}, "until"),
        ({}, "until"),
        ({"until": (TODAY - timedelta(days=1)).isoformat()}, "until"),
        ({"until": (TODAY + timedelta(days=400)).isoformat()}, "until"),
    ],
)
def test_api_bad_input_is_400_and_changes_nothing(client, ladder, alice, body, field):
    set_away(alice, ladder, TODAY + timedelta(days=2))
    login(client, alice)
    response = client.put(
        f"/api/v1/ladders/{ladder.slug}/away/", body, content_type="application/json"
    )
    assert response.status_code == 400
    assert field in response.json()
    assert away_until(ladder, alice) == TODAY + timedelta(days=2)


def test_api_refuses_strangers(client, ladder, private_ladder, outsider, alice):
    url = f"/api/v1/ladders/{ladder.slug}/away/"
    future = {"until": (TODAY + timedelta(days=2)).isoformat()}
    assert client.put(url, future, content_type="application/json").status_code == 401
    login(client, outsider)
    response = client.put(url, future, content_type="application/json")
    assert response.status_code == 403
    assert response.json() == {"detail": "You are not a member of Club Singles."}
    assert (
        client.put(
            "/api/v1/ladders/squad/away/", future, content_type="application/json"
        ).status_code
        == 404
    )
    assert client.get(url).status_code == 405
    assert away_until(private_ladder, alice) is None


# ---- the pages ---------------------------------------------------------------------------


def test_the_ladder_page_marks_a_member_away_and_back(client, ladder, alice):
    login(client, alice)
    until = TODAY + timedelta(days=10)
    response = client.post(f"/ladders/{ladder.slug}/away/", {"until": until.isoformat()})
    assert response.status_code == 302
    assert away_until(ladder, alice) == until
    html = client.get(f"/ladders/{ladder.slug}/").content.decode()
    assert f"You are away until {until.day} {until.strftime('%b')} {until.year}." in html
    assert "I'm back</button>" in html
    client.post(f"/ladders/{ladder.slug}/away/", {"back": "1"})
    assert away_until(ladder, alice) is None


def test_the_ladder_page_refuses_a_past_day(client, ladder, alice):
    login(client, alice)
    response = client.post(
        f"/ladders/{ladder.slug}/away/",
        {"until": (TODAY - timedelta(days=3)).isoformat()},
        follow=True,
    )
    assert "is in the past" in response.content.decode()
    assert away_until(ladder, alice) is None
    response = client.post(f"/ladders/{ladder.slug}/away/", {"until": "soon"}, follow=True)
    assert "Give the last day you are away" in response.content.decode()
    assert away_until(ladder, alice) is None


def test_the_board_says_away_instead_of_inactive(client, ladder, alice, bob):
    match = reported_match(ladder, alice, [alice], [bob], played_on=TODAY - timedelta(days=13))
    confirm_match(match, bob)
    rate_ladder(ladder.pk)
    ladder.lookback_days = 7  # both inactive now
    ladder.save()
    until = TODAY + timedelta(days=9)
    set_away(alice, ladder, until)
    html = client.get(f"/ladders/{ladder.slug}/").content.decode()
    label = f"Away until {until.day} {until.strftime('%b')} {until.year}"
    assert label in html
    assert html.count("Away until") == 1  # bob is not away
    rows = client.get(f"/api/v1/ladders/{ladder.slug}/leaderboard/").json()["results"]
    by_name = {row["username"]: row for row in rows}
    assert by_name["alice"]["away_until"] == until.isoformat()
    assert by_name["alice"]["status"] == "inactive"
    assert by_name["bob"]["away_until"] is None
    player = client.get("/players/alice/").content.decode()
    assert label in player
    # Once the day is past, the board says nothing of it.
    Membership.objects.filter(user=alice, ladder=ladder).update(
        away_until=TODAY - timedelta(days=1)
    )
    bump_board(ladder.pk)  # as a membership's save would
    assert "Away until" not in client.get(f"/ladders/{ladder.slug}/").content.decode()


def test_the_board_says_away_for_a_member_not_yet_rated(
    client, ladder, alice, bob, charlie, time_machine
):
    """Charlie has no rated match: the "Not yet rated" list says "Away until" as the ranked
    rows do, and so does the player page; the kept pages follow the change at once."""
    confirm_match(reported_match(ladder, alice, [alice], [bob]), bob)
    rate_ladder(ladder.pk)
    board, player = f"/ladders/{ladder.slug}/", "/players/charlie/"
    for address in (board, player):  # a visitor's pages, kept before charlie goes away
        html = client.get(address).content.decode()
        assert "Charlie Chen" in html and "Away until" not in html
    until = TODAY + timedelta(days=9)
    set_away(charlie, ladder, until)
    label = f"Away until {until.day} {until.strftime('%b')} {until.year}"
    html = client.get(board).content.decode()
    unrated = html[html.index("Not yet rated") :]
    assert f'<span class="tag away">{label}</span>' in unrated
    assert html.count("Away until") == 1
    assert label in client.get(player).content.decode()
    set_away(charlie, ladder, None)
    for address in (board, player):
        assert "Away until" not in client.get(address).content.decode()
    # Away up to today: said today, not tomorrow (the day is in the kept pages' keys).
    set_away(charlie, ladder, TODAY)
    assert "Away until" in client.get(board).content.decode()
    tomorrow = datetime.combine(
        TODAY + timedelta(days=1), time(12), timezone.get_current_timezone()
    )
    time_machine.move_to(tomorrow, tick=False)
    assert "Away until" not in client.get(board).content.decode()
