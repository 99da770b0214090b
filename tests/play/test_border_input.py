"""Every date, time and level at the border (issue 36, "What to build" 4 and "Why" 4 and 6):
one parser for instants, one for days, one for levels (``core/inputs.py``), behind every
form and API body. The inputs of the issue, each a 4xx that names its field and stores
nothing; then property tests that feed the API and the web forms anything."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import date, datetime, timedelta

import pytest
from django.core.cache import cache
from django.db import transaction
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.throttling import SimpleRateThrottle

from core.inputs import MAX_OFFSET, BadInput, parse_day, parse_instant, parse_level
from ladder.clubs.models import Membership
from ladder.play import services
from ladder.play.models import SCHEDULED, Challenge, OpenGame
from ratings.models import Season
from tests.factories import login
from tests.matches.support import api_client
from tests.play.support import rows, soon, unchanged

ISSUE_TIMES = ["0001-01-01T00:00+14:00", "9999-12-31T23:59-14:00", "2027-01-05T18:00+23:59"]


@pytest.fixture(autouse=True)
def _no_throttles(monkeypatch):
    cache.clear()
    monkeypatch.setattr(SimpleRateThrottle, "allow_request", lambda self, request, view: True)


def _game(**overrides: object) -> dict[str, object]:
    return {"starts_at": soon().isoformat(), "place": "Court 1", **overrides}


# ---- the parsers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, message",
    [
        ("0001-01-01T00:00+14:00", "years 1900 to 2100"),
        ("9999-12-31T23:59-14:00", "years 1900 to 2100"),
        ("2100-12-31T23:59-12:00", "years 1900 to 2100"),  # 2101 in the club's time
        ("2027-01-05T18:00+23:59", "within ±14:00"),
        ("2027-01-05T18:00-14:01", "within ±14:00"),
        ("2027-02-30T18:00", "is not a time"),
        ("tomorrow", "is not a time"),
        (1767225600, "is not a time"),
        ("9" * 100, "is not a time"),
    ],
)
def test_the_parser_of_instants_refuses(value, message):
    with pytest.raises(BadInput, match=message):
        parse_instant(value)


def test_the_parser_of_instants_takes_the_edges():
    assert parse_instant("2027-01-05T18:00+14:00").utcoffset() == MAX_OFFSET
    assert parse_instant("1900-01-01T12:00Z").year == 1900
    naive = parse_instant("2027-01-05T18:00")
    assert timezone.is_aware(naive) and naive == timezone.make_aware(datetime(2027, 1, 5, 18))


@pytest.mark.parametrize("value", ["0001-01-01", "9999-12-31", "1899-12-31", "2101-01-01"])
def test_the_parser_of_days_keeps_to_1900_to_2100(value):
    with pytest.raises(BadInput, match="years 1900 to 2100"):
        parse_day(value)
    assert parse_day("2100-12-31") == date(2100, 12, 31)


@pytest.mark.parametrize("value", [3000000000, 1e30, 1999, 9001, -1, True, "4500", 4500.5, None])
def test_the_parser_of_levels_keeps_to_the_rating_scale(value):
    with pytest.raises(BadInput):
        parse_level(value, 2000, 9000)
    assert parse_level(2000, 2000, 9000) == 2000 and parse_level(9000.0, 2000, 9000) == 9000


# ---- the issue's inputs, through the API and the pages -----------------------------------


@pytest.mark.parametrize("when", ISSUE_TIMES)
def test_an_open_game_at_an_impossible_time_is_a_400(ladder, alice, when):
    with unchanged():
        response = api_client(alice).post(
            "/api/v1/ladders/singles/open-games/", _game(starts_at=when), format="json"
        )
    assert response.status_code == 400
    assert list(response.json()) == ["starts_at"]


@pytest.mark.parametrize("when", ISSUE_TIMES)
def test_a_challenge_at_an_impossible_time_is_a_400(ladder, alice, bob, when):
    body = {"opponents": ["bob"], "proposed_times": [when]}
    with unchanged():
        response = api_client(alice).post(
            "/api/v1/ladders/singles/challenges/", body, format="json"
        )
    assert response.status_code == 400
    assert list(response.json()) == ["proposed_times"]


@pytest.mark.parametrize("when", ISSUE_TIMES)
def test_accepting_an_impossible_time_is_a_400(ladder, alice, bob, when):
    made = services.create_challenge(
        ladder=ladder, by=alice, opponents=["bob"], proposed_times=[soon()]
    )
    with unchanged():
        response = api_client(bob).post(
            f"/api/v1/challenges/{made.pk}/accept/", {"time": when}, format="json"
        )
    assert response.status_code == 400 and list(response.json()) == ["time"]


def test_a_challenge_stored_with_a_bad_offset_before_the_fix_is_refused_not_a_500(
    ladder, alice, bob
):
    # Issue 36: "+23:59" was stored (201) and every accept answered 500 on PostgreSQL.
    made = services.create_challenge(
        ladder=ladder, by=alice, opponents=["bob"], proposed_times=[soon()]
    )
    Challenge.objects.filter(pk=made.pk).update(proposed_times=["2027-01-05T18:00+23:59"])
    with unchanged():
        response = api_client(bob).post(
            f"/api/v1/challenges/{made.pk}/accept/",
            {"time": "2027-01-05T18:00+23:59"},
            format="json",
        )
    assert response.status_code == 400 and "±14:00" in response.json()["time"][0]


@pytest.mark.parametrize(
    "levels, field",
    [
        ({"level_max": 3000000000}, "level_max"),
        ({"level_max": 1e30}, "level_max"),
        ({"level_min": 2}, "level_min"),
        ({"level_min": 1999}, "level_min"),
        ({"level_max": 9001}, "level_max"),
    ],
)
def test_levels_outside_the_rating_scale_are_a_400(ladder, alice, levels, field):
    with unchanged():
        response = api_client(alice).post(
            "/api/v1/ladders/singles/open-games/", _game(**levels), format="json"
        )
    assert response.status_code == 400
    assert field in response.json()
    if levels.get(field) != 1e30:  # 1e30 is not a whole number to DRF's integer field
        assert response.json()[field] == [
            "A level is a rating from 2.00 to 9.00 (2000 to 9000 points)."
        ]


def test_a_doubles_game_on_a_singles_ladder_is_a_400(ladder, alice):
    with unchanged():
        response = api_client(alice).post(
            "/api/v1/ladders/singles/open-games/", _game(team_size=2), format="json"
        )
    assert response.status_code == 400
    assert response.json() == {
        "team_size": ["A game on Club Singles is singles (1), as the ladder plays."]
    }
    made = api_client(alice).post("/api/v1/ladders/singles/open-games/", _game(), format="json")
    assert made.status_code == 201 and made.json()["team_size"] == 1


def test_the_open_game_form_offers_no_team_size_and_refuses_bad_levels(ladder, alice, client):
    login(client, alice)
    page = client.get("/ladders/singles/open-games/").content.decode()
    assert 'name="team_size"' not in page
    local = timezone.localtime(soon()).strftime("%Y-%m-%dT%H:%M")
    for levels in ({"level_min": "0.2"}, {"level_max": "1e30"}, {"level_max": "3000000"}):
        with unchanged():
            response = client.post(
                "/ladders/singles/open-games/",
                {"starts_at": local, "place": "Court 1", "team_size": "2", **levels},
            )
        assert response.status_code == 400
        assert "A level is a rating from 2.00 to 9.00" in response.content.decode()
    made = client.post(
        "/ladders/singles/open-games/", {"starts_at": local, "place": "Court 1", "team_size": "2"}
    )
    assert made.status_code == 302 and OpenGame.objects.get().team_size == 1


@pytest.mark.parametrize("when", ["0001-01-01T00:00", "9999-12-31T23:59", "2027-13-01T10:00"])
def test_the_pages_refuse_impossible_times(ladder, alice, bob, client, when):
    login(client, alice)
    with unchanged():
        game = client.post("/ladders/singles/open-games/", {"starts_at": when, "place": "C"})
        challenge = client.post(
            "/ladders/singles/challenge/", {"opponent_1": "bob", "time_1": when}
        )
    assert (game.status_code, challenge.status_code) == (400, 400)


@pytest.mark.parametrize(
    "first, last", [("0001-01-01", "0001-12-31"), ("9999-01-01", "9999-12-31")]
)
def test_seasons_dated_0001_or_9999_are_refused(ladder, mod, client, first, last):
    login(client, mod)
    data = {"name": "Odd", "slug": "odd", "starts_on": first, "ends_on": last}
    response = client.post(f"/ladders/{ladder.slug}/seasons/", data)
    assert response.status_code == 400
    assert "years 1900 to 2100" in response.content.decode()
    assert not Season.objects.exists()
    season = Season(
        ladder=ladder, name="Odd", slug="odd", starts_on=date(1, 1, 1), ends_on=date(1, 2, 1)
    )
    with pytest.raises(Exception, match="years 1900 to 2100"):
        season.full_clean()  # the admin's way


def test_time_away_refuses_an_unknown_field_and_impossible_days(ladder, alice, client):
    # Issue 36: {"user": "chloe"} was taken (200); docs/API.md says 400.
    url = "/api/v1/ladders/singles/away/"
    until = (timezone.localdate() + timedelta(days=3)).isoformat()
    as_alice = api_client(alice)
    response = as_alice.put(url, {"until": until, "user": "chloe"}, format="json")
    assert response.status_code == 400
    assert "Unknown field 'user'" in response.json()["non_field_errors"][0]
    for day in ("0001-01-01", "9999-12-31"):
        response = as_alice.put(url, {"until": day}, format="json")
        assert response.status_code == 400 and "years 1900 to 2100" in response.json()["until"][0]
    assert Membership.objects.get(ladder=ladder, user=alice).away_until is None


# ---- anything at all, through the API and the forms (hypothesis) --------------------------

ODD_ISO = st.builds(
    "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}{}{:02d}:{:02d}".format,
    st.sampled_from([1, 2, 1899, 1900, 2026, 2027, 2100, 2101, 9999]) | st.integers(1, 9999),
    st.integers(0, 13),
    st.integers(0, 32),
    st.integers(0, 25),
    st.integers(0, 61),
    st.sampled_from(["+", "-"]),
    st.integers(0, 30),
    st.integers(0, 60),
)
ANYTHING = st.one_of(
    ODD_ISO,
    st.text(max_size=60),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=2),
)
FORM_TEXT = st.one_of(ODD_ISO, st.text(max_size=60), st.integers(-(10**40), 10**40).map(str))
PROPERTY = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@contextmanager
def rolled_back():
    """One example's requests, undone after (a valid input may store something)."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def _in_range(moment: datetime | None) -> bool:
    return moment is not None and 1900 <= moment.year <= 2100


