"""Issue 23: a round's scores entered on one screen. Each court counts on its own: a court
of members is reported through report_match (the organiser need not have played; a player
of the match confirms it), a court with a guest is kept with the night and never rated, a
refused court saves nothing and keeps what was typed. A court entered once is never
entered again: a double submit reports nothing twice."""

from __future__ import annotations

import threading
from html import unescape

import pytest
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from accounts.models import User
from ladder.clubnight import services as clubnight
from ladder.clubnight.matchmaking import ClubNightError, ClubNightPermissionError
from ladder.clubnight.models import ClubNight
from ladder.clubs.models import Ladder
from ladder.matches.errors import MatchPermissionError
from ladder.matches.models import PENDING, TO_CONFIRM, Match, Notification
from ladder.matches.operations import confirm_match
from ratings.models import PlayerRating
from tests.factories import LadderFactory, MembershipFactory, UserFactory

FIRST_COURTS = [
    {"side_a": ["bob"], "side_b": ["charlie"]},  # members; alice, the organiser, is not in it
    {"side_a": ["erin"], "side_b": ["guest:1"]},  # with a guest
    {"side_a": ["alice"], "side_b": ["frank"]},  # members, the organiser playing
]


@pytest.fixture(autouse=True)
def _no_throttle_history() -> None:
    cache.clear()


@pytest.fixture
def night(ladder: Ladder, alice: User, bob: User, charlie: User) -> ClubNight:
    """Tonight on the singles ladder: one round of three courts (one with a guest, Sam)."""
    for name in ("erin", "frank"):
        MembershipFactory(ladder=ladder, user=UserFactory(username=name))
    return ClubNight.objects.create(
        ladder=ladder,
        date=timezone.localdate(),
        created_by=alice,
        present=["alice", "bob", "charlie", "erin", "frank", "guest:1"],
        guests=[{"id": "guest:1", "name": "Sam Visitor"}],
        rounds=[
            {
                "matches": [{**m, "quality": 0.5, "win_probability": 0.5} for m in FIRST_COURTS],
                "byes": [],
                "floor": 0.4,
            }
        ],
    )


def scores_url(ladder: Ladder, number: int = 1) -> str:
    return f"/ladders/{ladder.slug}/club-night/rounds/{number}/scores/"


def results(ladder: Ladder) -> list:
    return [m.get("result") for m in ClubNight.objects.get(ladder=ladder).rounds[0]["matches"]]


def lineup(match: Match) -> tuple[list[str], list[str]]:
    return (
        [u.username for u in match.side_a_players],
        [u.username for u in match.side_b_players],
    )


# ---- the service -------------------------------------------------------------------------------


def test_each_court_counts_on_its_own(ladder, night, alice) -> None:
    outcomes = clubnight.enter_scores(
        ladder, alice, 1, {1: [(21, 15), (21, 18)], 2: [(21, 19), (30, 31)], 3: [(25, 21)]}
    )
    assert outcomes[1].status == clubnight.REPORTED
    assert outcomes[2].status == clubnight.REFUSED
    assert outcomes[2].message.startswith("Game 2:")
    assert outcomes[3].status == clubnight.REFUSED
    # Court 1 only: one pending match, dated tonight, entered by the organiser.
    match = Match.objects.with_details().get()
    assert outcomes[1].match_id == match.pk
    assert (match.state, match.reporter, match.played_on) == (PENDING, alice, night.date)
    assert lineup(match) == (["bob"], ["charlie"])
    assert match.game_scores == [(21, 15), (21, 18)]
    assert results(ladder) == [
        {"games": [[21, 15], [21, 18]], "match": match.pk, "by": "alice"},
        None,
        None,
    ]
    # The refused courts, corrected: the guest's game is kept, the other reported.
    again = clubnight.enter_scores(
        ladder, alice, 1, {2: [(21, 19), (21, 17)], 3: [(21, 9), (21, 8)]}
    )
    assert [again[2].status, again[3].status] == [clubnight.KEPT, clubnight.REPORTED]
    assert results(ladder)[1] == {"games": [[21, 19], [21, 17]], "match": None, "by": "alice"}
    assert Match.objects.count() == 2
    assert lineup(Match.objects.with_details().get(pk=again[3].match_id)) == (["alice"], ["frank"])


