"""Club night's guests after the fact: an organiser removes a guest added by mistake (one
with no game on the night's record; one with a game stays, and is unticked instead), and
corrects a guest game's score (unrated: only the night's record changes). Bad input says
why and changes nothing."""

from __future__ import annotations

from html import unescape

import pytest
from django.core.cache import cache
from django.utils import timezone

from accounts.models import User
from ladder.clubnight import services as clubnight
from ladder.clubnight.matchmaking import ClubNightError, ClubNightPermissionError
from ladder.clubnight.models import ClubNight
from ladder.clubs.models import Ladder
from ladder.matches.models import Match
from ratings.models import PlayerRating
from tests.factories import MembershipFactory, UserFactory

HX = {"HTTP_HX_REQUEST": "true"}

COURTS = [
    {"side_a": ["bob"], "side_b": ["charlie"]},  # members
    {"side_a": ["erin"], "side_b": ["guest:1"]},  # Sam: their score is entered below
    {"side_a": ["alice"], "side_b": ["guest:2"]},  # Tess: proposed, no score yet
]


@pytest.fixture(autouse=True)
def _no_throttle_history() -> None:
    cache.clear()


@pytest.fixture
def night(ladder: Ladder, alice: User, bob: User, charlie: User) -> ClubNight:
    """Tonight on the singles ladder, run by alice: three guests (Sam, Tess, Uma), one round
    in which Sam's game was entered by alice (21-5 21-6), Tess's not yet, and Uma sat out."""
    MembershipFactory(ladder=ladder, user=UserFactory(username="erin", display_name="Erin E"))
    ClubNight.objects.create(
        ladder=ladder,
        date=timezone.localdate(),
        created_by=alice,
        present=["alice", "bob", "charlie", "erin", "guest:1", "guest:2", "guest:3"],
        guests=[
            {"id": "guest:1", "name": "Sam Visitor"},
            {"id": "guest:2", "name": "Tess Trial"},
            {"id": "guest:3", "name": "Uma Unseen"},
        ],
        rounds=[
            {
                "matches": [{**m, "quality": 0.5, "win_probability": 0.5} for m in COURTS],
                "byes": ["guest:3"],
                "floor": 0.4,
            }
        ],
    )
    outcome = clubnight.enter_scores(ladder, alice, 1, {2: [(21, 5), (21, 6)]})
    assert outcome[2].status == clubnight.KEPT
    return ClubNight.objects.get(ladder=ladder)


def stored(ladder: Ladder) -> dict:
    return ClubNight.objects.values("guests", "present", "rounds").get(ladder=ladder)


def court_result(ladder: Ladder, court: int) -> dict | None:
    return ClubNight.objects.get(ladder=ladder).rounds[0]["matches"][court - 1].get("result")


def club_night_url(ladder: Ladder) -> str:
    return f"/ladders/{ladder.slug}/club-night/"


def remove_guest_url(ladder: Ladder) -> str:
    return f"/ladders/{ladder.slug}/club-night/guests/remove/"


def correct_url(ladder: Ladder, number: int = 1, court: int = 2) -> str:
    return f"/ladders/{ladder.slug}/club-night/rounds/{number}/courts/{court}/correct/"


# ---- removing a guest: the service --------------------------------------------------------------


def test_a_guest_with_no_game_is_removed_and_their_id_never_reused(ladder, night, alice) -> None:
    clubnight.remove_guest(ladder, alice, "guest:3")
    after = ClubNight.objects.get(ladder=ladder)
    assert "guest:3" not in after.present
    assert list(clubnight.guests_of(after)) == ["guest:1", "guest:2"]
    # The round Uma sat out in still names her.
    assert clubnight.guests_of(after, removed=True)["guest:3"].name == "Uma Unseen"
    assert after.rounds == night.rounds
    # Added again (her name is free once she is removed), she is a new guest.
    again = clubnight.add_guest(ladder, alice, "Uma Unseen")
    assert again.id == "guest:4"
    assert list(clubnight.guests_of(ClubNight.objects.get(ladder=ladder))) == [
        "guest:1",
        "guest:2",
        "guest:4",
    ]


