"""The club night page, its API and the service behind them (ladder/clubnight/services.py, the search in matchmaking.py)."""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from html import unescape
from itertools import combinations
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from ladder.clubnight import services as clubnight
from ladder.clubnight.matchmaking import QUALITY_FLOOR, ClubNightError, ClubNightPermissionError
from ladder.clubnight.models import ClubNight
from ladder.clubs.models import Ladder
from ladder.matches.models import Match
from ratings.models import PlayerRating, Season
from tests.factories import LadderFactory, MembershipFactory, UserFactory, reported_match

HX = {"HTTP_HX_REQUEST": "true"}
NAMES = ["erin", "frank", "grace", "heidi", "ivan"]


@pytest.fixture(autouse=True)
def _no_throttle_history() -> None:
    cache.clear()


@pytest.fixture
def hall(doubles: Ladder, alice: User, bob: User, charlie: User, dave: User) -> list[User]:
    """Nine members of the doubles ladder: the cast's four and five more."""
    more = []
    for name in NAMES:
        user = UserFactory(username=name, display_name=name.capitalize())
        MembershipFactory(ladder=doubles, user=user)
        more.append(user)
    return [alice, bob, charlie, dave, *more]


def url(ladder: Ladder) -> str:
    return f"/ladders/{ladder.slug}/club-night/"


def propose_url(ladder: Ladder) -> str:
    return f"/ladders/{ladder.slug}/club-night/rounds/propose/"


def start_over_url(ladder: Ladder) -> str:
    return f"/ladders/{ladder.slug}/club-night/rounds/start-over/"


def api_url(ladder: Ladder) -> str:
    return f"/api/v1/ladders/{ladder.slug}/club-night/"


def partnerships(rounds: list[dict]) -> Counter:
    return Counter(
        frozenset(pair)
        for r in rounds
        for m in r["matches"]
        for side in (m["side_a"], m["side_b"])
        for pair in combinations(side, 2)
    )


def placed(rnd: dict) -> list[str]:
    return [u for m in rnd["matches"] for u in (*m["side_a"], *m["side_b"])] + rnd["byes"]


# ---- the page: who may use it -----------------------------------------------------------------


def test_visitors_are_sent_to_log_in(client, doubles):
    response = client.get(url(doubles))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_a_non_member_is_refused(client, doubles, outsider):
    client.force_login(outsider)
    response = client.get(url(doubles))
    assert response.status_code == 403
    assert "Only members of Club Doubles and moderators" in response.content.decode()
    assert client.post(propose_url(doubles), {"present": ["alice"]}).status_code == 403
    assert not ClubNight.objects.exists()


def test_a_private_ladder_is_not_found_for_outsiders(client, private_ladder, outsider):
    client.force_login(outsider)
    assert client.get(url(private_ladder)).status_code == 404
    assert client.get("/ladders/nope/club-night/").status_code == 404


def test_a_member_sees_everyone_to_tick(client, hall, doubles, alice):
    client.force_login(alice)
    response = client.get(url(doubles))
    assert response.status_code == 200
    html = response.content.decode()
    for user in hall:
        assert f'value="{user.username}"' in html
    assert "Propose a round" in html
    assert 'id="present-search"' in html


def test_a_moderator_who_does_not_play_may_run_it(client, hall, doubles, mod):
    client.force_login(mod)
    assert client.get(url(doubles)).status_code == 200
    response = client.post(propose_url(doubles), {"present": [u.username for u in hall[:4]]})
    assert response.status_code == 302
    night = ClubNight.objects.get()
    assert night.created_by == mod
    # The moderator plays in no match: no report links for them.
    assert "Report this match" not in client.get(url(doubles)).content.decode()


