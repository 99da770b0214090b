"""The calendar feed (valid iCalendar, stable UIDs, time zones, cancelled events) and the
open-game rules (level range, full, leave, cancel, notifications)."""

from __future__ import annotations

from datetime import date, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.utils import timezone
from icalendar import Calendar

from ladder.clubnight.models import ClubNight
from ladder.matches.errors import MatchPermissionError, MatchStateError, MatchValidationError
from ladder.matches.models import Notification
from ladder.play import services
from ladder.play.calendar import member_calendar
from ladder.play.models import CANCELLED, OPEN, SCHEDULED, CalendarFeed
from ratings.models import PlayerRating
from tests.factories import MembershipFactory, UserFactory
from tests.play.support import soon, unchanged


def events(cal):
    parsed = Calendar.from_ical(cal if isinstance(cal, bytes) else cal.to_ical())
    return {str(e["UID"]).split("@")[0]: e for e in parsed.walk("VEVENT")}, parsed


def scheduled_challenge(ladder, alice, bob, **kw):
    made = services.create_challenge(
        ladder=ladder, by=alice, opponents=["bob"], proposed_times=[soon(2)], **kw
    )
    return services.accept_challenge(made, bob, soon(2).isoformat())


def test_the_feed_parses_back_with_stable_uids_and_the_club_time_zone(ladder, alice, bob):
    made = scheduled_challenge(ladder, alice, bob, place="Hall 2")
    ClubNight.objects.create(ladder=ladder, date=timezone.localdate() + timedelta(days=3))
    first, parsed = events(member_calendar(alice))
    assert set(first) == {f"challenge-{made.pk}", f"club-night-{ClubNight.objects.get().pk}"}
    event = first[f"challenge-{made.pk}"]
    start = event.decoded("DTSTART")
    assert start == soon(2) and start.tzinfo == ZoneInfo(settings.TIME_ZONE)
    assert event.decoded("DTEND") - start == timedelta(hours=1)
    assert str(event["LOCATION"]) == "Hall 2" and str(event["STATUS"]) == "CONFIRMED"
    assert str(event["SUMMARY"]) == "Club Singles: Alice Archer v Bob Baker"
    assert [str(tz["TZID"]) for tz in parsed.walk("VTIMEZONE")] == [settings.TIME_ZONE]
    night = first[f"club-night-{ClubNight.objects.get().pk}"]
    assert isinstance(night.decoded("DTSTART"), date)
    # The same events, the same UIDs; a cancellation stays in the feed as CANCELLED.
    services.cancel_challenge(made, bob)
    second, _ = events(member_calendar(alice))
    assert set(second) == set(first)
    cancelled = second[f"challenge-{made.pk}"]
    assert str(cancelled["STATUS"]) == "CANCELLED"
    assert int(cancelled["SEQUENCE"]) > int(event["SEQUENCE"])


def test_the_feed_answers_without_a_session_and_only_its_owner_s_games(
    ladder, alice, bob, charlie, client
):
    made = scheduled_challenge(ladder, alice, bob)
    feed = services.feed_of(charlie)
    response = client.get(feed.get_absolute_url())
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    assert f"challenge-{made.pk}" not in response.content.decode()
    assert client.get("/calendar/not-a-token.ics").status_code == 404


def test_a_password_change_renews_the_feed_address(ladder, alice, bob, client):
    # Issue 36: the address kept working after a password change. We chose to renew it: a
    # leaked address dies with the password it was leaked with (RULES.md "Calendar").
    scheduled_challenge(ladder, alice, bob)
    old = services.feed_of(alice)
    assert services.feed_of(alice).token == old.token  # stable while the password is
    assert client.get(old.get_absolute_url()).status_code == 200
    alice.set_password("a-new-password-4-alice")
    alice.save()
    assert client.get(old.get_absolute_url()).status_code == 404
    client.force_login(alice)
    page = client.get("/calendar/").content.decode()
    new = CalendarFeed.objects.get(user=alice)
    assert new.token != old.token and new.get_absolute_url() in page
    assert old.get_absolute_url() not in page
    assert client.get(new.get_absolute_url()).status_code == 200
    assert CalendarFeed.objects.count() == 1


def test_one_scheduled_match_downloads_as_ics(ladder, alice, bob, charlie, client):
    made = scheduled_challenge(ladder, alice, bob)
    client.force_login(bob)
    response = client.get(f"/challenges/{made.pk}/ics/")
    assert response["Content-Disposition"] == f'attachment; filename="challenge-{made.pk}.ics"'
    found, _ = events(response.content)
    assert list(found) == [f"challenge-{made.pk}"]
    client.force_login(charlie)
    assert client.get(f"/challenges/{made.pk}/ics/").status_code == 404


# ---- open games --------------------------------------------------------------------------


def post(ladder, by, **kw):
    return services.post_open_game(ladder=ladder, by=by, starts_at=soon(1), place="Court 1", **kw)


def rate(ladder, user, rating):
    PlayerRating.objects.update_or_create(
        ladder=ladder, user=user, defaults={"rating": rating, "rd": 60, "volatility": 0.06}
    )


