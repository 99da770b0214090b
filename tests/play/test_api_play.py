"""The API contract of issue 25 item 6 for challenges, open games and the calendar, and
its errors (400 with field errors, 403, 404, 409), changing nothing when refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone
from icalendar import Calendar

from ladder.play import services
from ladder.play.models import CalendarFeed, Challenge, OpenGame
from tests.matches.support import api_client, report_payload
from tests.play.support import soon, started, unchanged


@pytest.fixture(autouse=True)
def _no_throttle_history():
    cache.clear()


def test_challenge_accept_feed_report_confirm_played(ladder, alice, bob, client):
    as_alice, as_bob = api_client(alice), api_client(bob)
    times = [soon(2).isoformat(), soon(3).isoformat()]
    made = as_alice.post(
        "/api/v1/ladders/singles/challenges/",
        {"opponents": ["bob"], "partners": [], "message": "Rematch?", "proposed_times": times},
        format="json",
    )
    assert made.status_code == 201, made.json()
    body = made.json()
    assert body["state"] == "open" and body["side_b"] == ["bob"] and body["answering"] == ["bob"]
    pk = body["id"]

    mine = as_bob.get("/api/v1/challenges/").json()
    assert [(c["id"], c["state"]) for c in mine] == [(pk, "open")]

    accepted = as_bob.post(f"/api/v1/challenges/{pk}/accept/", {"time": times[1]}, format="json")
    assert accepted.status_code == 200
    assert accepted.json()["state"] == "scheduled"
    assert accepted.json()["report_page"] == f"/ladders/singles/report/?challenge={pk}"

    url = as_alice.get("/api/v1/me/calendar/").json()["url"]
    assert url.startswith("http://testserver/calendar/")
    feed = client.get(url.removeprefix("http://testserver"))
    assert feed["Content-Type"].startswith("text/calendar")
    events = Calendar.from_ical(feed.content).walk("VEVENT")
    assert [str(e["UID"]).split("@")[0] for e in events] == [f"challenge-{pk}"]
    assert events[0].decoded("DTSTART") == soon(3)

    early = as_alice.post(
        "/api/v1/matches/", report_payload(ladder, [alice], [bob], challenge=pk), format="json"
    )
    assert early.status_code == 400  # before its time: nothing to report yet
    assert early.json()["challenge"] == [
        "It has not started yet: report its result once it has been played."
    ]
    started(Challenge.objects.get(pk=pk))
    reported = as_alice.post(
        "/api/v1/matches/", report_payload(ladder, [alice], [bob], challenge=pk), format="json"
    )
    assert reported.status_code == 201, reported.json()
    match_id = reported.json()["id"]
    again = as_bob.post(
        "/api/v1/matches/", report_payload(ladder, [bob], [alice], challenge=pk), format="json"
    )
    assert again.status_code == 400
    assert again.json()["challenge"] == [f"This challenge is reported already (match {match_id})."]

    assert as_bob.post(f"/api/v1/matches/{match_id}/confirm/").status_code == 200
    final = as_alice.get(f"/api/v1/challenges/{pk}/").json()
    assert (final["state"], final["match"]) == ("played", match_id)


def test_decline_and_cancel_by_api(ladder, alice, bob, charlie):
    as_alice = api_client(alice)
    one = as_alice.post(
        "/api/v1/ladders/singles/challenges/",
        {"opponents": ["bob"], "proposed_times": [soon().isoformat()]},
        format="json",
    ).json()["id"]
    two = as_alice.post(
        "/api/v1/ladders/singles/challenges/",
        {"opponents": ["charlie"], "proposed_times": [soon().isoformat()]},
        format="json",
    ).json()["id"]
    assert api_client(bob).post(f"/api/v1/challenges/{one}/decline/").json()["state"] == "declined"
    assert as_alice.post(f"/api/v1/challenges/{two}/cancel/").json()["state"] == "cancelled"
    # Twice: the state refuses it.
    with unchanged():
        response = as_alice.post(f"/api/v1/challenges/{two}/cancel/")
    assert response.status_code == 409
    assert response.json()["detail"] == "This challenge is cancelled: nothing to cancel."


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({"opponents": ["zed"]}, "opponents", "No member of Club Singles is called 'zed'."),
        ({"proposed_times": ["2001-01-01T10:00Z"]}, "proposed_times", "is in the past"),
        ({"proposed_times": "soon"}, "proposed_times", "Expected a list"),
        ({"opponents": ["bob", "charlie"]}, "opponents", "Name 1 opponent"),
    ],
)
def test_bad_challenges_are_400_and_change_nothing(
    ladder, alice, bob, charlie, payload, field, message
):
    body = {"opponents": ["bob"], "proposed_times": [soon().isoformat()], **payload}
    with unchanged():
        response = api_client(alice).post(
            "/api/v1/ladders/singles/challenges/", body, format="json"
        )
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])


def test_who_may_do_what(ladder, alice, bob, charlie, outsider, private_ladder):
    body = {"opponents": ["bob"], "proposed_times": [soon().isoformat()]}
    assert api_client(None).post(
        "/api/v1/ladders/singles/challenges/", body, format="json"
    ).status_code in (401, 403)
    assert (
        api_client(outsider)
        .post("/api/v1/ladders/singles/challenges/", body, format="json")
        .status_code
        == 403
    )
    assert (
        api_client(bob).post("/api/v1/ladders/squad/challenges/", body, format="json").status_code
        == 404
    )
    pk = (
        api_client(alice)
        .post("/api/v1/ladders/singles/challenges/", body, format="json")
        .json()["id"]
    )
    # Not your challenge: it does not exist for you.
    with unchanged():
        assert api_client(charlie).post(f"/api/v1/challenges/{pk}/decline/").status_code == 404
        assert api_client(charlie).get(f"/api/v1/challenges/{pk}/").status_code == 404
        response = api_client(alice).post(
            f"/api/v1/challenges/{pk}/accept/", {"time": soon().isoformat()}, format="json"
        )
    assert response.status_code == 403
    assert Challenge.objects.get(pk=pk).state == "open"


def test_moderators_see_and_cancel_any(ladder, alice, bob, mod):
    pk = (
        api_client(alice)
        .post(
            "/api/v1/ladders/singles/challenges/",
            {"opponents": ["bob"], "proposed_times": [soon().isoformat()]},
            format="json",
        )
        .json()["id"]
    )
    assert [c["id"] for c in api_client(mod).get("/api/v1/challenges/").json()] == [pk]
    assert api_client(mod).post(f"/api/v1/challenges/{pk}/cancel/").json()["state"] == "cancelled"


def test_open_games_by_api(ladder, alice, bob):
    posted = api_client(alice).post(
        "/api/v1/ladders/singles/open-games/",
        {
            "starts_at": soon().isoformat(),
            "place": "Court 3",
            "level_min": None,
            "level_max": None,
            "team_size": 1,
        },
        format="json",
    )
    assert posted.status_code == 201, posted.json()
    game = posted.json()
    assert (game["state"], game["players"], game["places_left"]) == ("open", ["alice"], 1)
    joined = api_client(bob).post(f"/api/v1/open-games/{game['id']}/join/")
    assert joined.json()["state"] == "scheduled"
    listed = api_client(bob).get("/api/v1/ladders/singles/open-games/").json()
    assert [(g["id"], g["players"]) for g in listed] == [(game["id"], ["alice", "bob"])]
    left = api_client(bob).post(f"/api/v1/open-games/{game['id']}/leave/")
    assert (left.json()["state"], left.json()["places_left"]) == ("open", 1)
    assert (
        api_client(alice).post(f"/api/v1/open-games/{game['id']}/cancel/").json()["state"]
        == "cancelled"
    )


def test_bad_open_games_are_refused(ladder, alice, bob):
    with unchanged():
        response = api_client(alice).post(
            "/api/v1/ladders/singles/open-games/",
            {"starts_at": "2001-01-01T10:00Z", "place": "", "team_size": 3},
            format="json",
        )
    assert response.status_code == 400
    assert OpenGame.objects.count() == 0


def test_the_calendar_url_is_revocable(ladder, alice, client):
    as_alice = api_client(alice)
    first = as_alice.get("/api/v1/me/calendar/").json()["url"]
    assert as_alice.get("/api/v1/me/calendar/").json()["url"] == first  # stable
    second = as_alice.post("/api/v1/me/calendar/").json()["url"]
    assert second != first
    assert client.get(first.removeprefix("http://testserver")).status_code == 404
    assert client.get(second.removeprefix("http://testserver")).status_code == 200
    assert CalendarFeed.objects.get(user=alice).token in second
    assert api_client(None).get("/api/v1/me/calendar/").status_code in (401, 403)


def test_a_started_game_to_report_is_listed_for_its_players(ladder, alice, bob, charlie):
    """The open games page's "Your games to report" by API (?show=to_report): before, the API
    listed only games to come, so a client could not find a played game to report."""
    game = services.join_open_game(
        services.post_open_game(ladder=ladder, by=alice, starts_at=soon(1), place="Court 5"), bob
    )
    evening = timezone.localtime().replace(hour=19, minute=0) - timedelta(days=1)
    OpenGame.objects.filter(pk=game.pk).update(starts_at=evening)  # played yesterday
    url = "/api/v1/ladders/singles/open-games/"
    as_bob = api_client(bob)
    assert as_bob.get(url).json() == []  # no longer a game to come
    listed = as_bob.get(url, {"show": "to_report"}).json()
    assert [(g["id"], g["players"], g["match"]) for g in listed] == [
        (game.pk, ["alice", "bob"], None)
    ]
    assert api_client(charlie).get(url, {"show": "to_report"}).json() == []
    reported = as_bob.post(
        "/api/v1/matches/",
        report_payload(
            ladder, [bob], [alice], played_on=evening.date().isoformat(), open_game=game.pk
        ),
        format="json",
    )
    assert reported.status_code == 201, reported.json()
    listed = as_bob.get(url, {"show": "to_report"}).json()
    assert [(g["id"], g["match"]) for g in listed] == [(game.pk, reported.json()["id"])]
    refused = as_bob.get(url, {"show": "past"})
    assert refused.status_code == 400
    assert refused.json()["show"] == ["Choose one of coming, to_report."]