@pytest.mark.parametrize("season_start_periods", [0, 4])
def test_the_page_takes_the_same_queries_however_many_members(
    client, doubles, alice, season_start_periods
):
    """A ladder that raises RDs at a season's start reads its seasons once for the page, not
    once per member shown."""
    if season_start_periods:
        doubles.season_start_periods = season_start_periods
        doubles.save()
        Season.objects.create(
            ladder=doubles,
            name="Now",
            slug="now",
            starts_on=date(2026, 1, 1),
            ends_on=date(2026, 12, 31),
        )
    client.force_login(alice)
    client.post(propose_url(doubles), {"present": ["alice", "bob", "charlie", "dave"]})
    with CaptureQueriesContext(connection) as few:
        assert client.get(url(doubles)).status_code == 200
    for name in NAMES:
        MembershipFactory(ladder=doubles, user=UserFactory(username=name))
    client.post(propose_url(doubles), {"present": ["alice", "bob", "charlie", "dave", *NAMES]})
    with CaptureQueriesContext(connection) as many:
        assert client.get(url(doubles)).status_code == 200
    assert len(many) == len(few)


def test_wrong_method_is_refused(client, doubles, alice):
    client.force_login(alice)
    assert client.put(url(doubles)).status_code == 405


def test_the_ladder_page_links_to_it(client, doubles, alice):
    client.force_login(alice)
    assert url(doubles) in client.get(f"/ladders/{doubles.slug}/").content.decode()


# ---- the page: rounds -------------------------------------------------------------------------


def test_nine_ticked_make_two_matches_and_a_bye(client, hall, doubles, alice):
    client.force_login(alice)
    response = client.post(propose_url(doubles), {"present": [u.username for u in hall]})
    assert response.status_code == 302
    assert response["Location"] == url(doubles) + "#rounds"
    night = ClubNight.objects.get(ladder=doubles, date=timezone.localdate())
    assert night.present == sorted(u.username for u in hall)
    (rnd,) = night.rounds
    assert len(rnd["matches"]) == 2 and len(rnd["byes"]) == 1
    assert sorted(placed(rnd)) == sorted(u.username for u in hall)
    html = client.get(url(doubles)).content.decode()
    assert "Round 1" in html and "Next round" in html and "Sitting out" in html
    # Ticked stays ticked after a reload.
    assert html.count("checked") >= len(hall)


def test_next_round_avoids_the_previous_ones(client, hall, doubles, alice):
    client.force_login(alice)
    present = [u.username for u in hall[:8]]
    for _ in range(3):
        assert client.post(propose_url(doubles), {"present": present}).status_code == 302
    rounds = ClubNight.objects.get().rounds
    assert len(rounds) == 3
    # Eight players, three rounds: twelve partnerships, none repeated.
    assert max(partnerships(rounds).values()) == 1


def test_byes_rotate_over_the_night(client, hall, doubles, alice):
    client.force_login(alice)
    present = [u.username for u in hall]
    for _ in range(3):
        client.post(propose_url(doubles), {"present": present})
    byes = [b for r in ClubNight.objects.get().rounds for b in r["byes"]]
    assert len(byes) == len(set(byes)) == 3


def test_htmx_gets_the_rounds_fragment(client, hall, doubles, alice):
    client.force_login(alice)
    response = client.post(propose_url(doubles), {"present": [u.username for u in hall]}, **HX)
    assert response.status_code == 200
    assert [t.name for t in response.templates][0] == "clubnight/club_night_rounds.html"
    html = response.content.decode()
    assert 'id="rounds"' in html and "Round 1" in html and "<html" not in html


def test_report_links_fill_in_the_viewers_match(client, hall, doubles, alice):
    client.force_login(alice)
    client.post(propose_url(doubles), {"present": [u.username for u in hall[:4]]})
    html = client.get(url(doubles)).content.decode()
    (href,) = [
        part.split('"')[0].replace("&amp;", "&")
        for part in html.split('href="')[1:]
        if part.startswith(f"/ladders/{doubles.slug}/report/?")
    ]
    query = parse_qs(urlsplit(href).query)
    side_a, side_b = query["side_a"][0].split(","), query["side_b"][0].split(",")
    assert side_a[0] == "alice"  # the reporter is always on side A of the report form
    assert sorted(side_a + side_b) == ["alice", "bob", "charlie", "dave"]
    assert query["played_on"] == [timezone.localdate().isoformat()]