def test_entering_a_court_twice_reports_it_once(ladder, night, alice) -> None:
    scores = {1: [(21, 15), (21, 18)], 2: [(21, 3), (21, 4)]}
    first = clubnight.enter_scores(ladder, alice, 1, scores)
    after_first = results(ladder)
    second = clubnight.enter_scores(ladder, alice, 1, scores)
    assert [second[1].status, second[2].status] == [clubnight.ALREADY, clubnight.ALREADY]
    assert second[1].match_id == first[1].match_id
    # Another score for an entered court is refused and changes nothing (edit the match).
    other = clubnight.enter_scores(ladder, alice, 1, {1: [(21, 0), (21, 0)], 2: [(21, 0), (21, 0)]})
    assert other[1].message == (
        "Court 1 was entered already: 21-15 21-18; to change it, its reporter edits the "
        "match or a player disputes it."
    )
    assert other[2].message == (
        "Court 2 was entered already: 21-3 21-4; whoever entered it, or a moderator, can "
        "correct it (“Correct the score”)."
    )
    assert Match.objects.count() == 1 and results(ladder) == after_first


def test_the_organiser_who_did_not_play_is_not_a_player_of_the_report(
    ladder, night, alice, bob, charlie
) -> None:
    """A player of either side confirms; both sides are told; the organiser cannot."""
    outcome = clubnight.enter_scores(ladder, alice, 1, {1: [(21, 15), (21, 18)]})[1]
    match = Match.objects.with_details().get(pk=outcome.match_id)
    told = set(
        Notification.objects.filter(match=match, kind=TO_CONFIRM).values_list(
            "user__username", flat=True
        )
    )
    assert told == {"bob", "charlie"}
    with pytest.raises(MatchPermissionError, match="one of your opponents must confirm"):
        confirm_match(match, alice)
    assert confirm_match(match, charlie).state == "confirmed"


def test_the_players_hear_the_organiser_entered_the_score_not_reported_against_them(
    ladder, night, alice, bob, charlie, django_capture_on_commit_callbacks, mailoutbox
) -> None:
    # Issue 37: "Mei Lin reported a match against you", from someone who did not play.
    with django_capture_on_commit_callbacks(execute=True):
        outcome = clubnight.enter_scores(ladder, alice, 1, {1: [(21, 15), (21, 18)]})[1]
    notices = Notification.objects.filter(match_id=outcome.match_id, kind=TO_CONFIRM)
    assert len(notices) == 2
    for notice in notices:
        assert notice.text.startswith(f"{alice.name} entered the club night score of ")
        assert "reported" not in notice.text
    mails = [m for m in mailoutbox if {bob.email, charlie.email} & set(m.to)]
    assert len(mails) == 2
    for mail in mails:
        assert mail.subject == f"{alice.name} entered your club night score: please confirm"
        assert f"{alice.name} entered the score of a {ladder.name} club night match" in mail.body
        assert "reported a match against you" not in mail.subject + mail.body


def test_the_organisers_reporting_limits_do_not_stop_club_night(ladder, night, alice) -> None:
    ladder.max_pending_reports = 1
    ladder.reports_per_hour = 1
    ladder.save()
    outcomes = clubnight.enter_scores(
        ladder, alice, 1, {1: [(21, 1), (21, 2)], 3: [(21, 3), (21, 4)]}
    )
    assert {o.status for o in outcomes.values()} == {clubnight.REPORTED}


def test_a_court_with_a_member_no_longer_there_is_refused_alone(ladder, night, alice) -> None:
    User.objects.filter(username="bob").update(is_active=False)
    outcomes = clubnight.enter_scores(
        ladder, alice, 1, {1: [(21, 1), (21, 2)], 3: [(21, 3), (21, 4)]}
    )
    assert outcomes[1].status == clubnight.REFUSED and "deactivated" in outcomes[1].message
    assert outcomes[3].status == clubnight.REPORTED
    assert Match.objects.count() == 1


