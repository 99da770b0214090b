"""/api/v1/matches/ and friends: report, read, act; the same rules and errors as the web
(400 with field errors, 403, 404, 409), token and session auth, throttling."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from ladder.matches import operations as matches
from ladder.matches.models import AuditEntry, Match
from ratings import predictions
from tests.factories import PASSWORD, MembershipFactory, hide, reported_match
from tests.matches.support import API, api_client, report_payload, unchanged


@pytest.fixture(autouse=True)
def _no_throttle_history():
    cache.clear()


def detail(match):
    return f"{API}{match.pk}/"


# ---- auth -------------------------------------------------------------------------------------


def test_token_auth_end_to_end(ladder, alice, bob):
    client = APIClient()
    response = client.post(
        "/api/v1/auth/token/", {"username": "alice", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200
    token = response.json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    created = client.post(API, report_payload(ladder, [alice], [bob]), format="json")
    assert created.status_code == 201
    assert created.json()["reporter"] == "alice"
    # Tokens expire and rotate: tests/accounts/test_tokens.py.


def test_a_wrong_password_gets_no_token(alice):
    response = APIClient().post(
        "/api/v1/auth/token/", {"username": "alice", "password": "nope"}, format="json"
    )
    assert response.status_code == 400
    assert "non_field_errors" in response.json()


def test_session_auth_needs_the_csrf_token(ladder, alice, bob, client):
    client.force_login(alice)
    api = APIClient(enforce_csrf_checks=True)
    api.cookies = client.cookies
    with unchanged():
        refused = api.post(API, report_payload(ladder, [alice], [bob]), format="json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    api.get(API)  # any page sets the csrftoken cookie for the session
    client.get("/")
    token = client.cookies["csrftoken"].value
    api.cookies = client.cookies
    ok = api.post(
        API, report_payload(ladder, [alice], [bob]), format="json", HTTP_X_CSRFTOKEN=token
    )
    assert ok.status_code == 201


# ---- report ---------------------------------------------------------------------------------


def test_report(doubles, alice, bob, charlie, dave):
    response = api_client(alice).post(
        API, report_payload(doubles, [alice, bob], [charlie, dave]), format="json"
    )
    assert response.status_code == 201
    data = response.json()
    match = Match.objects.get()
    assert response["Location"] == data["url"] == f"http://testserver{API}{match.pk}/"
    assert type(response["Location"]) is str  # wsgiref refuses str subclasses (500)
    assert data["page"] == f"http://testserver/matches/{match.pk}/"
    assert (data["ladder"], data["state"], data["reporter"]) == ("doubles", "pending", "alice")
    assert data["side_a"] == [
        {"username": "alice", "name": "Alice Archer", "stats": None},
        {"username": "bob", "name": "Bob Baker", "stats": None},
    ]
    assert [p["username"] for p in data["side_b"]] == ["charlie", "dave"]
    assert (data["games"], data["score"], data["winner"]) == (
        [[21, 15], [21, 18]],
        "21-15 21-18",
        "a",
    )
    assert data["allowed_actions"] == ["cancel", "edit"]
    assert data["disputes"] == []
    assert [(e["action"], e["actor"], e["to_state"]) for e in data["audit"]] == [
        ("report", "alice", "pending")
    ]
    assert data["needs_rating"] is False and data["expires_at"]


def test_report_with_stats(alice, bob):
    from tests.factories import LadderFactory

    league = LadderFactory(
        name="League",
        slug="league",
        scoring_format="generic",
        best_of=1,
        points_per_game=16,
        team_method="performance_weighted",
        method_options={"stat_weights": {"kills": 1.0}},
    )
    for user in (alice, bob):
        MembershipFactory(ladder=league, user=user)
    payload = report_payload(
        league,
        [alice],
        [bob],
        games=[[16, 9]],
        stats={"alice": {"kills": 20}, "bob": {"kills": 11}},
    )
    response = api_client(alice).post(API, payload, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["side_b"] == [
        {"username": "bob", "name": "Bob Baker", "stats": {"kills": 11}}
    ]
    bad = api_client(alice).post(
        API, {**payload, "stats": {"alice": {"kills": "lots"}}}, format="json"
    )
    assert bad.status_code == 400
    assert bad.json() == {"stats": ["Alice Archer's kills must be a number, not 'lots'."]}


TODAY = timezone.localdate


@pytest.mark.parametrize(
    ("overrides", "errors"),
    [
        (
            {"played_on": (TODAY() + timedelta(days=1)).isoformat()},
            {"played_on": ["The date cannot be in the future."]},
        ),
        (
            {"played_on": "yesterday"},
            {"played_on": ["'yesterday' is not a date like 2026-05-04."]},
        ),
        ({"side_b": ["nobody"]}, {"players": ["No member of Club Singles is called 'nobody'."]}),
        (
            {"side_b": ["alice"]},
            {"players": ["Alice Archer is named twice; every player must be different."]},
        ),
        (
            {"side_b": ["bob", "charlie"]},
            {"side_b": ["Side B needs exactly 1 player in Club Singles; it has 2."]},
        ),
        ({"side_b": ["dave"]}, {"players": ["No member of Club Singles is called 'dave'."]}),
        (
            {"side_a": ["charlie"]},
            {"players": ["You can only report a match you played in: add yourself to a side."]},
        ),
        ({"ladder": "nope"}, {"ladder": ["No ladder called 'nope'."]}),
        ({"ladder": "squad"}, {"ladder": ["No ladder called 'squad'."]}),  # private, not alice's
        (
            {"games": [[21, 20], [21, 5]]},
            {
                "games": [
                    "Game 1: 21-20 is not a valid badminton game to 21: a game won at 21 needs a 2-point lead."
                ]
            },
        ),
        ({"games": [[21, "x"]]}, {"games": ["Game 1: points are whole numbers, like [21, 15]."]}),
        (
            {"games": "21-15"},
            {"games": ["Enter the games as a list of scores, like [[21, 15], [21, 18]]."]},
        ),
        ({"games": [[21]]}, {"games": ["Game 1: [21] is not a score like [21, 15]."]}),
        ({"games": None}, {"games": ["This field may not be null."]}),
    ],
)
def test_bad_reports(ladder, alice, bob, charlie, dave, overrides, errors):
    from tests.factories import LadderFactory

    LadderFactory(name="Squad", slug="squad", is_public=False)
    payload = {**report_payload(ladder, [alice], [bob]), **overrides}
    with unchanged():
        response = api_client(alice).post(API, payload, format="json")
    assert response.status_code == 400
    assert response.json() == errors


def test_missing_fields(ladder, alice):
    with unchanged():
        response = api_client(alice).post(API, {}, format="json")
    assert response.status_code == 400
    assert set(response.json()) == {"ladder", "played_on", "side_a", "side_b", "games"}


def test_a_duplicate_is_a_non_field_error(ladder, alice, bob):
    first = reported_match(ladder, alice, [alice], [bob])
    with unchanged():
        response = api_client(bob).post(
            API, report_payload(ladder, [bob], [alice], games=[[15, 21], [18, 21]]), format="json"
        )
    assert response.status_code == 400
    assert response.json() == {
        "non_field_errors": [
            f"This match is already reported (match {first.pk} by Alice Archer: same players, date "
            "and score); confirm or dispute that one instead."
        ]
    }


def test_pending_limit(ladder, alice, bob):
    ladder.max_pending_reports = 1
    ladder.save()
    reported_match(ladder, alice, [alice], [bob])
    with unchanged():
        response = api_client(alice).post(
            API, report_payload(ladder, [alice], [bob], games=[[21, 1], [21, 1]]), format="json"
        )
    assert response.status_code == 400
    assert "You already have 1 reports waiting" in response.json()["non_field_errors"][0]


def test_the_ladders_hourly_limit(ladder, alice, bob):
    ladder.reports_per_hour = 1
    ladder.save()
    matches.cancel_match(reported_match(ladder, alice, [alice], [bob]), alice)
    with unchanged():
        response = api_client(alice).post(
            API, report_payload(ladder, [alice], [bob]), format="json"
        )
    assert response.status_code == 400
    assert "in the last hour" in response.json()["non_field_errors"][0]


def test_reports_are_throttled(ladder, alice, bob, charlie, monkeypatch):
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"match_report": "2/hour"})
    client = api_client(alice)
    assert (
        client.post(API, report_payload(ladder, [alice], [bob]), format="json").status_code == 201
    )
    assert client.post(API, {}, format="json").status_code == 400  # a bad attempt counts too
    with unchanged():
        response = client.post(API, report_payload(ladder, [alice], [charlie]), format="json")
    assert response.status_code == 429
    assert "throttled" in response.json()["detail"]
    # Only reports are throttled this way.
    assert client.get(API).status_code == 200
    assert (
        api_client(bob)
        .post(API, report_payload(ladder, [bob], [charlie]), format="json")
        .status_code
        == 201
    )


# ---- reading -------------------------------------------------------------------------------


@pytest.fixture
def season(ladder, doubles, alice, bob, charlie, dave, mod):
    confirmed = matches.confirm_match(reported_match(ladder, alice, [alice], [bob]), bob)
    pending = reported_match(ladder, charlie, [charlie], [alice])
    disputed = matches.dispute_match(
        reported_match(doubles, alice, [alice, bob], [charlie, dave]),
        dave,
        "Wrong",
        [[21, 15], [19, 21], [21, 3]],
    )
    return {"confirmed": confirmed, "pending": pending, "disputed": disputed}


def ids(response):
    assert response.status_code == 200, response.json()
    return [m["id"] for m in response.json()["results"]]


def test_list_and_filters(season, alice, client):
    api = api_client(None)
    everything = ids(api.get(API))
    assert sorted(everything) == sorted(m.pk for m in season.values())
    assert ids(api.get(API, {"ladder": "doubles"})) == [season["disputed"].pk]
    assert ids(api.get(API, {"state": "pending"})) == [season["pending"].pk]
    assert sorted(ids(api.get(API, {"player": "bob"}))) == sorted(
        [season["confirmed"].pk, season["disputed"].pk]
    )
    assert ids(api.get(API, {"player": "nobody"})) == []
    bad = api.get(API, {"state": "lost"})
    assert bad.status_code == 400 and "state" in bad.json()


def test_private_ladders_matches_are_hidden(private_ladder, alice, bob, outsider, mod):
    MembershipFactory(ladder=private_ladder, user=bob)
    match = reported_match(private_ladder, alice, [alice], [bob])
    for user in (None, outsider):
        client = api_client(user)
        assert ids(client.get(API)) == []
        assert client.get(detail(match)).status_code == 404
        assert client.post(f"{detail(match)}confirm/").status_code in (401, 404)
    assert api_client(outsider).post(f"{detail(match)}confirm/").status_code == 404
    assert ids(api_client(bob).get(API)) == [match.pk]
    assert api_client(mod).get(detail(match)).status_code == 200


def test_a_ladders_matches_by_its_id_and_none_of_an_invisible_ladder(
    private_ladder, alice, bob, outsider
):
    MembershipFactory(ladder=private_ladder, user=bob)
    match = reported_match(private_ladder, alice, [alice], [bob])
    assert ids(api_client(bob).get(API, {"ladder": "squad"})) == [match.pk]
    assert ids(api_client(outsider).get(API, {"ladder": "squad"})) == []
    assert ids(api_client(bob).get(API, {"ladder": "nowhere"})) == []
    # The page is read by the ladder's id, which lets PostgreSQL walk its (ladder, played_on)
    # index; through the slug (a join with ladders) it sorted all 200,000 matches of a big
    # ladder (0.9 s).
    with CaptureQueriesContext(connection) as queries:
        api_client(bob).get(API, {"ladder": "squad"})
    page = next(
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith('SELECT "ladder_match"."id"')
    )
    assert f'"ladder_match"."ladder_id" = {private_ladder.pk}' in page
    assert "ladder_ladder" not in page.split("WHERE")[1]


def test_unknown_match_is_404(alice):
    assert api_client(alice).get(f"{API}999999/").status_code == 404
    assert api_client(alice).post(f"{API}999999/confirm/").status_code == 404


def test_detail_shows_disputes_and_audit(season, alice, mod):
    data = api_client(mod).get(detail(season["disputed"])).json()
    assert data["allowed_actions"] == ["resolve"]
    (dispute,) = data["disputes"]
    assert (
        dispute["raised_by"],
        dispute["reason"],
        dispute["proposed_games"],
        dispute["is_open"],
    ) == ("dave", "Wrong", [[21, 15], [19, 21], [21, 3]], True)
    assert [(e["action"], e["actor_name"]) for e in data["audit"]] == [
        ("report", "Alice Archer"),
        ("dispute", "Dave Dunn"),
    ]
    assert data["audit"][1]["after"]["proposed_games"] == [[21, 15], [19, 21], [21, 3]]


def test_list_query_count_is_fixed(season, alice, django_assert_max_num_queries):
    client = api_client(alice)
    with django_assert_max_num_queries(8):
        assert len(ids(client.get(API))) == 3
    for n in range(5):
        reported_match(
            season["confirmed"].ladder,
            alice,
            [alice],
            [season["confirmed"].side_b_players[0]],
            games=[(21, n), (21, n)],
        )
    with django_assert_max_num_queries(8):
        assert len(ids(client.get(API))) == 8


# ---- transitions ---------------------------------------------------------------------------


def test_confirm(season, alice, charlie):
    response = api_client(alice).post(f"{detail(season['pending'])}confirm/")
    assert response.status_code == 200
    data = response.json()
    assert data["state"] == "confirmed" and data["allowed_actions"] == []
    assert data["needs_rating"] is True or data["rated_at"] is not None


def test_dispute_errors_use_the_apis_field_names(season, alice):
    url = f"{detail(season['pending'])}dispute/"
    with unchanged(season["pending"]):
        response = api_client(alice).post(
            url, {"reason": " ", "proposed_games": [[21, 15]]}, format="json"
        )
    assert response.status_code == 400
    assert response.json() == {
        "reason": ["Say what is wrong with the reported result."],
        "proposed_games": [
            "The match is not finished: 1-0 in games; a best-of-3 match needs 2 games won."
        ],
    }
    with unchanged(season["pending"]):
        assert api_client(alice).post(url, {}, format="json").json() == {
            "reason": ["This field is required."]
        }


def test_resolve_correct(season, mod):
    response = api_client(mod).post(
        f"{detail(season['disputed'])}resolve/",
        {"decision": "correct", "reason": "Video", "games": [[21, 15], [19, 21], [21, 3]]},
        format="json",
    )
    assert response.status_code == 200
    data = response.json()
    assert (data["state"], data["score"]) == ("corrected", "21-15 19-21 21-3")
    assert data["disputes"][0]["resolution"] == "corrected"
    assert data["disputes"][0]["resolved_by"] == "mod"


@pytest.mark.parametrize(
    ("payload", "errors"),
    [
        ({"decision": "maybe", "reason": "x"}, {"decision": ['"maybe" is not a valid choice.']}),
        (
            {"decision": "void", "reason": ""},
            {"reason": ["Give the reason for your decision; the players see it."]},
        ),
        ({"decision": "correct", "reason": "x"}, {"games": ["Enter the correct score."]}),
    ],
)
def test_bad_resolutions(season, mod, payload, errors):
    with unchanged(season["disputed"]):
        response = api_client(mod).post(
            f"{detail(season['disputed'])}resolve/", payload, format="json"
        )
    assert response.status_code == 400
    assert response.json() == errors


def test_correct_and_void(season, mod):
    url = detail(season["confirmed"])
    corrected = api_client(mod).post(
        f"{url}correct/",
        {
            "games": [[21, 19], [21, 19]],
            "reason": "Typo",
            "played_on": (TODAY() - timedelta(days=1)).isoformat(),
        },
        format="json",
    )
    assert corrected.status_code == 200
    assert (corrected.json()["state"], corrected.json()["score"]) == ("corrected", "21-19 21-19")
    assert corrected.json()["played_on"] == (TODAY() - timedelta(days=1)).isoformat()
    voided = api_client(mod).post(f"{url}void/", {"reason": "Friendly"}, format="json")
    assert voided.status_code == 200 and voided.json()["state"] == "voided"
    assert [e["action"] for e in voided.json()["audit"]] == ["report", "confirm", "correct", "void"]


@pytest.mark.parametrize(
    ("which", "action", "who", "payload", "message"),
    [
        ("confirmed", "dispute", "bob", {"reason": "x"}, "This match is already confirmed"),
        ("confirmed", "cancel", "alice", {}, "This match is already confirmed"),
        ("disputed", "dispute", "charlie", {"reason": "again"}, "This match is disputed"),
        ("disputed", "confirm", "dave", {}, "This match is disputed"),
        (
            "pending",
            "resolve",
            "mod",
            {"decision": "void", "reason": "x"},
            "there is no open dispute",
        ),
        ("disputed", "void", "mod", {"reason": "x"}, "Resolve the dispute instead."),
        (
            "pending",
            "correct",
            "mod",
            {"games": [[21, 1], [21, 1]], "reason": "x"},
            "only a confirmed match",
        ),
    ],
)
def test_refused_transitions_are_409(
    season, alice, bob, charlie, dave, mod, which, action, who, payload, message
):
    users = {"alice": alice, "bob": bob, "charlie": charlie, "dave": dave, "mod": mod}
    match = season[which]
    with unchanged(match):
        response = api_client(users[who]).post(f"{detail(match)}{action}/", payload, format="json")
    assert response.status_code == 409
    assert message in response.json()["detail"]


def test_an_overdue_match_cannot_be_confirmed(ladder, alice, bob):
    match = reported_match(ladder, alice, [alice], [bob], now=timezone.now() - timedelta(days=8))
    with unchanged(match):
        response = api_client(bob).post(f"{detail(match)}confirm/")
    assert response.status_code == 409
    assert "expired unconfirmed" in response.json()["detail"]


@pytest.mark.parametrize(
    ("method", "url"),
    # PATCH is the reporter's change to a pending report (tests/matches/test_court_reports.py).
    [("get", "confirm/"), ("put", ""), ("delete", ""), ("get", "void/")],
)
def test_wrong_methods(season, mod, method, url):
    with unchanged(season["confirmed"]):
        response = getattr(api_client(mod), method)(
            f"{detail(season['confirmed'])}{url}", {}, format="json"
        )
    assert response.status_code == 405


# ---- inbox, players, predict ------------------------------------------------------------------


def test_inbox(season, alice, charlie, mod):
    anonymous = APIClient().get("/api/v1/inbox/")
    assert anonymous.status_code == 401
    data = api_client(alice).get("/api/v1/inbox/").json()
    assert data["count"] == 1
    assert [m["id"] for m in data["to_confirm"]] == [season["pending"].pk]
    assert data["to_confirm"][0]["allowed_actions"] == ["confirm", "dispute"]
    assert [m["id"] for m in data["my_pending"]] == [season["disputed"].pk]
    assert data["disputes"] == []
    assert [m["id"] for m in api_client(mod).get("/api/v1/inbox/").json()["disputes"]] == [
        season["disputed"].pk
    ]
    assert (
        api_client(charlie).get("/api/v1/inbox/").json()["my_pending"][0]["id"]
        == season["pending"].pk
    )


def names(response):
    assert response.status_code == 200
    return [p["username"] for p in response.json()]


def test_player_search(ladder, doubles, alice, bob, charlie, dave, outsider):
    api = api_client(alice)
    assert names(api.get("/api/v1/players/", {"search": "ar", "ladder": "singles"})) == [
        "alice",
        "charlie",
    ]
    assert names(api.get("/api/v1/players/", {"search": "CHEN"})) == ["charlie"]  # display name
    assert names(api.get("/api/v1/players/", {"ladder": "doubles"})) == [
        "alice",
        "bob",
        "charlie",
        "dave",
    ]
    assert names(api.get("/api/v1/players/", {"search": "dave", "ladder": "singles"})) == []
    assert names(api.get("/api/v1/players/", {"search": "olive"})) == []  # in no ladder
    assert api.get("/api/v1/players/", {"search": "a"}).json()[0] == {
        "username": "alice",
        "name": "Alice Archer",
    }
    assert api.get("/api/v1/players/bob/").json() == {"username": "bob", "name": "Bob Baker"}
    assert api.get("/api/v1/players/outsider/").status_code == 404


def test_player_search_is_capped(ladder):
    from tests.factories import UserFactory

    for n in range(12):
        MembershipFactory(ladder=ladder, user=UserFactory(username=f"sam{n:02d}"))
    assert len(names(APIClient().get("/api/v1/players/", {"search": "sam"}))) == 10


def test_unlisted_members_only_by_exact_username(ladder, alice, bob, mod):

    hide(user=bob)
    assert names(api_client(alice).get("/api/v1/players/", {"search": "bo"})) == []
    assert names(api_client(alice).get("/api/v1/players/", {"search": "bob"})) == ["bob"]
    assert names(api_client(mod).get("/api/v1/players/", {"search": "bo"})) == ["bob"]
    assert names(api_client(bob).get("/api/v1/players/", {"search": "bo"})) == ["bob"]


def test_predict(ladder, alice, bob, dave):
    expected = predictions.predict_sides(ladder, [alice], [bob], TODAY()).probability
    quality = predictions.predict_sides(ladder, [alice], [bob], TODAY()).quality
    assert 0 < quality <= 1
    got = APIClient().get(
        "/api/v1/predict/", {"ladder": "singles", "side_a": "alice", "side_b": "bob"}
    )
    assert got.status_code == 200
    assert got.json()["probability"] == pytest.approx(expected)
    assert got.json()["quality"] == pytest.approx(quality)
    assert [p["username"] for p in got.json()["stakes"]["players"]] == ["alice", "bob"]
    posted = api_client(alice).post(
        "/api/v1/predict/",
        {"ladder": "singles", "side_a": ["alice"], "side_b": ["bob"]},
        format="json",
    )
    assert posted.json()["probability"] == pytest.approx(expected)
    incomplete = APIClient().get("/api/v1/predict/", {"ladder": "singles", "side_a": "alice"})
    assert incomplete.json() == {"probability": None, "quality": None, "stakes": None}
    unknown = APIClient().get(
        "/api/v1/predict/", {"ladder": "singles", "side_a": "alice", "side_b": "zed"}
    )
    # Like a non-member: no answer says whether an account called zed exists.
    assert unknown.status_code == 200
    assert unknown.json() == {"probability": None, "quality": None, "stakes": None}
    # The ladder the answer is about, named in the query: none is a 404 (docs/API.md "Errors");
    # posted in a body, it is a field error.
    assert APIClient().get("/api/v1/predict/", {"ladder": "nope"}).status_code == 404
    assert (
        APIClient().post("/api/v1/predict/", {"ladder": "nope"}, format="json").status_code == 400
    )


def test_audit_entries_are_counted_once_per_api_call(season, mod):
    before = AuditEntry.objects.count()
    api_client(mod).post(f"{detail(season['confirmed'])}void/", {"reason": "x"}, format="json")
    assert AuditEntry.objects.count() == before + 1