def test_start_over_forgets_tonights_rounds(client, hall, doubles, alice):
    client.force_login(alice)
    client.post(propose_url(doubles), {"present": [u.username for u in hall]})
    response = client.post(start_over_url(doubles), {}, **HX)
    assert response.status_code == 200
    night = ClubNight.objects.get()
    assert night.rounds == [] and len(night.present) == 9
    assert "Propose a round" in response.content.decode()


START_OVER_REFUSED = (
    "Only a moderator or the member who started tonight's club night can start it over"
)


def test_another_member_may_not_start_over(client, hall, doubles, alice, bob):
    client.force_login(alice)
    client.post(propose_url(doubles), {"present": [u.username for u in hall]})
    client.post(propose_url(doubles), {"present": [u.username for u in hall]})
    before = ClubNight.objects.values("present", "rounds", "created_by").get()
    assert len(before["rounds"]) == 2
    client.force_login(bob)
    page = client.get(url(doubles)).content.decode()
    assert start_over_url(doubles) not in page  # no button for what would be refused
    assert "Only a moderator or whoever started the evening (its first round or guest)" in page
    for headers in ({}, HX):
        response = client.post(start_over_url(doubles), {}, **headers)
        assert response.status_code == 403
        assert START_OVER_REFUSED in unescape(response.content.decode())
        assert ClubNight.objects.values("present", "rounds", "created_by").get() == before
    # Bob may still propose the next round; Alice stays the one who started the evening.
    assert (
        client.post(propose_url(doubles), {"present": [u.username for u in hall]}).status_code
        == 302
    )
    assert ClubNight.objects.get().created_by == alice


def test_a_moderator_may_start_over_anyones_evening(client, hall, doubles, alice, mod):
    client.force_login(alice)
    client.post(propose_url(doubles), {"present": [u.username for u in hall]})
    client.force_login(mod)
    assert start_over_url(doubles) in client.get(url(doubles)).content.decode()
    response = client.post(start_over_url(doubles), {})
    assert response.status_code == 302
    assert ClubNight.objects.get().rounds == []


def test_start_over_without_a_round_is_refused(client, hall, doubles, alice):
    client.force_login(alice)
    response = client.post(start_over_url(doubles), {})
    assert response.status_code == 400
    assert "There is no round tonight to start over from." in response.content.decode()
    assert not ClubNight.objects.exists()


def test_start_over_service_checks_who_asks(hall, doubles, alice, bob, outsider):
    night, _ = clubnight.add_round(doubles, alice, hall)
    for who in (bob, outsider):
        with pytest.raises(ClubNightPermissionError, match="Only a moderator"):
            clubnight.start_over(doubles, who)
    night.refresh_from_db()
    assert len(night.rounds) == 1
    assert not clubnight.may_start_over(night, bob)
    assert clubnight.may_start_over(night, alice)
    clubnight.start_over(doubles, alice)
    night.refresh_from_db()
    assert night.rounds == [] and len(night.present) == 9


def test_long_names_are_never_cut_silently(client, hall, doubles, alice):
    long = "Maximiliana Konstantinopoulou-Vanderbergh de la Fuente-Ortiz"  # 60 characters
    alice.display_name = long
    alice.save(update_fields=["display_name"])
    client.force_login(alice)
    # Nobody sits out.
    client.post(propose_url(doubles), {"present": [u.username for u in hall[:8]]})
    page = unescape(client.get(url(doubles)).content.decode())
    # A narrow screen may shorten the name with "…"; the whole name stays in the title.
    assert f'<span class="who" title="{long}">{long}</span>' in page  # the list of members
    assert f'<div class="player" title="{long} 4.50 ± 0.25">' in page  # the proposed match