def test_a_guest_with_a_game_on_the_record_is_not_removed(ladder, night, alice) -> None:
    before = stored(ladder)
    with pytest.raises(ClubNightError) as refused:
        clubnight.remove_guest(ladder, alice, "guest:1")
    assert str(refused.value) == (
        "Sam Visitor has a game on tonight's record (round 1, court 2: 21-5 21-6), which "
        "stays: untick them to leave them out of the next rounds."
    )
    assert stored(ladder) == before


def test_a_removed_guests_court_is_not_played(ladder, night, alice, bob, charlie) -> None:
    """Tess was removed before her court was played: it takes no score, and no round has her."""
    clubnight.remove_guest(ladder, alice, "guest:2")
    refused = clubnight.enter_scores(ladder, alice, 1, {3: [(21, 3), (21, 4)]})[3]
    assert refused.status == clubnight.REFUSED
    assert refused.message == (
        "Court 3 was not played: Tess Trial was removed from tonight's guests."
    )
    assert court_result(ladder, 3) is None
    with pytest.raises(ClubNightError, match="That guest is not on tonight's list"):
        clubnight.add_round(ladder, alice, [alice, bob, charlie], guest_ids=["guest:2"])


@pytest.mark.parametrize(
    ("guest_id", "message"),
    [
        ("guest:9", "That guest is not on tonight's list."),
        ("bob", "That guest is not on tonight's list."),
        ("", "That guest is not on tonight's list."),
    ],
)
def test_removing_no_such_guest_is_refused(ladder, night, alice, guest_id, message) -> None:
    before = stored(ladder)
    with pytest.raises(ClubNightError, match=message):
        clubnight.remove_guest(ladder, alice, guest_id)
    assert stored(ladder) == before


def test_removing_twice_is_refused_the_second_time(ladder, night, alice) -> None:
    clubnight.remove_guest(ladder, alice, "guest:3")
    before = stored(ladder)
    with pytest.raises(ClubNightError, match="That guest is not on tonight's list."):
        clubnight.remove_guest(ladder, alice, "guest:3")
    assert stored(ladder) == before


def test_only_who_may_run_the_night_removes_a_guest(ladder, night, outsider, mod) -> None:
    before = stored(ladder)
    with pytest.raises(ClubNightPermissionError):
        clubnight.remove_guest(ladder, outsider, "guest:3")
    assert stored(ladder) == before
    clubnight.remove_guest(ladder, mod, "guest:3")
    assert "guest:3" not in clubnight.guests_of(ClubNight.objects.get(ladder=ladder))


# ---- removing a guest: the page ------------------------------------------------------------------


def test_the_page_removes_a_guest_and_keeps_the_ticks(client, ladder, night, alice) -> None:
    client.force_login(alice)
    page = unescape(client.get(club_night_url(ladder)).content.decode())
    assert 'name="remove_guest" value="guest:3"' in page
    assert 'aria-label="Remove the guest Uma Unseen"' in page
    answer = client.post(
        remove_guest_url(ladder),
        {"remove_guest": "guest:3", "present": ["bob", "charlie", "guest:1", "guest:3"]},
        **HX,
    )
    assert answer.status_code == 200
    assert answer["HX-Retarget"] == "#present-list"
    html = unescape(answer.content.decode())
    assert 'value="guest:3"' not in html, html
    assert html.count("Uma Unseen") == 1  # in "Uma Unseen was removed." only
    assert 'value="bob" checked' in html and 'value="guest:1" checked' in html
    assert "Uma Unseen was removed." in html
    assert "guest:3" not in ClubNight.objects.get(ladder=ladder).present
    # The round she sat out in still names her, marked.
    rounds = unescape(client.get(club_night_url(ladder)).content.decode())
    assert "<strong>Sitting out:</strong> Uma Unseen" in rounds