def test_a_game_s_calendar_entry_lists_its_players_not_sides(ladder, alice, bob, client):
    """Seen in a calendar: "Club Singles: Singles game (Alice Archer & Bob Baker)" read as if
    they were partners; an open game's players are listed, as its page lists them."""
    game = services.join_open_game(post(ladder, alice), bob)
    client.force_login(bob)
    found, _ = events(client.get(f"/open-games/{game.pk}/ics/").content)
    event = found[f"open-game-{game.pk}"]
    assert str(event["SUMMARY"]) == "Club Singles: singles game (Alice Archer, Bob Baker)"
    assert "Players: Alice Archer, Bob Baker." in str(event["DESCRIPTION"])


def test_a_game_fills_and_is_scheduled_and_its_players_are_told(ladder, alice, bob):
    game = post(ladder, alice)
    assert (game.state, game.places_left) == (OPEN, 1)
    full = services.join_open_game(game, bob)
    assert (full.state, full.places_left) == (SCHEDULED, 0)
    told = Notification.objects.filter(kind="open_game", text__contains="is full")
    assert sorted(told.values_list("user__username", flat=True)) == ["alice", "bob"]
    found, _ = events(member_calendar(bob))
    assert list(found) == [f"open-game-{game.pk}"]


def test_joining_a_full_or_out_of_level_game_is_refused(ladder, alice, bob, charlie):
    for user, rating in ((alice, 4500), (bob, 4550), (charlie, 4900)):
        rate(ladder, user, rating)
    game = post(ladder, alice, level_min=4400, level_max=4600)
    with unchanged(), pytest.raises(MatchValidationError) as caught:
        services.join_open_game(game, charlie)
    assert caught.value.errors["__all__"] == [
        "This game is for ratings 4.40–4.60; yours is 4.90. "
        "Look for a game at your level, or post one."
    ]
    services.join_open_game(game, bob)
    rate(ladder, charlie, 4500)
    with unchanged(), pytest.raises(MatchStateError, match="This game is full."):
        services.join_open_game(game, charlie)


def test_bad_games_and_bad_steps(ladder, alice, bob, outsider):
    with unchanged(), pytest.raises(MatchValidationError) as caught:
        services.post_open_game(
            ladder=ladder,
            by=alice,
            starts_at=timezone.now() - timedelta(hours=1),
            place="",
            team_size=3,
            level_min=5800,
            level_max=5200,
        )
    assert set(caught.value.errors) == {"starts_at", "place", "team_size", "level_max"}
    with unchanged(), pytest.raises(MatchPermissionError):
        post(ladder, outsider)
    game = post(ladder, alice)
    with unchanged(), pytest.raises(MatchStateError, match="already"):
        services.join_open_game(game, alice)
    with unchanged(), pytest.raises(MatchStateError, match="cancel it instead"):
        services.leave_open_game(game, alice)
    with unchanged(), pytest.raises(MatchPermissionError):
        services.cancel_open_game(game, bob)
    with unchanged(), pytest.raises(MatchPermissionError):
        services.join_open_game(game, outsider)


def test_leaving_and_cancelling_tell_the_others(ladder, alice, bob, mod):
    game = post(ladder, alice)
    services.join_open_game(game, bob)
    reopened = services.leave_open_game(game, bob)
    assert (reopened.state, reopened.places_left) == (OPEN, 1)
    assert Notification.objects.filter(user=alice, text__contains="Bob Baker left").exists()
    services.join_open_game(game, bob)
    gone = services.cancel_open_game(game, mod)
    assert gone.state == CANCELLED
    told = Notification.objects.filter(text__contains="cancelled the")
    assert sorted(told.values_list("user__username", flat=True)) == ["alice", "bob"]
    with unchanged(), pytest.raises(MatchStateError):
        services.join_open_game(game, bob)


def test_doubles_game_splits_into_sides_for_the_report(doubles, alice, bob, charlie, dave):
    game = post(doubles, alice, team_size=2)
    for user in (bob, charlie, dave):
        game = services.join_open_game(game, user)
    assert game.state == SCHEDULED
    lineup = services.scheduled_lineup(doubles, charlie, {"open_game": game.pk})
    assert lineup == {
        "side_a": ["alice", "bob"],
        "side_b": ["charlie", "dave"],
        "played_on": timezone.localdate(game.starts_at),
    }
    extra = UserFactory(username="erin")
    MembershipFactory(ladder=doubles, user=extra)
    assert services.scheduled_lineup(doubles, extra, {"open_game": game.pk}) is None


def test_the_page_shows_why_one_cannot_join_instead_of_a_join_button(
    ladder, alice, bob, charlie, client
):
    """Issue 37: "Join" was offered to a player out of range, and then refused."""
    for user, rating in ((alice, 4500), (bob, 4550), (charlie, 4900)):
        rate(ladder, user, rating)
    game = post(ladder, alice, level_min=4400, level_max=4600)
    join = f'action="/open-games/{game.pk}/join/"'
    client.force_login(charlie)
    page = client.get("/ladders/singles/open-games/").content.decode()
    assert join not in page
    assert "This game is for ratings 4.40–4.60; yours is 4.90." in page
    client.force_login(bob)
    page = client.get("/ladders/singles/open-games/").content.decode()
    assert join in page and "yours is" not in page