def test_the_page_states_the_floor_and_marks_a_match_below_it(client, hall, doubles, alice):
    ClubNight.objects.create(
        ladder=doubles,
        date=timezone.localdate(),
        created_by=alice,
        present=["alice", "bob", "charlie", "dave"],
        rounds=[
            {
                "matches": [
                    {
                        "side_a": ["alice", "bob"],
                        "side_b": ["charlie", "dave"],
                        "quality": 0.12,
                        "win_probability": 0.9,
                    }
                ],
                "byes": [],
                "floor": 0.4,
            }
        ],
    )
    client.force_login(alice)
    page = client.get(url(doubles)).content.decode()
    assert "Every match has a quality of at least 0.40 when the players present allow it" in page
    assert "Below 0.40: the closest match the players present allow" in page


def test_everyone_from_the_last_club_night(client, hall, doubles, alice):
    ClubNight.objects.create(
        ladder=doubles,
        date=timezone.localdate() - timedelta(days=7),
        present=["bob", "erin"],
        rounds=[],
    )
    client.force_login(alice)
    page = client.get(url(doubles)).content.decode()
    assert "Everyone from the last club night" in page
    assert "checked" not in page
    response = client.get(url(doubles), {"from": "last"}, **HX)
    assert [t.name for t in response.templates][0] == "clubnight/club_night_players.html"
    html = response.content.decode()
    assert html.count(" checked") == 2
    assert 'value="bob" checked' in html and 'value="erin" checked' in html
    # Without JavaScript, the same link gives the whole page with them ticked.
    assert 'value="bob" checked' in client.get(url(doubles), {"from": "last"}).content.decode()


@pytest.mark.parametrize(
    ("present", "message"),
    [
        (["alice", "bob", "charlie"], "A doubles match needs 4 players; 3 are present."),
        (["alice", "bob", "charlie", "zed"], "No member of Club Doubles is called zed."),
        (["alice", "bob", "charlie", "outsider"], "No member of Club Doubles is called outsider."),
        ([], "A doubles match needs 4 players; 0 are present."),
    ],
)
def test_bad_input_changes_nothing(client, hall, doubles, alice, outsider, present, message):
    client.force_login(alice)
    response = client.post(propose_url(doubles), {"present": present})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not ClubNight.objects.exists()
    # With HTMX: the message in the rounds panel, still nothing stored.
    response = client.post(propose_url(doubles), {"present": present}, **HX)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not ClubNight.objects.exists()


def test_a_bad_next_round_keeps_the_first(client, hall, doubles, alice):
    client.force_login(alice)
    client.post(propose_url(doubles), {"present": [u.username for u in hall]})
    before = ClubNight.objects.values("present", "rounds").get()
    assert client.post(propose_url(doubles), {"present": ["alice"]}).status_code == 400
    assert ClubNight.objects.values("present", "rounds").get() == before


# ---- the service ------------------------------------------------------------------------------


def test_stored_ratings_decide_the_pairs(ladder, alice, bob, charlie, dave):
    MembershipFactory(ladder=ladder, user=dave)
    for user, rating in ((alice, 3000), (bob, 3100), (charlie, 7000), (dave, 7100)):
        PlayerRating.objects.create(
            ladder=ladder, user=user, rating=rating, rd=60, volatility=0.06, matches=10
        )
    rnd = clubnight.propose_round(ladder, [alice, bob, charlie, dave])
    assert {frozenset(m.players) for m in rnd.matches} == {
        frozenset({"alice", "bob"}),
        frozenset({"charlie", "dave"}),
    }