def test_the_page_refuses_to_remove_a_guest_with_a_game(client, ladder, night, alice) -> None:
    client.force_login(alice)
    before = stored(ladder)
    answer = client.post(remove_guest_url(ladder), {"remove_guest": "guest:1"}, **HX)
    assert answer.status_code == 400
    html = unescape(answer.content.decode())
    assert "Sam Visitor has a game on tonight's record (round 1, court 2: 21-5 21-6)" in html
    assert 'role="alert"' in html and 'value="guest:1"' in html
    assert stored(ladder) == before


def test_without_javascript_removing_a_guest_returns_the_page(client, ladder, night, alice) -> None:
    client.force_login(alice)
    answer = client.post(remove_guest_url(ladder), {"remove_guest": "guest:3"})
    assert answer.status_code == 200
    assert "Uma Unseen was removed." in unescape(answer.content.decode())


def test_an_outsider_cannot_remove_a_guest(client, ladder, night, outsider) -> None:
    client.force_login(outsider)
    before = stored(ladder)
    assert client.post(remove_guest_url(ladder), {"remove_guest": "guest:3"}).status_code == 403
    assert stored(ladder) == before


def test_a_removed_guests_court_shows_it_was_not_played(client, ladder, night, alice) -> None:
    clubnight.remove_guest(ladder, alice, "guest:2")
    client.force_login(alice)
    rounds = unescape(client.get(club_night_url(ladder)).content.decode())
    assert "Not played: Tess Trial was removed from tonight's guests." in rounds
    scores = unescape(
        client.get(f"/ladders/{ladder.slug}/club-night/rounds/1/scores/").content.decode()
    )
    assert "Not played: Tess Trial was removed from tonight's guests." in scores
    assert 'name="c3-a"' not in scores


# ---- correcting a guest game's score: the service ------------------------------------------------


def test_whoever_entered_a_guest_game_corrects_its_score(ladder, night, alice) -> None:
    before = list(Match.objects.values_list("pk", flat=True))
    clubnight.correct_guest_score(ladder, alice, 1, 2, [(21, 19), (19, 21), (21, 17)])
    assert court_result(ladder, 2) == {
        "games": [[21, 19], [19, 21], [21, 17]],
        "match": None,
        "by": "alice",
        "corrected_by": "alice",
    }
    # Unrated: no match, no rating.
    assert list(Match.objects.values_list("pk", flat=True)) == before
    assert not PlayerRating.objects.exists()


def test_a_moderator_corrects_a_guest_games_score(ladder, night, mod) -> None:
    clubnight.correct_guest_score(ladder, mod, 1, 2, [(21, 10), (21, 11)])
    result = court_result(ladder, 2)
    assert result is not None
    assert (result["games"], result["by"], result["corrected_by"]) == (
        [[21, 10], [21, 11]],
        "alice",
        "mod",
    )


@pytest.mark.parametrize(
    ("number", "court", "games", "message"),
    [
        (1, 2, [(21, 25), (21, 12)], "Game 1: 21-25 is not a valid badminton game"),
        (1, 2, [(21, 15)], "The match is not finished"),
        (1, 2, [], "A match needs at least one game"),
        (1, 1, [(21, 3), (21, 4)], "Court 1 is a match between members: its reporter edits it"),
        (1, 3, [(21, 3), (21, 4)], "Court 3 has no score to correct yet"),
        (1, 4, [(21, 3), (21, 4)], "Round 1 has no court 4."),
        (2, 1, [(21, 3), (21, 4)], "There is no round 2 tonight."),
    ],
)
def test_a_bad_correction_is_refused_and_changes_nothing(
    ladder, night, alice, number, court, games, message
) -> None:
    before = stored(ladder)
    with pytest.raises(ClubNightError, match=message):
        clubnight.correct_guest_score(ladder, alice, number, court, games)
    assert stored(ladder) == before