@pytest.mark.parametrize(
    ("by", "number", "error", "message"),
    [
        ("outsider", 1, ClubNightPermissionError, "Only members of Club Singles and moderators"),
        ("alice", 2, ClubNightError, "There is no round 2 tonight"),
        ("alice", 0, ClubNightError, "There is no round 0 tonight"),
    ],
)
def test_who_may_enter_and_which_rounds(
    ladder, night, outsider, by, number, error, message
) -> None:
    with pytest.raises(error, match=message):
        clubnight.enter_scores(
            ladder, User.objects.get(username=by), number, {1: [(21, 1), (21, 2)]}
        )
    assert results(ladder) == [None, None, None] and not Match.objects.exists()


def test_a_court_the_round_does_not_have_is_refused(ladder, night, alice) -> None:
    outcomes = clubnight.enter_scores(ladder, alice, 1, {4: [(21, 1), (21, 2)]})
    assert (
        outcomes[4].status == clubnight.REFUSED and outcomes[4].message == "Round 1 has no court 4."
    )


@pytest.mark.django_db(transaction=True)
def test_two_submits_at_once_report_each_court_once() -> None:
    """Two organisers' phones (or a double tap) at the same moment: the night's row lock
    makes the second wait, then find the courts entered."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL")
    ladder = LadderFactory(name="Club Singles", slug="singles")
    users = {}
    for name in ("alice", "bob", "charlie", "erin", "frank"):
        users[name] = UserFactory(username=name)
        MembershipFactory(ladder=ladder, user=users[name])
    ClubNight.objects.create(
        ladder=ladder,
        date=timezone.localdate(),
        guests=[{"id": "guest:1", "name": "Sam Visitor"}],
        rounds=[{"matches": [{**m, "quality": 0.5, "win_probability": 0.5} for m in FIRST_COURTS]}],
    )
    scores = {1: [(21, 15), (21, 18)], 2: [(21, 3), (21, 4)], 3: [(21, 5), (21, 6)]}
    barrier = threading.Barrier(2)
    outcomes: list[dict] = []

    def submit() -> None:
        barrier.wait()
        try:
            outcomes.append(clubnight.enter_scores(ladder, users["alice"], 1, scores))
        finally:
            connection.close()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert Match.objects.count() == 2
    statuses = sorted(tuple(o[n].status for n in (1, 2, 3)) for o in outcomes)
    assert statuses == [
        (clubnight.ALREADY,) * 3,
        (clubnight.REPORTED, clubnight.KEPT, clubnight.REPORTED),
    ]


# ---- the page ----------------------------------------------------------------------------------


def test_the_screen_has_a_block_per_court(client, ladder, night, alice) -> None:
    client.force_login(alice)
    page = client.get(scores_url(ladder))
    assert page.status_code == 200
    html = unescape(page.content.decode())
    assert html.count('class="card court-scores') == 3
    assert html.count('name="c1-a"') == 3 and html.count('name="c3-b"') == 3  # best of 3
    assert 'aria-label="Court 1, game 1: Bob Baker"' in html
    assert 'aria-label="Court 2, game 3: Sam Visitor"' in html
    assert "with a guest · not rated" in html
    # Court by court in the page's order: all of court 1's boxes before court 2's.
    assert html.index('name="c1-b"') < html.index('name="c2-a"') < html.index('name="c3-a"')


def post_scores(client, ladder, courts: dict[int, list[tuple[str, str]]]):  # type: ignore[no-untyped-def]
    data: dict[str, list[str]] = {}
    for court, games in courts.items():
        data[f"c{court}-a"] = [a for a, _ in games]
        data[f"c{court}-b"] = [b for _, b in games]
    return client.post(scores_url(ladder), data)


def test_the_screen_saves_the_valid_courts_and_keeps_the_others(
    client, ladder, night, alice
) -> None:
    client.force_login(alice)
    answer = post_scores(
        client,
        ladder,
        {
            1: [("21", "15"), ("21", "18"), ("", "")],
            2: [("21", "x"), ("", ""), ("", "")],
            3: [("21", "")],
        },
    )
    assert answer.status_code == 400
    html = unescape(answer.content.decode())
    assert "1 court saved; correct the courts marked below and save again." in html
    assert "Game 1: points are whole numbers, like 21-15." in html
    assert "Game 1: enter both scores." in html
    assert 'name="c2-a" value="21"' in html and 'name="c2-b" value="x"' in html  # kept
    assert "21-15 21-18" in html and "for its players to confirm" in html  # court 1: entered
    assert html.count('name="c1-a"') == 0
    assert Match.objects.count() == 1 and results(ladder)[1:] == [None, None]


def test_a_double_submit_reports_once(client, ladder, night, alice) -> None:
    client.force_login(alice)
    form = {1: [("21", "15"), ("21", "18")], 2: [("21", "5"), ("21", "6")]}
    first = post_scores(client, ladder, form)
    assert first.status_code == 302 and first["Location"].endswith("/club-night/#rounds")
    second = post_scores(client, ladder, form)
    assert second.status_code == 302
    assert Match.objects.count() == 1
    page = unescape(client.get(second["Location"]).content.decode())
    assert "Round 1: those courts were entered already; nothing was entered twice." in page
    first_page = results(ladder)
    assert first_page[0]["games"] == [[21, 15], [21, 18]]
    assert first_page[1] == {"games": [[21, 5], [21, 6]], "match": None, "by": "alice"}


def test_the_club_night_page_shows_the_entered_scores(client, ladder, night, alice) -> None:
    client.force_login(alice)
    answer = post_scores(
        client, ladder, {1: [("21", "15"), ("21", "18")], 2: [("21", "5"), ("21", "6")]}
    )
    page = unescape(client.get(answer["Location"]).content.decode())
    assert (
        "Round 1: 1 match reported: a player of each waits to confirm it; 1 game with a guest kept (not rated)."
        in page
    )
    assert "21-15 21-18" in page and "21-5 21-6" in page
    assert "with a guest: kept for tonight, not rated" in page
    assert f"/matches/{Match.objects.get().pk}/" in page
    assert "Enter round 1's scores" in page


@pytest.mark.parametrize(
    ("courts", "message"),
    [
        ({}, "Enter the score of at least one court."),
        ({1: [("", ""), ("", ""), ("", "")]}, "Enter the score of at least one court."),
        ({1: [("21", "25"), ("21", "12")]}, "Game 1: 21-25 is not a valid badminton game"),
        ({1: [("-5", "21"), ("21", "12")]}, "Game 1:"),
        ({1: [("21", "15")]}, "The match is not finished"),
    ],
)
def test_bad_input_changes_nothing(client, ladder, night, alice, courts, message) -> None:
    client.force_login(alice)
    before = ClubNight.objects.values("rounds").get(ladder=ladder)
    answer = post_scores(client, ladder, courts)
    assert answer.status_code == 400
    html = unescape(answer.content.decode())
    assert message in html
    if message != "Enter the score of at least one court.":
        assert "Nothing saved: correct the courts marked below and save again." in html
    assert ClubNight.objects.values("rounds").get(ladder=ladder) == before
    assert not Match.objects.exists() and not PlayerRating.objects.exists()


def test_who_may_use_the_screen(client, ladder, night, outsider, mod) -> None:
    assert client.get(scores_url(ladder)).status_code == 302  # to log in
    client.force_login(outsider)
    assert client.get(scores_url(ladder)).status_code == 403
    assert post_scores(client, ladder, {2: [("21", "5"), ("21", "6")]}).status_code == 403
    assert results(ladder) == [None, None, None]
    client.force_login(mod)  # a moderator may run club night: the guest's court is kept
    assert post_scores(client, ladder, {2: [("21", "5"), ("21", "6")]}).status_code == 302
    assert results(ladder)[1]["by"] == "mod"
    assert client.get(scores_url(ladder, 2)).status_code == 404
    assert client.put(scores_url(ladder)).status_code == 405
