"""Every date is the club's date (TIME_ZONE), whatever the clock says in UTC: the demo
season and the date-sensitive rules, with the clock frozen just after midnight (00:05, 00:19)
and just before it (23:55), in London (winter, when it is UTC, and summer), Auckland (UTC+13:
its morning is still yesterday in UTC) and Los Angeles (UTC−8: its evening is tomorrow in
UTC). CI at those hours failed before (issue 28); these tests make every hour alike.

Seeding the demo season takes about a second per clock, so it is seeded once per clock."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.utils import timezone

from ladder.demo import REPORTS_FROM, SCHEDULES, _at, seed_club, seed_matches
from ladder.matches import operations as matches
from ladder.matches import permissions
from ladder.matches.errors import MatchValidationError
from ladder.matches.models import Match
from ladder.matches.validation import Report
from ratings.models import PlayerRating, active_since, today
from ratings.pipeline import rate_ladder
from tests.matches.support import API, api_client, report_payload, unchanged

ZONES = ("Europe/London", "Pacific/Auckland", "America/Los_Angeles")
TIMES = (time(0, 5), time(0, 19), time(23, 55))
FRIDAY = date(2026, 11, 27)  # the 5v5 league's night; the day CI failed at 00:18
SUMMER_TUESDAY = date(2026, 7, 14)  # a singles night; London is UTC+1
CLOCKS = [
    *[(zone, FRIDAY, at) for zone in ZONES for at in TIMES],
    *[("Europe/London", SUMMER_TUESDAY, at) for at in TIMES],
]


def at_midnight(day: date) -> datetime:
    """The start of ``day`` in the club's time zone."""
    return timezone.make_aware(datetime.combine(day, time.min))


@pytest.fixture(params=CLOCKS, ids=lambda c: f"{c[0]}-{c[1]:%a}-{c[2]:%H%M}")
def clock(request: pytest.FixtureRequest, settings) -> Iterator[datetime]:  # type: ignore[no-untyped-def]
    """The club in the zone, the clock frozen at the time there; yields that instant."""
    zone, day, at = request.param
    settings.TIME_ZONE = zone
    moment = datetime.combine(day, at, ZoneInfo(zone))
    with time_machine.travel(moment, tick=False):
        yield moment


def local_today(moment: datetime) -> date:
    """The club's date at ``moment``, worked out apart from the code under test."""
    return moment.astimezone(ZoneInfo(str(timezone.get_default_timezone()))).date()


@pytest.mark.django_db
def test_the_demo_creates_no_match_before_its_played_day(clock: datetime) -> None:
    seed_matches(seed_club())
    club_today = local_today(clock)
    season = list(Match.objects.prefetch_related("audit", "disputes"))
    assert len(season) > 200
    for match in season:
        assert match.played_on <= club_today
        # Reported on the night it was played, after its first reports could be in.
        assert _at(match.played_on, REPORTS_FROM) <= match.created_at <= clock, match
        assert at_midnight(match.played_on) <= match.created_at
        assert all(match.created_at <= entry.at <= clock for entry in match.audit.all())
        assert all(d.created_at <= clock for d in match.disputes.all())
        if match.state == "pending":
            assert not match.is_expired(clock)
    states = Counter(m.state for m in season)
    assert states["disputed"] == 1 and states["pending"] >= 3
    # Tonight's club night is in the season only once it has been played (at 23:55, not at
    # 00:05: before, a Friday at 00:19 held 5v5 maps "played today" and reported yesterday).
    tonight = any(club_today.weekday() in s.nights for s in SCHEDULES.values())
    played_today = {m.played_on for m in season} >= {club_today}
    assert played_today == (tonight and timezone.localtime(clock).time() >= time(20, 30))
    # Every ladder's last night waits for confirmation in the opponents' inboxes.
    for match in Match.objects.filter(state="pending").with_details():
        opponent = match.opponents[0]
        assert permissions.allowed_actions(match, opponent, clock) == {"confirm", "dispute"}


@pytest.mark.django_db
def test_today_on_the_report_form_is_the_clubs_and_is_accepted(clock, client, alice, bob):  # type: ignore[no-untyped-def]
    club_today = local_today(clock)
    client.force_login(alice)
    form = client.get("/ladders/singles/report/").content.decode()
    assert f'value="{club_today.isoformat()}"' in form
    report = {"opponent_1": bob.username, "game_a": [21, 21], "game_b": [15, 18]}
    with unchanged():
        tomorrow = club_today + timedelta(days=1)
        refused = client.post("/ladders/singles/report/", {**report, "played_on": tomorrow})
    assert "The date cannot be in the future." in refused.content.decode()
    done = client.post("/ladders/singles/report/", {**report, "played_on": club_today})
    assert done.status_code == 302
    match = Match.objects.get()
    assert (match.played_on, match.created_at, match.state) == (club_today, clock, "pending")


@pytest.mark.django_db
def test_the_api_takes_the_clubs_today_and_refuses_its_tomorrow(clock, ladder, alice, bob):  # type: ignore[no-untyped-def]
    club_today = local_today(clock)
    client = api_client(alice)
    with unchanged():
        tomorrow = report_payload(ladder, [alice], [bob], played_on=str(club_today + timedelta(1)))
        refused = client.post(API, tomorrow, format="json")
    assert refused.status_code == 400
    assert "The date cannot be in the future." in str(refused.json())
    done = client.post(API, report_payload(ladder, [alice], [bob]), format="json")
    assert done.status_code == 201, done.json()
    assert Match.objects.get(pk=done.json()["id"]).played_on == club_today


