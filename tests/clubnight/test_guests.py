"""Issue 23: guests on club night. People who are not members are added by name, paired as
newcomers, play in rounds like members, and stay unrated: their games are kept with the
night and never become matches, so no rating, leaderboard, head-to-head or player page
hears of them."""

from __future__ import annotations

from html import unescape

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import User
from ladder.clubnight import services as clubnight
from ladder.clubnight.matchmaking import ClubNightError
from ladder.clubnight.models import ClubNight
from ladder.clubs.models import Ladder
from ladder.matches.models import Match, MatchPlayer
from ladder.matches.operations import confirm_match
from ratings.engine.types import PlayerState
from ratings.models import PlayerRating
from ratings.pipeline import recompute_ladder
from tests.factories import UserFactory, reported_match

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def _no_throttle_history() -> None:
    cache.clear()


def url(ladder: Ladder) -> str:
    return f"/ladders/{ladder.slug}/club-night/"


def propose_url(ladder: Ladder) -> str:
    return f"/ladders/{ladder.slug}/club-night/rounds/propose/"


def add_guest_url(ladder: Ladder) -> str:
    return f"/ladders/{ladder.slug}/club-night/guests/add/"


def rating_rows(ladder: Ladder) -> list[tuple]:
    return list(
        PlayerRating.objects.filter(ladder=ladder)
        .order_by("user__username")
        .values_list("user__username", "rating", "rd", "volatility", "matches", "last_played")
    )


# ---- adding a guest ---------------------------------------------------------------------------


def test_a_guest_is_added_ticked_with_a_tidy_name(ladder, alice) -> None:
    guest = clubnight.add_guest(ladder, alice, "  Sam   Visitor ")
    night = ClubNight.objects.get(ladder=ladder)
    assert guest == clubnight.Guest("guest:1", "Sam Visitor")
    assert night.guests == [{"id": "guest:1", "name": "Sam Visitor"}]
    assert night.present == ["guest:1"] and night.created_by == alice
    second = clubnight.add_guest(ladder, alice, "Trial Tess")
    assert second.id == "guest:2"
    assert ClubNight.objects.get(ladder=ladder).present == ["guest:1", "guest:2"]


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("   ", "Give the guest a name"),
        ("x" * 61, "at most 60 characters; this one has 61"),
        ("Sam\u200bVisitor", "plain text"),
        ("Alice Archer", "reads like the name of someone with an account here"),
        ("ALICE  archer", "reads like the name of someone with an account here"),
        ("\u0410lice Archer", "reads like the name of someone with an account here"),  # Cyrillic А
        ("bob baker", "reads like the name of someone with an account here"),
        ("Olive Outsider", "reads like the name of someone with an account here"),  # not a member
        ("sam visitor", "There is already a guest called"),
    ],
)
def test_a_bad_guest_name_is_refused_and_changes_nothing(
    ladder, alice, bob, outsider, typed, message
) -> None:
    clubnight.add_guest(ladder, alice, "Sam Visitor")
    before = ClubNight.objects.values("guests", "present").get(ladder=ladder)
    with pytest.raises(ClubNightError, match=message):
        clubnight.add_guest(ladder, alice, typed)
    assert ClubNight.objects.values("guests", "present").get(ladder=ladder) == before


def test_a_guest_is_paired_as_a_newcomer(ladder) -> None:
    """The documented choice: the ladder's starting rating and wide starting RD, for
    pairing only (RULES.md, Club night)."""
    state = clubnight.guest_state(ladder)
    assert state == PlayerState(ladder.initial_rating, ladder.initial_rd, ladder.initial_volatility)
    assert state.rd == ladder.initial_rd and state.last_played is None


def test_guests_play_in_rounds_beside_members(ladder, alice, bob, charlie) -> None:
    sam = clubnight.add_guest(ladder, alice, "Sam Visitor")
    night, rnd = clubnight.add_round(ladder, alice, [alice, bob, charlie], guest_ids=[sam.id])
    everyone = {p for m in rnd.matches for p in m.players} | set(rnd.byes)
    assert everyone == {"alice", "bob", "charlie", sam.id}
    assert len(rnd.matches) == 2
    assert night.present == ["alice", "bob", "charlie", sam.id]
    # Round two: the guest plays again, and both rounds are kept with the night.
    night, second = clubnight.add_round(ladder, alice, [alice, bob, charlie], guest_ids=[sam.id])
    assert sam.id in {p for m in second.matches for p in m.players}
    assert len(night.rounds) == 2 and night.guests == [{"id": sam.id, "name": "Sam Visitor"}]


