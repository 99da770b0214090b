"""The ratings API: /api/v1/ladders/<slug>/leaderboard/ and /api/v1/players/<username>/history/."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from ladder.clubs.formatting import format_percent
from ratings.engine.scales import display
from ratings.models import PlayerRating, RatingChange
from ratings.pipeline import rate_ladder
from tests.factories import LadderFactory, MembershipFactory, hide
from tests.ratings.pages_support import NOON, TODAY, member, play, rated


@pytest.fixture(autouse=True)
def frozen(time_machine):  # type: ignore[no-untyped-def]
    time_machine.move_to(NOON, tick=False)


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def club(db):  # type: ignore[no-untyped-def]
    ladder = LadderFactory(name="Club", slug="club")
    ann, ben, cat = (member(ladder, n, f"{n.capitalize()} N") for n in ("ann", "ben", "cat"))
    play(ladder, [ann], [ben], [(21, 12), (21, 15)], TODAY - timedelta(days=20))
    play(ladder, [ben], [ann], [(21, 19), (21, 17)], TODAY - timedelta(days=15))
    play(ladder, [ann], [ben], [(21, 10), (21, 11)], TODAY - timedelta(days=5))
    play(ladder, [cat], [ben], [(21, 10), (21, 11)], TODAY - timedelta(days=4))
    rate_ladder(ladder.pk)
    return ladder, ann, ben, cat


# ---- leaderboard ---------------------------------------------------------------------------


def test_leaderboard_shape(api, club):
    ladder, ann, ben, cat = club
    rated(
        ladder,
        member(ladder, "top", "Top Player"),
        rating=6000.0,
        rd=50.0,
        matches=30,
        wins=20,
        losses=10,
    )
    response = api.get("/api/v1/ladders/club/leaderboard/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 4 and body["next"] is None
    top = body["results"][0]
    assert top == {
        "rank": 1,
        "username": "top",
        "name": "Top Player",
        "status": "ranked",
        "rating": 6000.0,
        "rating_display": "6.00",
        "rd": 50.0,
        "rd_today": 50.0,
        "rd_display": "0.05",
        "trend": None,
        "trend_display": None,
        "wins": 20,
        "losses": 10,
        "matches": 30,
        "last_played": TODAY.isoformat(),
        "away_until": None,
        "player": "http://testserver/players/top/?ladder=club",
    }
    ann_row = next(r for r in body["results"] if r["username"] == "ann")
    stored = PlayerRating.objects.get(ladder=ladder, user=ann)
    assert ann_row["status"] == "provisional" and ann_row["rank"] is None
    assert ann_row["rating"] == pytest.approx(stored.rating)
    assert ann_row["trend"] == pytest.approx(stored.rating - 4500.0)  # all within 30 days
    # Display forms beside the raw numbers (RATINGS.md §8): RD and trend in rating units.
    assert ann_row["rd"] == pytest.approx(stored.rd)
    assert ann_row["rd_display"] == f"{stored.rd / 1000:.2f}"  # played 5 days ago: not grown
    trend = stored.rating - 4500.0
    sign = "+" if trend > 0 else "\u2212"  # a real minus sign, as on the pages
    assert ann_row["trend_display"] == f"{sign}{abs(trend) / 1000:.2f}"
    assert (ann_row["wins"], ann_row["losses"], ann_row["matches"]) == (2, 1, 3)


def test_leaderboard_filters_search_and_pages(api, db):
    ladder = LadderFactory(name="Big", slug="big")
    for i in range(60):
        rated(ladder, member(ladder, f"u{i:02d}"), rating=5000.0 - i, matches=3 if i % 2 else 10)
    ranked = api.get("/api/v1/ladders/big/leaderboard/", {"status": "ranked"}).json()
    assert ranked["count"] == 30 and len(ranked["results"]) == 30
    everyone = api.get("/api/v1/ladders/big/leaderboard/").json()
    assert everyone["count"] == 60 and len(everyone["results"]) == 50
    assert everyone["next"].endswith("/api/v1/ladders/big/leaderboard/?page=2")
    second = api.get(everyone["next"]).json()
    assert len(second["results"]) == 10
    found = api.get("/api/v1/ladders/big/leaderboard/", {"q": "U05"}).json()
    assert [(r["username"], r["status"], r["rank"]) for r in found["results"]] == [
        ("u05", "provisional", None)
    ]
    found = api.get("/api/v1/ladders/big/leaderboard/", {"q": "u04"}).json()
    assert found["results"][0]["rank"] == 3  # its place among all ranked players
    bad = api.get("/api/v1/ladders/big/leaderboard/", {"status": "bogus"})
    assert bad.status_code == 400 and "status" in bad.json()


def test_leaderboard_visibility(api, club, private_ladder, alice, outsider, mod):
    ladder, ann, ben, cat = club
    assert api.get("/api/v1/ladders/squad/leaderboard/").status_code == 404
    assert api.get("/api/v1/ladders/nope/leaderboard/").status_code == 404
    api.force_authenticate(outsider)
    assert api.get("/api/v1/ladders/squad/leaderboard/").status_code == 404
    api.force_authenticate(alice)
    assert api.get("/api/v1/ladders/squad/leaderboard/").status_code == 200
    hide(user=ben)
    api.force_authenticate(None)
    names = [r["username"] for r in api.get("/api/v1/ladders/club/leaderboard/").json()["results"]]
    assert "ben" not in names and "ann" in names
    api.force_authenticate(mod)
    names = [r["username"] for r in api.get("/api/v1/ladders/club/leaderboard/").json()["results"]]
    assert "ben" in names


def test_leaderboard_is_read_only(api, club):
    assert api.post("/api/v1/ladders/club/leaderboard/", {}).status_code in (403, 405)


# ---- history -------------------------------------------------------------------------------


def test_history_shape(api, club):
    ladder, ann, ben, cat = club
    response = api.get("/api/v1/players/ann/history/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3
    newest = body["results"][0]
    assert set(newest) == {
        "match", "ladder", "played_on", "side", "partners", "opponents", "score", "won",
        "rating_before", "rating_after", "rd_before", "rd_after", "volatility_before",
        "volatility_after", "expected", "outcome", "repetition_weight", "diversity_ratio",
        "gate_open", "performance_weight", "change", "explanation", "margin_multiplier",
        "floor_applied", "rating_after_display", "rd_after_display", "change_display",
    }  # fmt: skip
    stored = RatingChange.objects.get(match_id=newest["match"], user=ann)
    assert newest["margin_multiplier"] == pytest.approx(stored.margin_multiplier)
    assert stored.margin_multiplier > 1  # 21-10 21-11: a clear win counts more
    assert newest["floor_applied"] is stored.floor_applied is False
    assert newest["rd_after_display"] == f"{stored.rd_after / 1000:.2f}"
    assert newest["rating_after_display"] == f"{stored.rating_after / 1000:.2f}"
    # A win, in rating units: the difference of the two ratings as shown (issue 37).
    shown = Decimal(display(stored.rating_after)) - Decimal(display(stored.rating_before))
    assert newest["change_display"] == f"+{shown}"
    assert (
        newest["ladder"] == "club"
        and newest["played_on"] == (TODAY - timedelta(days=5)).isoformat()
    )
    assert newest["opponents"] == [{"name": "Ben N", "username": "ben"}]
    assert newest["partners"] == [] and newest["won"] is True and newest["score"] == "21-10 21-11"
    assert newest["explanation"].startswith(
        f"{format_percent(newest['expected'])} chance to win, won 21-10 21-11: +"
    )
    assert "third match against Ben N in 90 days, counted at 0.71" in newest["explanation"]
    lost = body["results"][1]
    assert lost["won"] is False and lost["score"] == "19-21 17-21" and lost["change"] < 0
    assert body["results"][2]["explanation"].endswith(
        "first rated match, starting from 4.50 ± 0.25"
    )


def test_history_per_ladder_and_pages(api, club, db):
    ladder, ann, ben, cat = club
    other = LadderFactory(name="Other", slug="other")
    for user in (ann, ben):
        MembershipFactory(ladder=other, user=user)
    for i in range(22):
        play(other, [ann], [ben], [(21, 15), (21, 17)], TODAY - timedelta(days=40 - i))
    rate_ladder(other.pk)
    everything = api.get("/api/v1/players/ann/history/").json()
    assert everything["count"] == 25 and len(everything["results"]) == 20
    only = api.get("/api/v1/players/ann/history/", {"ladder": "club"}).json()
    assert only["count"] == 3 and {r["ladder"] for r in only["results"]} == {"club"}
    assert api.get("/api/v1/players/ann/history/", {"ladder": "nope"}).status_code == 404


def test_history_visibility(api, club, private_ladder, alice, mod):
    ladder, ann, ben, cat = club
    assert api.get("/api/v1/players/nobody/history/").status_code == 404
    assert api.get("/api/v1/players/alice/history/", {"ladder": "squad"}).status_code == 404
    hide(user=ben)
    assert api.get("/api/v1/players/ben/history/").status_code == 404
    newest = api.get("/api/v1/players/ann/history/").json()["results"][0]
    assert newest["opponents"] == [{"name": "Hidden player", "username": None}]
    assert "against a hidden player" in newest["explanation"]
    api.force_authenticate(ben)
    assert api.get("/api/v1/players/ben/history/").json()["count"] == 4
    api.force_authenticate(mod)
    assert api.get("/api/v1/players/ben/history/").status_code == 200


def test_history_queries_do_not_grow(api, club, django_assert_num_queries):
    ladder, ann, ben, cat = club
    for _ in range(30):
        play(ladder, [ann], [cat], [(21, 15), (21, 17)], TODAY - timedelta(days=3))
    rate_ladder(ladder.pk)
    # memberships (with the player), count, page, players, games, hidden members
    with django_assert_num_queries(6):
        assert api.get("/api/v1/players/ann/history/").status_code == 200
    # ladder, status counts, the page's rows (one status here), their users, their trends;
    # ranks come from the places
    with django_assert_num_queries(5):
        assert api.get("/api/v1/ladders/club/leaderboard/").status_code == 200


# ---- schema --------------------------------------------------------------------------------


def test_schema_is_valid_and_lists_the_rating_endpoints(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    schema = out.read_text()
    assert "/api/v1/ladders/{slug}/leaderboard/" in schema
    assert "/api/v1/players/{username}/history/" in schema