@pytest.mark.django_db
def test_the_oldest_date_a_report_may_have_counts_in_club_days(clock, ladder, alice, bob):  # type: ignore[no-untyped-def]
    oldest = local_today(clock) - timedelta(days=ladder.max_report_age_days)
    report = {"ladder": ladder, "reporter": alice, "side_a": [alice], "side_b": [bob]}
    with unchanged(), pytest.raises(MatchValidationError) as refused:
        matches.report_match(
            Report(**report, played_on=oldest - timedelta(days=1), games=[(21, 10), (21, 12)])
        )
    assert "is too long ago" in str(refused.value.errors["played_on"])
    match = matches.report_match(Report(**report, played_on=oldest, games=[(21, 10), (21, 12)]))
    assert match.played_on == oldest


@pytest.mark.django_db
def test_confirming_and_disputing_last_until_the_window_ends(clock, client, ladder, alice, bob):  # type: ignore[no-untyped-def]
    match = matches.report_match(
        Report(
            ladder=ladder,
            reporter=alice,
            played_on=local_today(clock),
            side_a=[alice],
            side_b=[bob],
            games=[(21, 10), (21, 12)],
        )
    )
    client.force_login(bob)
    window = timedelta(hours=ladder.confirm_within_hours)
    with time_machine.travel(clock + window, tick=False):  # the last moment, a week on
        assert permissions.allowed_actions(match, bob) == {"confirm", "dispute"}
        assert client.get(f"/matches/{match.pk}/dispute/").status_code == 200
    with time_machine.travel(clock + window + timedelta(seconds=1), tick=False):
        assert permissions.allowed_actions(match, bob) == set()
        assert client.get(f"/matches/{match.pk}/dispute/").status_code == 403
        with unchanged(match), pytest.raises(matches.MatchStateError):
            matches.dispute_match(match, bob, "Wrong score")
        assert matches.expire_overdue() == 1
    match.refresh_from_db()
    assert match.state == "expired"


@pytest.mark.django_db
def test_ratings_are_as_of_the_clubs_today_and_the_lookback_counts_club_days(
    clock, ladder, alice, bob
):  # type: ignore[no-untyped-def]
    club_today = local_today(clock)
    assert today() == club_today
    last = club_today - timedelta(days=ladder.lookback_days)
    then = timezone.make_aware(datetime.combine(last, timezone.localtime(clock).time()))
    with time_machine.travel(then, tick=False):  # reported and confirmed on the day
        match = matches.report_match(
            Report(
                ladder=ladder,
                reporter=alice,
                played_on=last,
                side_a=[alice],
                side_b=[bob],
                games=[(21, 10), (21, 12)],
            )
        )
        matches.confirm_match(match, bob)
    rate_ladder(ladder.pk)
    row = PlayerRating.objects.get(ladder=ladder, user=alice)
    assert row.last_played == last
    # Active through the last day of the lookback, in club days; inactive the day after.
    assert row.status_on(today(), active_since(ladder.lookback_days, today())) != "inactive"
    next_midnight = at_midnight(club_today + timedelta(days=1))
    with time_machine.travel(next_midnight, tick=False):
        assert today() == club_today + timedelta(days=1)
        assert row.status_on(today(), active_since(ladder.lookback_days, today())) == "inactive"


@pytest.mark.django_db
def test_an_auckland_member_reports_today_at_eight_in_the_morning(
    client, settings, ladder, alice, bob, charlie
):  # type: ignore[no-untyped-def]
    """08:00 on 27 November in Auckland is 19:00 on the 26th in UTC: "today" is the 27th."""
    settings.TIME_ZONE = "Pacific/Auckland"
    morning = datetime(2026, 11, 27, 8, 0, tzinfo=ZoneInfo("Pacific/Auckland"))
    assert morning.astimezone(ZoneInfo("UTC")).date() == date(2026, 11, 26)
    with time_machine.travel(morning, tick=False):
        client.force_login(alice)
        report = {"opponent_1": bob.username, "game_a": [21, 21], "game_b": [15, 18]}
        done = client.post("/ladders/singles/report/", {**report, "played_on": "2026-11-27"})
        assert done.status_code == 302
        by_api = report_payload(ladder, [alice], [charlie], played_on="2026-11-27")
        answer = api_client(alice).post(API, by_api, format="json")
        assert answer.status_code == 201, answer.json()
    assert sorted(Match.objects.values_list("played_on", flat=True)) == [date(2026, 11, 27)] * 2


@pytest.mark.django_db
def test_the_admin_shows_moderators_the_club_time_zone_and_its_today(client, settings, mod, alice):  # type: ignore[no-untyped-def]
    settings.TIME_ZONE, settings.TIME_ZONE_SET = "Pacific/Auckland", True
    client.force_login(mod)
    # 12:30 UTC on the 27th is already 01:30 on Saturday the 28th in Auckland.
    with time_machine.travel(datetime(2026, 11, 27, 12, 30, tzinfo=ZoneInfo("UTC")), tick=False):
        page = client.get("/admin/").content.decode()
    assert "Club time zone: <strong>Pacific/Auckland</strong> (UTC+1300), today is" in page
    assert (
        '<time datetime="2026-11-28T01:30:00+13:00">Saturday 28 November 2026, 01:30</time>' in page
    )
    assert "This is the default" not in page
    # Left unset, the page says so and what to set.
    settings.TIME_ZONE, settings.TIME_ZONE_SET = "Europe/London", False
    page = client.get("/admin/").content.decode()
    assert "Club time zone: <strong>Europe/London</strong>" in page
    assert "This is the default: set <code>TIME_ZONE</code>" in page
    # Members who are not moderators do not reach the admin.
    client.force_login(alice)
    assert client.get("/admin/").status_code == 302