def test_an_unknown_guest_id_is_refused(ladder, alice, bob, charlie) -> None:
    with pytest.raises(ClubNightError, match="not on tonight's list"):
        clubnight.add_round(ladder, alice, [alice, bob, charlie], guest_ids=["guest:9"])
    assert not ClubNight.objects.filter(ladder=ladder).exclude(rounds=[]).exists()


# ---- guests never reach the ratings -------------------------------------------------------------


def test_a_guests_games_change_no_rating_and_appear_nowhere_but_the_night(
    client, ladder, alice, bob, charlie, django_capture_on_commit_callbacks
) -> None:
    # A rated match first, so that there are rating rows and a leaderboard to keep.
    with django_capture_on_commit_callbacks(execute=True):
        match = reported_match(ladder, alice, [alice], [bob])
        confirm_match(match, bob)
    rows = rating_rows(ladder)
    assert [r[0] for r in rows] == ["alice", "bob"]
    api = APIClient()
    api.force_authenticate(charlie)
    board = api.get(f"/api/v1/ladders/{ladder.slug}/leaderboard/").json()
    matches_before = set(Match.objects.values_list("pk", flat=True))

    sam = clubnight.add_guest(ladder, alice, "Sam Visitor")
    tess = clubnight.add_guest(ladder, alice, "Tess Trial")
    _, rnd = clubnight.add_round(ladder, alice, [alice, bob], guest_ids=[sam.id, tess.id])
    with django_capture_on_commit_callbacks(execute=True):
        outcomes = clubnight.enter_scores(
            ladder, alice, 1, {n: [(21, 10), (21, 12)] for n in range(1, len(rnd.matches) + 1)}
        )
    guest_courts = [
        n for n, m in enumerate(rnd.matches, 1) if any(clubnight.is_guest(p) for p in m.players)
    ]
    assert guest_courts and all(outcomes[n].status == clubnight.KEPT for n in guest_courts)
    # No match, no match player, no rating row for a guest; every rating as it was, even
    # after the ladder is rated again from scratch.
    new = Match.objects.exclude(pk__in=matches_before)
    assert not new.filter(players__user__username__startswith="guest").exists()
    assert new.count() == len(rnd.matches) - len(guest_courts)
    assert not MatchPlayer.objects.exclude(user__in=[alice, bob, charlie]).exists()
    assert User.objects.filter(username__startswith="guest").count() == 0
    assert rating_rows(ladder) == rows
    recompute_ladder(ladder.pk)
    assert rating_rows(ladder) == rows
    cache.clear()
    assert api.get(f"/api/v1/ladders/{ladder.slug}/leaderboard/").json() == board
    client.force_login(charlie)
    for page in (
        f"/ladders/{ladder.slug}/",
        f"/players/alice/?ladder={ladder.slug}",
        f"/ladders/{ladder.slug}/head-to-head/?a=alice&b=bob",
    ):
        response = client.get(page)
        assert response.status_code == 200, page
        text = unescape(response.content.decode())
        assert "Alice Archer" in text, page
        assert "Sam Visitor" not in text and "Tess Trial" not in text, page
    # The night keeps them: the club night page shows the guests' games and scores.
    night_page = unescape(client.get(url(ladder)).content.decode())
    assert "Sam Visitor" in night_page and "Tess Trial" in night_page
    assert "with a guest: kept for tonight, not rated" in night_page


# ---- the page ----------------------------------------------------------------------------------


def test_the_page_adds_a_guest_and_marks_them(client, ladder, alice, bob, charlie) -> None:
    client.force_login(alice)
    added = client.post(
        add_guest_url(ladder),
        {"guest_name": "<b>Sam</b> Visitor", "present": ["bob"]},
        **HX,
    )
    assert added.status_code == 200
    assert added["HX-Retarget"] == "#present-list"
    html = added.content.decode()
    assert "&lt;b&gt;Sam&lt;/b&gt; Visitor" in html and "<b>Sam</b>" not in html  # escaped
    assert 'value="guest:1" checked' in html and 'value="bob" checked' in html  # ticks kept
    assert '<span class="tag guest"' in html
    # A round with the guest, proposed from the page; the guest is marked there too.
    proposed = client.post(
        propose_url(ladder), {"present": ["alice", "bob", "charlie", "guest:1"]}, **HX
    )
    assert proposed.status_code == 200
    rounds = proposed.content.decode()
    assert "&lt;b&gt;Sam&lt;/b&gt; Visitor" in rounds and 'class="tag guest"' in rounds
    assert "With a guest: not rated for anyone" in rounds


