"""Reporting a match: every rule of RULES.md "Matches", each refusal with a clear
message and nothing changed (scores for each format: test_scores.py)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ladder.matches import operations as matches
from ladder.matches.errors import MatchPermissionError, MatchValidationError
from ladder.matches.models import AuditEntry, Game, Match, MatchPlayer
from ladder.matches.validation import Report, check_report
from tests.factories import LadderFactory, MembershipFactory, UserFactory, reported_match
from tests.matches.support import unchanged

TODAY = timezone.localdate


def report(ladder, reporter, side_a, side_b, games=((21, 15), (21, 18)), **kwargs):
    """``report_match`` of these values (``played_on``, ``stats``) and options (``now``, …)."""
    values = {k: kwargs.pop(k) for k in ("played_on", "stats") if k in kwargs}
    values.setdefault("played_on", TODAY())
    sent = Report(
        ladder=ladder,
        reporter=reporter,
        side_a=side_a,
        side_b=side_b,
        games=[tuple(g) for g in games],
        **values,
    )
    return matches.report_match(sent, **kwargs)


def refused(field, message, **call):
    """Run report(**call) expecting a 400 on ``field`` whose message contains ``message``."""
    with unchanged(), pytest.raises(MatchValidationError) as info:
        report(**call)
    assert info.value.status == 400
    assert any(message in m for m in info.value.errors.get(field, [])), info.value.errors
    return info.value


def test_a_report_stores_the_match_players_games_and_one_audit_entry(ladder, alice, bob):
    match = report(ladder, alice, [alice], [bob], games=[(21, 15), (19, 21), (21, 18)])
    assert (match.state, match.reporter, match.ladder) == ("pending", alice, ladder)
    assert match.side_a_players == [alice] and match.side_b_players == [bob]
    assert match.score_text == "21-15 19-21 21-18"
    assert list(Game.objects.filter(match=match).values_list("number", "a_points", "b_points")) == [
        (1, 21, 15),
        (2, 19, 21),
        (3, 21, 18),
    ]
    assert not match.needs_rating and match.decided_at is None
    entry = AuditEntry.objects.get(match=match)
    assert (entry.action, entry.actor, entry.from_state, entry.to_state) == (
        "report",
        alice,
        "",
        "pending",
    )
    assert entry.after == {
        "played_on": TODAY().isoformat(),
        "side_a": ["alice"],
        "side_b": ["bob"],
        "games": [[21, 15], [19, 21], [21, 18]],
    }
    assert match.expires_at == match.created_at + timedelta(hours=168)


def test_the_reporter_may_be_on_side_b(ladder, alice, bob):
    match = report(ladder, alice, [bob], [alice], games=[(15, 21), (18, 21)])
    assert match.opponents == [bob]


@pytest.mark.parametrize(
    ("days_ago", "ok"), [(-1, False), (0, True), (14, True), (15, False), (400, False)]
)
def test_date_limits(ladder, alice, bob, days_ago, ok):
    played_on = TODAY() - timedelta(days=days_ago)
    if ok:
        assert report(ladder, alice, [alice], [bob], played_on=played_on).played_on == played_on
    elif days_ago < 0:
        refused(
            "played_on",
            "The date cannot be in the future.",
            ladder=ladder,
            reporter=alice,
            side_a=[alice],
            side_b=[bob],
            played_on=played_on,
        )
    else:
        refused(
            "played_on",
            "Matches can be reported up to 14 days after they were played",
            ladder=ladder,
            reporter=alice,
            side_a=[alice],
            side_b=[bob],
            played_on=played_on,
        )


def test_dates_are_the_sites_days(ladder, alice, bob, settings):
    # 23:30 UTC on 1 July is already 2 July in London (BST): "today" is the 2nd there, so
    # the 2nd is accepted (a UTC "today" would call it the future) and the 3rd is not.
    settings.TIME_ZONE = "Europe/London"
    with time_machine.travel("2025-07-01 23:30:00+00:00", tick=False):
        match = report(ladder, alice, [alice], [bob], played_on=date(2025, 7, 2))
        assert match.played_on == date(2025, 7, 2)
        refused(
            "played_on",
            "The date cannot be in the future.",
            ladder=ladder,
            reporter=alice,
            side_a=[alice],
            side_b=[bob],
            played_on=date(2025, 7, 3),
        )


def test_a_date_must_be_a_date(ladder, alice, bob):
    refused(
        "played_on",
        "Enter the date the match was played.",
        ladder=ladder,
        reporter=alice,
        side_a=[alice],
        side_b=[bob],
        played_on="2025-01-01",
    )


def test_a_player_twice(ladder, alice, bob):
    refused(
        "players",
        "Alice Archer is named twice",
        ladder=ladder,
        reporter=alice,
        side_a=[alice],
        side_b=[alice],
    )


def test_a_player_twice_in_doubles(doubles, alice, bob, charlie):
    refused(
        "players",
        "Bob Baker is named twice",
        ladder=doubles,
        reporter=alice,
        side_a=[alice, bob],
        side_b=[charlie, bob],
    )


@pytest.mark.parametrize(
    ("side_a", "side_b", "field", "message"),
    [
        (
            ["alice", "bob"],
            ["charlie"],
            "side_a",
            "Side A needs exactly 1 player in Club Singles; it has 2.",
        ),
        (["alice"], [], "side_b", "Side B needs exactly 1 player in Club Singles; it has 0."),
    ],
)
def test_wrong_team_size(ladder, alice, bob, charlie, side_a, side_b, field, message):
    users = {"alice": alice, "bob": bob, "charlie": charlie}
    refused(
        field,
        message,
        ladder=ladder,
        reporter=alice,
        side_a=[users[u] for u in side_a],
        side_b=[users[u] for u in side_b],
    )


def test_wrong_team_size_in_doubles(doubles, alice, bob, charlie):
    refused(
        "side_b",
        "Side B needs exactly 2 players in Club Doubles; it has 1.",
        ladder=doubles,
        reporter=alice,
        side_a=[alice, bob],
        side_b=[charlie],
    )


def test_a_non_member(ladder, alice, dave):
    refused(
        "players",
        "No member of Club Singles is called 'dave'.",
        ladder=ladder,
        reporter=alice,
        side_a=[alice],
        side_b=[dave],
    )


def test_the_reporter_must_play(ladder, alice, bob, charlie):
    refused(
        "players",
        "You can only report a match you played in",
        ladder=ladder,
        reporter=alice,
        side_a=[bob],
        side_b=[charlie],
    )


def test_a_non_member_cannot_report(ladder, bob, outsider):
    with (
        unchanged(),
        pytest.raises(MatchPermissionError, match="not a member of Club Singles"),
    ):
        report(ladder, outsider, [outsider], [bob])


def test_every_problem_is_reported_at_once(ladder, alice, bob):
    error = refused(
        "games",
        "Game 1: 21-20",
        ladder=ladder,
        reporter=alice,
        side_a=[alice],
        side_b=[alice],
        games=[(21, 20), (21, 5)],
        played_on=TODAY() + timedelta(days=1),
    )
    assert set(error.errors) == {"games", "players", "played_on"}
    assert "The date cannot be in the future." in error.message


# ---- duplicates -------------------------------------------------------------------------


def test_the_same_match_twice_is_a_duplicate(ladder, alice, bob):
    first = report(ladder, alice, [alice], [bob])
    error = refused(
        "__all__",
        f"You already reported this match (match {first.pk}: same players, date and score)",
        ladder=ladder,
        reporter=alice,
        side_a=[alice],
        side_b=[bob],
    )
    # Issue 37.6: the reporter is not asked to confirm their own report.
    assert "confirm or dispute" not in error.message
    assert error.message.endswith("it waits for the other side's confirmation.")


def test_a_partner_reporting_it_again_is_not_asked_to_confirm_it(
    doubles, alice, bob, charlie, dave
):
    first = report(doubles, alice, [alice, bob], [charlie, dave])
    error = refused(
        "__all__",
        f"This match is already reported (match {first.pk} by Alice Archer",
        ladder=doubles,
        reporter=bob,
        side_a=[bob, alice],
        side_b=[charlie, dave],
    )
    assert "confirm or dispute" not in error.message
    assert "it waits for the other side's confirmation" in error.message


def test_the_opponent_reporting_it_from_their_side_is_a_duplicate(ladder, alice, bob):
    report(ladder, alice, [alice], [bob], games=[(21, 15), (19, 21), (21, 18)])
    refused(
        "__all__",
        "already reported",
        ladder=ladder,
        reporter=bob,
        side_a=[bob],
        side_b=[alice],
        games=[(15, 21), (21, 19), (18, 21)],
    )


def test_doubles_duplicate_in_any_player_order(doubles, alice, bob, charlie, dave):
    report(doubles, alice, [alice, bob], [charlie, dave])
    refused(
        "__all__",
        "already reported",
        ladder=doubles,
        reporter=dave,
        side_a=[dave, charlie],
        side_b=[bob, alice],
        games=[(15, 21), (18, 21)],
    )


@pytest.mark.parametrize(
    "change",
    ["other date", "other score", "swapped sides, same score", "first cancelled", "first expired"],
)
def test_not_a_duplicate(ladder, alice, bob, change):
    first = report(ladder, alice, [alice], [bob], played_on=TODAY() - timedelta(days=1))
    call = {"played_on": TODAY() - timedelta(days=1), "side_a": [alice], "side_b": [bob]}
    if change == "other date":
        call["played_on"] = TODAY()
    elif change == "other score":
        call["games"] = [(21, 15), (21, 17)]
    elif change == "swapped sides, same score":
        call["side_a"], call["side_b"] = [bob], [alice]
    elif change == "first cancelled":
        matches.cancel_match(first, alice)
    else:
        Match.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(days=8))
        matches.expire_overdue()
    assert report(ladder, alice, **call).state == "pending"


@pytest.mark.parametrize("state", ["confirmed", "disputed"])
def test_a_live_match_in_any_state_is_a_duplicate(ladder, alice, bob, state):
    first = report(ladder, alice, [alice], [bob])
    if state == "confirmed":
        matches.confirm_match(first, bob)
    else:
        matches.dispute_match(first, bob, "Not this score")
    refused(
        "__all__", "already reported", ladder=ladder, reporter=bob, side_a=[alice], side_b=[bob]
    )


# ---- limits -------------------------------------------------------------------------------


def test_pending_limit(ladder, alice, bob, charlie):
    ladder.max_pending_reports = 2
    ladder.save()
    report(ladder, alice, [alice], [bob], games=[(21, 1), (21, 1)])
    report(ladder, alice, [alice], [charlie], games=[(21, 2), (21, 2)])
    error = refused(
        "__all__",
        "You already have 2 reports waiting for confirmation on Club Singles",
        ladder=ladder,
        reporter=alice,
        side_a=[alice],
        side_b=[bob],
        games=[(21, 3), (21, 3)],
    )
    assert "cancel one" in error.message
    # Others are not limited by alice's reports.
    assert report(ladder, bob, [bob], [charlie]).state == "pending"


def test_confirmed_and_overdue_reports_do_not_count_against_the_pending_limit(ladder, alice, bob):
    ladder.max_pending_reports = 1
    ladder.save()
    first = report(ladder, alice, [alice], [bob], games=[(21, 1), (21, 1)])
    matches.confirm_match(first, bob)
    second = report(ladder, alice, [alice], [bob], games=[(21, 2), (21, 2)])
    Match.objects.filter(pk=second.pk).update(created_at=timezone.now() - timedelta(days=8))
    assert report(ladder, alice, [alice], [bob], games=[(21, 3), (21, 3)]).state == "pending"


def test_hourly_rate_limit(ladder, alice, bob):
    ladder.reports_per_hour = 2
    ladder.save()
    now = timezone.now()
    for n in range(2):
        match = report(ladder, alice, [alice], [bob], games=[(21, n), (21, n)], now=now)
        matches.confirm_match(match, bob, now=now)  # so the pending limit is not the reason
    refused(
        "__all__",
        "You have reported 2 matches on Club Singles in the last hour",
        ladder=ladder,
        reporter=alice,
        side_a=[alice],
        side_b=[bob],
        games=[(21, 9), (21, 9)],
        now=now + timedelta(minutes=59),
    )
    later = report(
        ladder, alice, [alice], [bob], games=[(21, 9), (21, 9)], now=now + timedelta(minutes=61)
    )
    assert later.state == "pending"


# ---- stats ------------------------------------------------------------------------------


@pytest.fixture
def league(alice, bob):
    league = LadderFactory(
        name="League",
        slug="league",
        scoring_format="generic",
        best_of=1,
        points_per_game=16,
        team_method="performance_weighted",
        method_options={"stat_weights": {"kills": 1.0, "deaths": -0.7}},
    )
    for user in (alice, bob):
        MembershipFactory(ladder=league, user=user)
    return league


def test_stats_are_stored_per_player_by_username_or_id(league, alice, bob):
    stats = {"alice": {"kills": 21, "deaths": 14}, bob.pk: {"kills": 9.5, "deaths": 20}}
    match = report(league, alice, [alice], [bob], games=[(16, 12)], stats=stats)
    assert MatchPlayer.objects.get(match=match, user=alice).stats == {"kills": 21, "deaths": 14}
    assert MatchPlayer.objects.get(match=match, user=bob).stats == {"kills": 9.5, "deaths": 20}
    assert AuditEntry.objects.get(match=match).after["stats"] == {
        "alice": {"kills": 21, "deaths": 14},
        "bob": {"kills": 9.5, "deaths": 20},
    }


@pytest.mark.parametrize(
    ("stats", "message"),
    [
        ({"alice": {"kills": "many"}}, "Alice Archer's kills must be a number, not 'many'."),
        ({"alice": {"kills": True}}, "Alice Archer's kills must be a number"),
        ({"alice": {"assists": 3}}, "League has no stat called 'assists'; it uses deaths, kills."),
        ({"charlie": {"kills": 3}}, "charlie is not a player in this match."),
        ({"alice": 3}, "Alice Archer's stats must be numbers by name"),
        ([1, 2], "Stats must map each player to their numbers"),
    ],
)
def test_bad_stats(league, alice, bob, stats, message):
    refused(
        "stats",
        message,
        ladder=league,
        reporter=alice,
        side_a=[alice],
        side_b=[bob],
        games=[(16, 12)],
        stats=stats,
    )


def test_stats_on_a_ladder_that_does_not_use_them(ladder, alice, bob):
    refused(
        "stats",
        "Club Singles does not use player stats",
        ladder=ladder,
        reporter=alice,
        side_a=[alice],
        side_b=[bob],
        stats={"alice": {"kills": 3}},
    )


def test_empty_stats_are_fine_anywhere(ladder, alice, bob):
    assert report(ladder, alice, [alice], [bob], stats={}).state == "pending"


def test_reported_match_helper(ladder, alice, bob):
    match = reported_match(ladder, alice, [alice], [bob])
    assert match.score_text == "21-15 21-18"


def test_a_user_factory_member_can_report(ladder, bob):
    eve = UserFactory(username="eve")
    MembershipFactory(ladder=ladder, user=eve)
    assert report(ladder, eve, [eve], [bob]).reporter == eve


def test_checking_a_report_makes_nothing_and_locks_nothing(ladder, alice, bob, mailoutbox):
    """The report form asks ``check_report`` as the member types: the real report's rules,
    without locking memberships or writing a row (issue 14)."""
    arguments = {
        "ladder": ladder,
        "reporter": alice,
        "played_on": TODAY(),
        "side_a": [alice],
        "side_b": [bob],
        "games": [(21, 15), (21, 18)],
    }
    with unchanged(), CaptureQueriesContext(connection) as queries:
        assert check_report(Report(**arguments)) is None
    assert not [q["sql"] for q in queries if "FOR UPDATE" in q["sql"].upper()]
    assert not [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith("INSERT")]
    assert mailoutbox == []

    # The same refusal as the report itself, word for word.
    bad = {**arguments, "games": [(21, 15), (15, 21)]}
    with unchanged(), pytest.raises(MatchValidationError) as checked:
        check_report(Report(**bad))
    with unchanged(), pytest.raises(MatchValidationError) as reported:
        matches.report_match(Report(**bad))
    assert checked.value.errors == reported.value.errors

    # What the check passes, the report takes.
    match = matches.report_match(Report(**arguments))
    assert Match.objects.filter(pk=match.pk, state="pending").exists()
    # And a second time it is a duplicate, for the check as for the report.
    with pytest.raises(MatchValidationError) as duplicate:
        check_report(Report(**arguments))
    assert "already reported" in str(duplicate.value.errors["__all__"])
