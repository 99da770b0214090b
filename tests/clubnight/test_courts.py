"""Issue 23: club night with the hall's number of courts: at most that many matches a round;
everyone else sits out, those who played most tonight first."""

from __future__ import annotations

from html import unescape

import pytest
from rest_framework.test import APIClient

from ladder.clubnight import services as clubnight
from ladder.clubnight.matchmaking import MAX_COURTS, ClubNightError, Present, propose
from ladder.clubnight.models import ClubNight
from ratings.engine.types import Params, PlayerState
from tests.clubnight.test_clubnight_pages import hall, propose_url, url  # noqa: F401 - hall is a fixture

HX = {"HTTP_HX_REQUEST": "true"}


def players(n: int, games: int = 0) -> list[Present]:
    return [
        Present(
            f"p{i:02}", f"P {i}", PlayerState(rating=4000 + 97 * i, rd=150, volatility=0.06), games
        )
        for i in range(n)
    ]


@pytest.mark.parametrize(
    ("n", "team_size", "courts", "matches", "byes"),
    [(16, 1, 2, 2, 12), (16, 1, None, 8, 0), (9, 2, 1, 1, 5), (9, 2, 5, 2, 1), (13, 1, 3, 3, 7)],
)
def test_a_round_uses_at_most_the_courts(n, team_size, courts, matches, byes) -> None:
    rnd = propose(players(n), team_size, Params(), courts=courts)
    assert (len(rnd.matches), len(rnd.byes)) == (matches, byes)
    seen = [p for m in rnd.matches for p in m.players] + list(rnd.byes)
    assert sorted(seen) == [p.id for p in players(n)]  # everyone once: playing or sitting out


def test_who_sat_out_plays_next_round_on_few_courts() -> None:
    hall_of_six = players(6)
    first = propose(hall_of_six, 1, Params(), courts=1)
    second = propose(hall_of_six, 1, Params(), courts=1, previous_rounds=[first.pairings])
    assert not set(first.matches[0].players) & set(second.matches[0].players)


@pytest.mark.parametrize("courts", [0, -1, MAX_COURTS + 1])
def test_a_number_of_courts_out_of_range_is_refused(courts) -> None:
    with pytest.raises(ClubNightError, match="number of courts is a whole number from 1 to"):
        propose(players(4), 1, Params(), courts=courts)


def test_the_page_keeps_the_courts_and_uses_them(client, doubles, hall, alice):  # noqa: F811
    client.force_login(alice)
    present = [u.username for u in hall]
    response = client.post(propose_url(doubles), {"present": present, "courts": "1"}, **HX)
    assert response.status_code == 200
    night = ClubNight.objects.get(ladder=doubles)
    assert night.courts == 1
    assert len(night.rounds[-1]["matches"]) == 1 and len(night.rounds[-1]["byes"]) == 5
    page = unescape(client.get(url(doubles)).content.decode())
    assert 'name="courts"' in page and 'value="1"' in page
    # Not a number: refused, and the night is as it was.
    refused = client.post(propose_url(doubles), {"present": present, "courts": "two"}, **HX)
    assert refused.status_code == 400
    assert "The number of courts is a whole number, not 'two'." in unescape(
        refused.content.decode()
    )
    assert len(ClubNight.objects.get(ladder=doubles).rounds) == 1


def test_the_api_takes_the_courts(doubles, hall, alice):  # noqa: F811
    api = APIClient()
    api.force_authenticate(alice)
    body = {"present": [u.username for u in hall], "courts": 1}
    answer = api.post(f"/api/v1/ladders/{doubles.slug}/club-night/", body, format="json")
    assert answer.status_code == 200, answer.content
    assert len(answer.json()["matches"]) == 1
    bad = api.post(
        f"/api/v1/ladders/{doubles.slug}/club-night/", {**body, "courts": 0}, format="json"
    )
    assert bad.status_code == 400 and "courts" in bad.json()


def test_the_service_stores_the_courts(doubles, hall, alice):  # noqa: F811
    night, rnd = clubnight.add_round(doubles, alice, hall, courts=2)
    assert (night.courts, len(rnd.matches)) == (2, 2)