def _answer_is_sound(response, before, changed_ok) -> None:
    assert response.status_code < 500, response.content[:300]
    if 400 <= response.status_code < 500:
        assert rows() == before
    else:
        changed_ok()


@PROPERTY
@given(starts_at=ANYTHING, level_min=ANYTHING, level_max=ANYTHING, team_size=ANYTHING)
def test_any_open_game_body_is_a_4xx_storing_nothing_or_a_sound_game(
    ladder, alice, starts_at, level_min, level_max, team_size
):
    body = {"starts_at": starts_at, "place": "Court 1", "level_min": level_min}
    body |= {"level_max": level_max, "team_size": team_size}
    with rolled_back():
        before = rows()
        response = api_client(alice).post(
            "/api/v1/ladders/singles/open-games/", body, format="json"
        )

        def sound() -> None:
            game = OpenGame.objects.get()
            assert _in_range(game.starts_at) and game.team_size == 1
            for level in (game.level_min, game.level_max):
                assert level is None or 2000 <= level <= 9000

        _answer_is_sound(response, before, sound)


@PROPERTY
@given(times=st.lists(ANYTHING, max_size=4) | ANYTHING, time=ANYTHING)
def test_any_challenge_or_accept_time_is_a_4xx_storing_nothing(ladder, alice, bob, times, time):
    with rolled_back():
        made = services.create_challenge(
            ladder=ladder, by=bob, opponents=["alice"], proposed_times=[soon()]
        )
        before = rows()
        body = {"opponents": ["bob"], "proposed_times": times}
        response = api_client(alice).post(
            "/api/v1/ladders/singles/challenges/", body, format="json"
        )
        # (Alice and Bob have a challenge going: even good times are refused, as a 400.)
        _answer_is_sound(response, before, lambda: pytest.fail("a second live challenge"))
        accepted = api_client(alice).post(
            f"/api/v1/challenges/{made.pk}/accept/", {"time": time}, format="json"
        )

        def scheduled() -> None:
            made.refresh_from_db()
            assert made.state == SCHEDULED and made.starts_at == soon()

        _answer_is_sound(accepted, before, scheduled)