def test_the_page_refuses_a_members_name_for_a_guest(client, ladder, alice, bob) -> None:
    client.force_login(alice)
    refused = client.post(add_guest_url(ladder), {"guest_name": "Bob Baker"}, **HX)
    assert refused.status_code == 400
    assert "reads like the name of someone with an account here" in unescape(
        refused.content.decode()
    )
    assert 'value="Bob Baker"' in refused.content.decode()  # kept for correction
    assert not ClubNight.objects.filter(ladder=ladder).exclude(guests=[]).exists()


def test_without_javascript_adding_a_guest_returns_the_page(client, ladder, alice) -> None:
    client.force_login(alice)
    page = client.post(add_guest_url(ladder), {"guest_name": "Sam Visitor"})
    assert page.status_code == 200
    assert "Sam Visitor" in page.content.decode() and "Propose a round" in page.content.decode()


def test_outsiders_see_no_guest_and_cannot_add_one(client, ladder, alice, outsider) -> None:
    clubnight.add_guest(ladder, alice, "Sam Visitor")
    client.force_login(outsider)
    assert client.get(url(ladder)).status_code == 403
    refused = client.post(add_guest_url(ladder), {"guest_name": "Zed Zero"})
    assert refused.status_code == 403 and b"Sam Visitor" not in refused.content
    assert [g["name"] for g in ClubNight.objects.get(ladder=ladder).guests] == ["Sam Visitor"]
    client.logout()
    assert client.get(url(ladder)).status_code == 302  # to the login page


def test_a_moderator_may_add_a_guest(client, ladder, mod) -> None:
    client.force_login(mod)
    assert client.post(add_guest_url(ladder), {"guest_name": "Sam V"}).status_code == 200
    assert ClubNight.objects.get(ladder=ladder).guests == [{"id": "guest:1", "name": "Sam V"}]


def test_a_guest_name_that_is_a_new_members_later_name_is_still_theirs(ladder, alice) -> None:
    """Guests are tonight's: a later account may take the name (the guest stays as typed)."""
    clubnight.add_guest(ladder, alice, "Sam Visitor")
    UserFactory(username="sam", display_name="Sam Visitor")
    assert ClubNight.objects.get(ladder=ladder).guests[0]["name"] == "Sam Visitor"


# ---- the API: the same names rule, guests paired as newcomers ------------------------------------


def test_the_api_pairs_guests_by_name(ladder, alice, bob, charlie) -> None:
    api = APIClient()
    api.force_authenticate(alice)
    body = {"present": ["alice", "bob", "charlie"], "guests": ["Sam Visitor"]}
    answer = api.post(f"/api/v1/ladders/{ladder.slug}/club-night/", body, format="json")
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data["guests"] == [{"id": "guest:1", "name": "Sam Visitor"}]
    assert "guest:1" in {p for m in data["matches"] for p in m["side_a"] + m["side_b"]}
    assert [p["username"] for p in data["players"]] == ["alice", "bob", "charlie"]
    assert not ClubNight.objects.exists()  # stateless, as before


@pytest.mark.parametrize(
    ("guests", "message"),
    [
        (["Bob Baker"], "reads like the name of someone with an account here"),
        (["Sam", "sam"], "There is already a guest called"),
        (["Sam\u200bV"], "plain text"),
    ],
)
def test_the_api_refuses_bad_guest_names(ladder, alice, bob, charlie, guests, message) -> None:
    api = APIClient()
    api.force_authenticate(alice)
    body = {"present": ["alice", "bob", "charlie"], "guests": guests}
    answer = api.post(f"/api/v1/ladders/{ladder.slug}/club-night/", body, format="json")
    assert answer.status_code == 400
    assert message in " ".join(str(m) for m in answer.json().get("guests", [answer.json()]))