def test_only_who_entered_it_or_a_moderator_corrects_a_score(ladder, night, bob, outsider) -> None:
    before = stored(ladder)
    with pytest.raises(ClubNightPermissionError) as refused:
        clubnight.correct_guest_score(ladder, bob, 1, 2, [(21, 1), (21, 2)])
    assert str(refused.value) == (
        "Only whoever entered court 2's score, or a moderator, can correct it."
    )
    with pytest.raises(ClubNightPermissionError, match="Only members of Club Singles"):
        clubnight.correct_guest_score(ladder, outsider, 1, 2, [(21, 1), (21, 2)])
    assert stored(ladder) == before


# ---- correcting a guest game's score: the page ---------------------------------------------------


def test_the_correction_page_shows_the_score_and_saves_a_new_one(
    client, ladder, night, alice
) -> None:
    client.force_login(alice)
    scores = unescape(
        client.get(f"/ladders/{ladder.slug}/club-night/rounds/1/scores/").content.decode()
    )
    assert f'href="{correct_url(ladder)}"' in scores
    rounds = unescape(client.get(club_night_url(ladder)).content.decode())
    assert f'href="{correct_url(ladder)}"' in rounds
    form = unescape(client.get(correct_url(ladder)).content.decode())
    assert 'name="c2-a" value="21"' in form and 'name="c2-b" value="5"' in form
    assert 'name="c2-b" value="6"' in form
    saved = client.post(correct_url(ladder), {"c2-a": ["21", "21"], "c2-b": ["18", "19"]})
    assert saved.status_code == 302 and saved["Location"].endswith("/club-night/#rounds")
    assert court_result(ladder, 2)["games"] == [[21, 18], [21, 19]]
    page = unescape(client.get(saved["Location"]).content.decode())
    assert "Round 1, court 2 corrected: 21-18 21-19 (was 21-5 21-6); not rated." in page
    assert "21-18 21-19" in page


def test_the_correction_page_refuses_bad_input_and_keeps_it(client, ladder, night, alice) -> None:
    client.force_login(alice)
    before = stored(ladder)
    answer = client.post(correct_url(ladder), {"c2-a": ["21", "x"], "c2-b": ["15", "3"]})
    assert answer.status_code == 400
    html = unescape(answer.content.decode())
    assert "Game 2: points are whole numbers, like 21-15." in html
    assert 'name="c2-a" value="x"' in html  # kept for correction
    answer = client.post(correct_url(ladder), {"c2-a": ["21"], "c2-b": ["15"]})
    assert answer.status_code == 400
    assert "The match is not finished" in unescape(answer.content.decode())
    assert stored(ladder) == before


def test_who_may_use_the_correction_page(client, ladder, night, bob, outsider) -> None:
    before = stored(ladder)
    assert client.get(correct_url(ladder)).status_code == 302  # to log in
    client.force_login(bob)  # a member, but not who entered it
    assert client.get(correct_url(ladder)).status_code == 403
    assert (
        client.post(correct_url(ladder), {"c2-a": ["21", "21"], "c2-b": ["1", "2"]}).status_code
        == 403
    )
    scores = unescape(
        client.get(f"/ladders/{ladder.slug}/club-night/rounds/1/scores/").content.decode()
    )
    assert correct_url(ladder) not in scores  # no link for who may not
    client.force_login(outsider)
    assert client.get(correct_url(ladder)).status_code == 403
    assert client.get(correct_url(ladder, court=1)).status_code == 403
    assert stored(ladder) == before
    client.force_login(bob)
    assert client.get(correct_url(ladder, court=9)).status_code == 404
    assert client.get(correct_url(ladder, number=5)).status_code == 404
    assert client.put(correct_url(ladder)).status_code == 405
