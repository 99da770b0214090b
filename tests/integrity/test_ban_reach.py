"""A ban reaches every feature (issue 36 item 1): the membership's state, read by the one
access policy (ladder/clubs/access.py).

The club: Alice, Bob, Charlie and Dave play singles; Bob lost to Alice and to Charlie last
week. Before the ban Alice challenged Bob, Charlie and Bob scheduled a challenge, Bob posted a
game that Dave joined, and Bob joined a game Alice posted. Then a moderator bans Bob from
today on (his rated matches stay: he keeps a rating row, which only moderators see).

Two tables: Bob as the *subject* of every surface, seen by a visitor, a member, Bob himself
and a moderator; and Bob as the *viewer*, refused with the ban's reason on every action of
his, changing nothing. A new surface or action belongs in these tables.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.models import User
from ladder.clubs.models import Membership
from ladder.integrity import bans
from ladder.matches import operations
from ladder.matches.models import Match, MatchPlayer, Notification
from ladder.play import services as play
from ladder.play.models import (
    CANCELLED,
    OPEN,
    Challenge,
    ChallengePlayer,
    OpenGame,
)
from ratings.models import PlayerRating, Season
from ratings.upkeep import save_season
from tests.factories import MembershipFactory, reported_match
from tests.matches.support import api_client, report_payload
from tests.play.support import rows, soon, unchanged

REASON = "Threatened an opponent."


@pytest.fixture
def club(ladder, alice, bob, charlie, dave, mod, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    MembershipFactory(ladder=ladder, user=dave)
    week_ago = timezone.localdate() - timedelta(days=7)
    with django_capture_on_commit_callbacks(execute=True):
        for winner in (alice, charlie):
            match = reported_match(ladder, winner, [winner], [bob], played_on=week_ago)
            operations.confirm_match(match, bob)
    save_season(
        Season(
            ladder=ladder,
            name="Winter",
            slug="winter",
            starts_on=week_ago - timedelta(days=7),
            ends_on=timezone.localdate() + timedelta(days=30),
        )
    )
    asked = play.create_challenge(
        ladder=ladder, by=alice, opponents=["bob"], proposed_times=[soon(2)]
    )
    agreed = play.create_challenge(
        ladder=ladder, by=charlie, opponents=["bob"], proposed_times=[soon(3)]
    )
    play.accept_challenge(agreed, bob, soon(3))
    his = play.post_open_game(ladder=ladder, by=bob, starts_at=soon(4), place="Hall 1")
    play.join_open_game(his, dave)
    hers = play.post_open_game(ladder=ladder, by=alice, starts_at=soon(5), place="Hall 2")
    play.join_open_game(hers, bob)
    Notification.objects.all().delete()
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        bans.ban_member(ladder, mod, "bob", REASON, timezone.localdate())
    return {"asked": asked, "agreed": agreed, "his": his, "hers": hers}


# ---- what the ban does at once ----------------------------------------------------------------


def test_the_ban_calls_off_his_challenges_and_games_and_tells_each_player_once(
    club, ladder, alice, bob, charlie, dave
) -> None:
    states = dict(Challenge.objects.values_list("pk", "state"))
    assert states == {club["asked"].pk: CANCELLED, club["agreed"].pk: CANCELLED}
    his, hers = OpenGame.objects.get(pk=club["his"].pk), OpenGame.objects.get(pk=club["hers"].pk)
    assert his.state == CANCELLED
    assert hers.state == OPEN and hers.players_list == [alice]
    for user, count in ((alice, 1), (charlie, 1), (dave, 1)):
        told = Notification.objects.filter(user=user, text__contains="can no longer play")
        assert told.count() == count, user
    # Alice's one notice names both of her changes; the ban itself shows nowhere.
    text = Notification.objects.get(user=alice, text__contains="can no longer play").text
    assert "challenge Alice Archer v Bob Baker is cancelled" in text
    assert "has a place free" in text and REASON not in text and "ban" not in text
    assert sorted(len(m.to) for m in mail.outbox if "called off" in m.subject) == [1, 1, 1]
    membership = Membership.objects.get(ladder=ladder, user=bob)
    assert membership.banned_at is not None and membership.ban_reason == REASON
    assert PlayerRating.objects.get(ladder=ladder, user=bob).listing == "banned"


# ---- Bob as the subject --------------------------------------------------------------------

VIEWERS = ("visitor", "member", "banned", "moderator")
WHO = {"member": "charlie", "banned": "bob", "moderator": "mod"}


def _by(yes: set[str], a: Any, b: Any) -> dict[str, Any]:
    return {v: a if v in yes else b for v in VIEWERS}


MODS = {"moderator"}
SUBJECT: dict[str, dict[str, Any]] = {
    "ladder page": _by(MODS, True, False),
    "ladder page marks him banned": _by(MODS, True, False),
    "leaderboard api": _by(MODS, True, False),
    "season page": _by(MODS, True, False),
    "season api": _by(MODS, True, False),
    # His own page stays his (his other ladders, his account); the banned ladder leaves it.
    "player page": {"visitor": 404, "member": 404, "banned": 200, "moderator": 200},
    "player page names the ladder": _by(MODS, True, False),
    "predict api": _by(MODS, True, False),
    "head-to-head page": _by(MODS, 200, 400),
    "search api": _by(MODS, True, False),
    # Choosing an opponent or a player for club night: no one chooses him.
    "report type-ahead": {"visitor": 302, "member": False, "banned": False, "moderator": False},
    "club night api": {"visitor": 401, "member": 400, "banned": 403, "moderator": 400},
    "club night page lists him": {
        "visitor": False,
        "member": False,
        "banned": False,
        "moderator": False,
    },
    "open games api names him": {
        "visitor": None,
        "member": False,
        "banned": False,
        "moderator": False,
    },
    "open games page names him": {
        "visitor": None,
        "member": False,
        "banned": False,
        "moderator": False,
    },
    # His match of last week, which still counts: its players and moderators see his name.
    "match page names him": {
        "visitor": False,
        "member": True,  # Charlie played him
        "banned": True,
        "moderator": True,
    },
}


def _clients(viewer: str) -> tuple[Client, Any]:
    page = Client()
    name = WHO.get(viewer)
    if name is None:
        return page, api_client(None)
    user = User.objects.get(username=name)
    page.force_login(user)
    return page, api_client(user)


def _main(response: Any) -> str:
    """The page's own content, without the header (which names the signed-in member)."""
    html = response.content.decode()
    return html[html.find('<main class="container"') :]