def test_recent_matches_are_avoided_and_old_or_dead_ones_are_not(ladder, alice, bob, charlie):
    dave = UserFactory(username="dave")
    MembershipFactory(ladder=ladder, user=dave)
    for user in (alice, bob, charlie, dave):
        PlayerRating.objects.create(ladder=ladder, user=user, rating=4500, rd=80, volatility=0.06)
    players = [alice, bob, charlie, dave]
    recent = reported_match(ladder, alice, [alice], [bob])
    pairs = {frozenset(m.players) for m in clubnight.propose_round(ladder, players).matches}
    assert frozenset({"alice", "bob"}) not in pairs
    # Cancelled: it no longer counts.
    Match.objects.filter(pk=recent.pk).update(state="cancelled")
    assert clubnight.recent_pairings(ladder, players, timezone.localdate()).opponents == {}
    # Outside the lookback window: it no longer counts either.
    Ladder.objects.filter(pk=ladder.pk).update(lookback_days=5)
    ladder.refresh_from_db()
    reported_match(
        ladder, charlie, [charlie], [dave], played_on=timezone.localdate() - timedelta(days=10)
    )
    assert clubnight.recent_pairings(ladder, players, timezone.localdate()).opponents == {}
    counted = clubnight.recent_pairings(
        ladder, players, timezone.localdate() - timedelta(days=8)
    ).opponents
    assert counted == {frozenset({"charlie", "dave"}): 1}


def test_proposing_takes_a_fixed_number_of_queries(
    ladder, alice, bob, charlie, django_assert_num_queries
):
    players = [alice, bob, charlie]
    # Memberships, stored ratings, recent pairings.
    with django_assert_num_queries(3):
        clubnight.propose_round(ladder, players)


def test_non_members_are_named(ladder, alice, bob, outsider):
    with pytest.raises(ClubNightError, match="Olive Outsider is not a member"):
        clubnight.propose_round(ladder, [alice, bob, outsider])
    with pytest.raises(ClubNightError, match="alice is listed twice"):
        clubnight.propose_round(ladder, [alice, bob, alice])


# ---- the API ----------------------------------------------------------------------------------


def api(user: User | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def test_api_proposes_a_round(hall, doubles, alice):
    response = api(alice).post(
        api_url(doubles), {"present": [u.username for u in hall]}, format="json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["ladder"] == "doubles" and body["team_size"] == 2 and body["exact"] is True
    assert body["floor"] == QUALITY_FLOOR
    assert len(body["matches"]) == 2 and len(body["byes"]) == 1
    assert sorted(placed(body)) == sorted(u.username for u in hall)
    for m in body["matches"]:
        assert 0 < m["quality"] <= 1 and 0.5 <= m["win_probability"] < 1
        assert len(m["side_a"]) == len(m["side_b"]) == 2
    assert not ClubNight.objects.exists()  # the API stores nothing


def test_api_next_round_avoids_previous_rounds(hall, doubles, alice):
    client = api(alice)
    present = [u.username for u in hall[:8]]
    rounds: list[dict] = []
    for _ in range(3):
        response = client.post(
            api_url(doubles), {"present": present, "previous_rounds": rounds}, format="json"
        )
        assert response.status_code == 200
        rounds.append(response.json())
    assert max(partnerships(rounds).values()) == 1


def test_api_moderator_may_propose(hall, doubles, mod):
    response = api(mod).post(api_url(doubles), {"present": ["alice", "bob"]}, format="json")
    assert response.status_code == 400  # allowed in, but two players are not a doubles match
    assert response.json() == {"present": ["A doubles match needs 4 players; 2 are present."]}


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({"present": ["alice", "bob", "zed", "charlie"]}, "present", "called zed"),
        ({"present": ["alice", "bob", "outsider", "dave"]}, "present", "called outsider"),
        ({"present": ["alice", "bob", "alice", "dave"]}, "present", "alice is listed twice"),
        ({"present": ["alice", "bob", "charlie"]}, "present", "needs 4 players; 3 are present"),
        ({}, "present", "required"),
        ({"present": "alice"}, "present", "list"),
        ({"present": ["alice"] * 4, "previous_rounds": [{"matches": "x"}]}, "previous_rounds", ""),
    ],
)
def test_api_bad_input_is_400_and_changes_nothing(
    hall, doubles, alice, outsider, payload, field, message
):
    before = (ClubNight.objects.count(), Match.objects.count())
    response = api(alice).post(api_url(doubles), payload, format="json")
    assert response.status_code == 400
    errors = response.json()
    assert field in errors
    assert message in str(errors[field])
    assert (ClubNight.objects.count(), Match.objects.count()) == before