@PROPERTY
@given(until=ANYTHING)
def test_any_day_away_is_a_4xx_or_a_sound_day(ladder, alice, until):
    with rolled_back():
        response = api_client(alice).put(
            "/api/v1/ladders/singles/away/", {"until": until}, format="json"
        )
        stored = Membership.objects.get(ladder=ladder, user=alice).away_until
        assert response.status_code < 500
        if response.status_code >= 400:
            assert stored is None
        else:
            assert stored is None or 1900 <= stored.year <= 2100


@PROPERTY
@given(when=FORM_TEXT, low=FORM_TEXT, high=FORM_TEXT, first=FORM_TEXT, last=FORM_TEXT)
def test_any_form_input_is_refused_on_the_page_or_sound(
    ladder, alice, bob, mod, when, low, high, first, last
):
    member, moderator = login(Client(), alice), login(Client(), mod)
    with rolled_back():
        before = rows()
        game = member.post(
            "/ladders/singles/open-games/",
            {"starts_at": when, "place": "Court 1", "level_min": low, "level_max": high},
        )

        def sound_game() -> None:
            assert game.status_code == 302 and _in_range(OpenGame.objects.get().starts_at)

        _answer_is_sound(game, before, sound_game)
    with rolled_back():
        before = rows()
        challenge = member.post(
            "/ladders/singles/challenge/", {"opponent_1": "bob", "time_1": when}
        )
        _answer_is_sound(
            challenge,
            before,
            lambda: Challenge.objects.get().proposed_datetimes[0].utcoffset() is not None,
        )
    with rolled_back():
        data = {"name": "S", "slug": "s", "starts_on": first, "ends_on": last}
        season = moderator.post(f"/ladders/{ladder.slug}/seasons/", data)
        assert season.status_code < 500
        for kept in Season.objects.all():
            assert 1900 <= kept.starts_on.year <= kept.ends_on.year <= 2100
        if season.status_code >= 400:
            assert not Season.objects.exists()
    with rolled_back():
        member.post(f"/ladders/{ladder.slug}/away/", {"until": first})
        stored = Membership.objects.get(ladder=ladder, user=alice).away_until
        assert stored is None or 1900 <= stored.year <= 2100