def _subject(viewer: str, ladder: Any) -> dict[str, Any]:
    page, api = _clients(viewer)
    got: dict[str, Any] = {}
    board = _main(page.get("/ladders/singles/"))
    got["ladder page"] = "Bob Baker" in board
    got["ladder page marks him banned"] = ">Banned</span>" in board
    rows_ = api.get("/api/v1/ladders/singles/leaderboard/").json()["results"]
    got["leaderboard api"] = "bob" in [r["username"] for r in rows_]
    got["season page"] = "Bob Baker" in _main(page.get("/ladders/singles/seasons/winter/"))
    standings = api.get("/api/v1/ladders/singles/seasons/winter/standings/").json()
    got["season api"] = "bob" in str(standings)
    player = page.get("/players/bob/")
    got["player page"] = player.status_code
    got["player page names the ladder"] = "Club Singles" in player.content.decode()
    predicted = api.get(
        "/api/v1/predict/", {"ladder": "singles", "side_a": "alice", "side_b": "bob"}
    )
    got["predict api"] = predicted.json().get("probability") is not None
    got["head-to-head page"] = page.get("/ladders/singles/head-to-head/?a=alice&b=bob").status_code
    found = api.get("/api/v1/players/", {"search": "Bob", "ladder": "singles"}).json()
    got["search api"] = "bob" in [p["username"] for p in found]
    typed = page.get("/ladders/singles/players/", {"q": "Bob"})
    got["report type-ahead"] = (
        typed.status_code if typed.status_code != 200 else "Bob Baker" in typed.content.decode()
    )
    answer = api.post(
        "/api/v1/ladders/singles/club-night/", {"present": ["alice", "bob"]}, format="json"
    )
    got["club night api"] = answer.status_code
    if answer.status_code == 400:
        assert answer.json() == {"present": ["No member of Club Singles is called bob."]}
    if answer.status_code == 403:
        assert REASON in answer.json()["detail"]
    night = page.get("/ladders/singles/club-night/")
    got["club night page lists him"] = night.status_code == 200 and "Bob Baker" in (
        night.content.decode()
    )
    games = api.get("/api/v1/ladders/singles/open-games/")
    got["open games api names him"] = (
        "bob" in str(games.json()) if games.status_code == 200 else None
    )
    games_page = page.get("/ladders/singles/open-games/")
    got["open games page names him"] = (
        "Bob Baker" in _main(games_page) if games_page.status_code == 200 else None
    )
    if viewer == "banned":
        got["open games api names him"] = (
            None if games.status_code != 200 else got["open games api names him"]
        )
    his_match = Match.objects.filter(players__user__username="charlie").get(
        players__user__username="bob"
    )
    got["match page names him"] = (
        "Bob Baker" in page.get(f"/matches/{his_match.pk}/").content.decode()
    )
    return got


@pytest.mark.parametrize("viewer", VIEWERS)
def test_the_banned_member_appears_nowhere_but_to_moderators(viewer, club, ladder) -> None:
    got = _subject(viewer, ladder)
    expected = {surface: row[viewer] for surface, row in SUBJECT.items()}
    wrong = {s: (got[s], expected[s]) for s in SUBJECT if got[s] != expected[s]}
    assert not wrong, f"{viewer}: surface → (got, expected): {wrong}"


# ---- Bob as the viewer: every action refused with the ban's reason ---------------------------


def _slipped_challenge(ladder: Any, challenger: User, bob: User) -> Challenge:
    """A challenge to Bob the ban did not reach (written past the rules, as a race might)."""
    now = timezone.now()
    challenge = Challenge.objects.create(
        ladder=ladder,
        challenger=challenger,
        proposed_times=[soon(2).isoformat()],
        proposed_by="a",
        expires_at=now + timedelta(days=7),
        created_at=now,
        updated_at=now,
    )
    ChallengePlayer.objects.create(challenge=challenge, user=challenger, side="a")
    ChallengePlayer.objects.create(challenge=challenge, user=bob, side="b")
    return challenge