def test_api_permissions(hall, doubles, private_ladder, outsider):
    payload = {"present": ["alice", "bob", "charlie", "dave"]}
    assert api().post(api_url(doubles), payload, format="json").status_code == 401
    refused = api(outsider).post(api_url(doubles), payload, format="json")
    assert refused.status_code == 403
    assert "Only members of Club Doubles" in refused.json()["detail"]
    assert api(outsider).post(api_url(private_ladder), payload, format="json").status_code == 404
    missing = LadderFactory.build(slug="nope")
    assert api(outsider).post(api_url(missing), payload, format="json").status_code == 404


def test_api_wrong_method(doubles, alice):
    assert api(alice).get(api_url(doubles)).status_code == 405


def test_api_in_the_schema(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/v1/ladders/{slug}/club-night/"]["post"]
    assert operation["summary"] == "Propose a club night round"
    request = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    response = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    components = schema["components"]["schemas"]
    assert set(components[request.rsplit("/", 1)[1]]["properties"]) == {
        "present",
        "guests",
        "previous_rounds",
        "courts",
    }
    assert {"matches", "byes", "exact", "guests"} <= set(
        components[response.rsplit("/", 1)[1]]["properties"]
    )
    assert {"400", "401", "403", "404"} <= set(operation["responses"])


# ---- ranked status and ± in display units (RATINGS.md §8) --------------------------------------


@pytest.fixture
def standings(hall, doubles):  # type: ignore[no-untyped-def]
    """alice ranked, bob provisional (RD grown past 120 by three idle weeks), charlie
    inactive, the others not rated yet."""
    today = timezone.localdate()
    for user, rd, last in (
        (hall[0], 80.0, today - timedelta(days=3)),
        (hall[1], 119.0, today - timedelta(days=21)),
        (hall[2], 60.0, today - timedelta(days=200)),
    ):
        PlayerRating.objects.create(
            ladder=doubles,
            user=user,
            rating=5000.0,
            rd=rd,
            volatility=0.06,
            matches=12,
            last_played=last,
            established_until=None,  # club night works it out from the state
        )
    return hall


def test_the_page_shows_status_and_rd_in_display_units(client, standings, doubles, alice):
    client.force_login(alice)
    response = client.get(url(doubles))
    people = response.context["people"]
    assert [people[n].status for n in ("alice", "bob", "charlie", "dave")] == [
        "ranked", "provisional", "inactive", clubnight.UNRATED
    ]  # fmt: skip
    html = response.content.decode()

    def line(username: str) -> str:
        start = html.index(f'value="{username}"')
        return html[start : html.index("</label>", start)]

    assert "5.00 ± 0.08 · 12 played" in line("alice")
    # Provisional: "?" after the rating, RD grown to today (120.4) in display units.
    assert ">?</span> ± 0.12 · 12 played" in line("bob") and "5.00" in line("bob")
    assert "· inactive" in line("charlie") and "?" not in line("charlie")
    assert "± 0.25 · 0 played" in line("dave")  # the ladder's default start, not rated yet


def test_the_api_round_lists_everyone_with_status(standings, doubles, alice):
    present = [u.username for u in standings[:4]]
    body = api(alice).post(api_url(doubles), {"present": present}, format="json").json()
    players = {p["username"]: p for p in body["players"]}
    assert [p["username"] for p in body["players"]] == present
    assert players["alice"] == {
        "username": "alice",
        "rating": 5000.0,
        "rating_display": "5.00",
        "rd": 80.0,
        "rd_display": "0.08",
        "status": "ranked",
    }
    assert players["bob"]["status"] == "provisional" and players["bob"]["rd"] > 120
    assert players["bob"]["rd_display"] == "0.12"
    assert players["charlie"]["status"] == "inactive"
    assert players["dave"]["status"] == "unrated" and players["dave"]["rd_display"] == "0.25"