def _slipped_report(ladder: Any, alice: User, bob: User) -> Match:
    match = Match.objects.create(
        ladder=ladder, played_on=timezone.localdate(), reporter=alice, state="pending"
    )
    MatchPlayer.objects.create(match=match, user=alice, side="a", position=0)
    MatchPlayer.objects.create(match=match, user=bob, side="b", position=0)
    return match


ACTIONS = (
    "challenge",
    "accept",
    "propose",
    "post a game",
    "join a game",
    "club night",
    "time away",
    "report",
    "confirm",
    "dispute",
    "challenge page",
    "open games page post",
    "club night page",
)


@pytest.mark.parametrize("action", ACTIONS)
def test_every_action_of_the_banned_member_is_refused_with_the_reason(
    action, club, ladder, alice, bob
) -> None:
    api = api_client(bob)
    page = Client()
    page.force_login(bob)
    challenge = _slipped_challenge(ladder, alice, bob)
    game = play.post_open_game(ladder=ladder, by=alice, starts_at=soon(6), place="Hall 3")
    match = _slipped_report(ladder, alice, bob)
    before = rows()
    memberships = list(Membership.objects.filter(user=bob).values_list("away_until", flat=True))
    with unchanged():
        if action == "challenge":
            answer = api.post(
                "/api/v1/ladders/singles/challenges/",
                {"opponents": ["charlie"], "proposed_times": [soon(2).isoformat()]},
                format="json",
            )
        elif action == "accept":
            answer = api.post(
                f"/api/v1/challenges/{challenge.pk}/accept/",
                {"time": challenge.proposed_times[0]},
                format="json",
            )
        elif action == "propose":
            answer = api.post(
                f"/api/v1/challenges/{challenge.pk}/propose/",
                {"proposed_times": [soon(3).isoformat()]},
                format="json",
            )
        elif action == "post a game":
            answer = api.post(
                "/api/v1/ladders/singles/open-games/",
                {"starts_at": soon(4).isoformat(), "place": "Hall 9"},
                format="json",
            )
        elif action == "join a game":
            answer = api.post(f"/api/v1/open-games/{game.pk}/join/")
        elif action == "club night":
            answer = api.post(
                "/api/v1/ladders/singles/club-night/",
                {"present": ["alice", "charlie"]},
                format="json",
            )
        elif action == "time away":
            until = (timezone.localdate() + timedelta(days=3)).isoformat()
            answer = api.put("/api/v1/ladders/singles/away/", {"until": until}, format="json")
        elif action == "report":
            answer = api.post(
                "/api/v1/matches/", report_payload(ladder, [bob], [alice]), format="json"
            )
        elif action == "confirm":
            answer = api.post(f"/api/v1/matches/{match.pk}/confirm/")
        elif action == "dispute":
            answer = api.post(
                f"/api/v1/matches/{match.pk}/dispute/", {"reason": "Not so."}, format="json"
            )
        elif action == "challenge page":
            answer = page.post(
                "/ladders/singles/challenge/",
                {"opponent_1": "charlie", "time_1": soon(2).strftime("%Y-%m-%dT%H:%M")},
            )
        elif action == "open games page post":
            answer = page.post(
                "/ladders/singles/open-games/",
                {
                    "starts_at": soon(4).strftime("%Y-%m-%dT%H:%M"),
                    "place": "Hall 9",
                    "team_size": "1",
                },
            )
        else:
            answer = page.get("/ladders/singles/club-night/")
    assert answer.status_code == 403, (action, answer.content[:300])
    assert REASON in answer.content.decode(), action
    assert rows() == before
    assert list(Membership.objects.filter(user=bob).values_list("away_until", flat=True)) == (
        memberships
    )


def test_others_name_him_as_no_member(club, ladder, alice) -> None:
    """Challenging, reporting against or inviting him reads as an unknown name."""
    api = api_client(alice)
    with unchanged():
        made = api.post(
            "/api/v1/ladders/singles/challenges/",
            {"opponents": ["bob"], "proposed_times": [soon(2).isoformat()]},
            format="json",
        )
    assert made.status_code == 400
    assert made.json()["opponents"] == ["No member of Club Singles is called 'bob'."]
    reported = api.post(
        "/api/v1/matches/",
        report_payload(ladder, [alice], [User.objects.get(username="bob")]),
        format="json",
    )
    assert reported.status_code == 400 and "bob" in str(reported.json())


def test_lifting_the_ban_lists_him_again(club, ladder, bob, mod) -> None:
    bans.lift_ban(ladder, mod, "bob", "Apologised.")
    assert Membership.objects.get(ladder=ladder, user=bob).banned_at is None
    assert PlayerRating.objects.get(ladder=ladder, user=bob).listing == "public"
    rows_ = api_client(None).get("/api/v1/ladders/singles/leaderboard/").json()["results"]
    assert "bob" in [r["username"] for r in rows_]
