"""The access policy as a table (issue 22, ladder/clubs/access.py): every kind of viewer
against every surface, on one club where Alice is a hidden member.

The club: the public singles ladder, where Alice (hidden), Bob and Charlie play; Alice
reported a match against Bob, Bob disputed it ("the second game was 19-21") and a moderator
upheld it ("Both agreed in the hall"); Charlie beat Bob; Alice has a report against Bob still
waiting. Dave plays only on another public ladder. The private ladder "Squad" has Alice alone.

Viewers: a visitor; Charlie, a member who never played her; Dave, a member of another
ladder; Alice herself; Bob, her opponent; a moderator; a superuser; Charlie again through an
API token (on the pages, which take no token, a token client is a visitor).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken
from ladder.clubs import access
from ladder.matches import operations as matches
from ratings.imports import export_matches, export_ratings
from tests.factories import LadderFactory, MembershipFactory, UserFactory, hide, reported_match

VIEWERS = ("visitor", "member", "other", "hidden", "opponent", "moderator", "superuser", "token")
WHO = {
    "member": "charlie",
    "other": "dave",
    "hidden": "alice",
    "opponent": "bob",
    "moderator": "mod",
    "superuser": "root",
    "token": "charlie",
}
SEES_HER = {"hidden", "moderator", "superuser"}  # listed: ratings, rows, numbers
NAMES_HER = SEES_HER | {"opponent"}  # on the match they played


def _by(rule: set[str], yes: Any, no: Any) -> dict[str, Any]:
    return {v: yes if v in rule else no for v in VIEWERS}


# surface → viewer → what that viewer gets.
TABLE: dict[str, dict[str, Any]] = {
    # The ladder page and the leaderboard API list her?
    "ladder page": _by(SEES_HER, True, False),
    "leaderboard api": _by(SEES_HER, True, False),
    # A private ladder exists only for its members and moderators.
    "private ladder page": _by(SEES_HER, 200, 404),
    "private ladder api": _by(SEES_HER, 200, 404),
    # Her player page and rating history.
    "player page": _by(SEES_HER, 200, 404),
    "player api": _by(SEES_HER, 200, 404),
    # A prediction with her in it (a name one may not see answers like an unknown one).
    "predict api": _by(SEES_HER, True, False),
    # Head-to-head with her: the record, or "no member is called".
    "head-to-head page": _by(SEES_HER, 200, 400),
    # The report form filled in from a club-night link with her in it: (status, prediction).
    "report prefill": {
        "visitor": (302, False),
        "member": (200, False),
        "other": (403, False),
        "hidden": (200, True),  # she reports against Bob
        "opponent": (200, False),  # he may name her, not see her rating
        "moderator": (403, False),  # not a member of the ladder
        "superuser": (403, False),
        "token": (302, False),
    },
    # Club night's API with her present: her rating, or "no member is called alice".
    "club night api": {
        "visitor": 401,
        "member": 400,
        "other": 403,
        "hidden": 200,
        "opponent": 400,
        "moderator": 200,
        "superuser": 200,
        "token": 400,
    },
    # The club night page: (status, is she on the list to tick).
    "club night page": {
        "visitor": (302, False),
        "member": (200, False),
        "other": (403, False),
        "hidden": (200, True),
        "opponent": (200, False),
        "moderator": (200, True),
        "superuser": (200, True),
        "token": (302, False),
    },
    # Her disputed match: (her name shown, the reasons and audit shown).
    "match page": {
        **_by(NAMES_HER, (True, True), (False, False)),
        "token": (False, False),
    },
    "match api": _by(NAMES_HER, (True, True), (False, False)),
    # The matches API's ?player=alice: how many of her matches it admits to.
    "matches api ?player": _by(SEES_HER, 2, 0),
    # The inbox names her: her own report, Bob's match to confirm.
    "inbox": {
        **_by({"hidden", "opponent"}, (200, True), (200, False)),
        "visitor": (302, False),
        "token": (302, False),
    },
    "inbox api": {
        **_by({"hidden", "opponent"}, (200, True), (200, False)),
        "visitor": (401, False),
    },
    # Finding her by part of her name (the API's players, the report form's type-ahead).
    "search api": _by(SEES_HER, True, False),
    "autocomplete": {
        **_by({"moderator", "superuser"}, (200, True), (200, False)),  # not yourself
        "visitor": (302, False),
        "token": (302, False),
    },
}


@pytest.fixture
def club(
    ladder, alice, bob, charlie, dave, mod, private_ladder, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    UserFactory(username="root", display_name="Rita Root", is_superuser=True, is_staff=True)
    MembershipFactory(ladder=LadderFactory(name="Other Singles", slug="other"), user=dave)
    with django_capture_on_commit_callbacks(execute=True):
        hers = reported_match(ladder, alice, [alice], [bob])
        matches.dispute_match(hers, bob, "the second game was 19-21")
        matches.resolve_dispute(hers, mod, "uphold", "Both agreed in the hall")
        matches.confirm_match(reported_match(ladder, charlie, [charlie], [bob]), bob)
        reported_match(ladder, alice, [alice], [bob], games=[(21, 5), (21, 7)])
    hide(user=alice, ladder=ladder)
    return hers


def _clients(viewer: str) -> tuple[Client, APIClient]:
    """A browser and an API client as ``viewer``: signed in with the session, or (the token
    client) an API token, which the pages do not take."""
    from accounts.models import User

    page, api = Client(), APIClient()
    name = WHO.get(viewer)
    if name is None:
        return page, api
    user = User.objects.get(username=name)
    if viewer == "token":
        _, secret = ApiToken.objects.create(user=user)
        api.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
        page.defaults["HTTP_AUTHORIZATION"] = f"Token {secret}"
        return page, api
    page.force_login(user)
    api.force_login(user)
    return page, api


def _seen(viewer: str, club: Any) -> dict[str, Any]:
    """What ``viewer`` gets from every surface."""
    page, api = _clients(viewer)
    me = WHO.get(viewer, "")
    got: dict[str, Any] = {}

    text = page.get("/ladders/singles/").content.decode()
    got["ladder page"] = "Alice Archer" in text
    rows = api.get("/api/v1/ladders/singles/leaderboard/").json()["results"]
    got["leaderboard api"] = "alice" in [r["username"] for r in rows]
    got["private ladder page"] = page.get("/ladders/squad/").status_code
    got["private ladder api"] = api.get("/api/v1/ladders/squad/").status_code
    got["player page"] = page.get("/players/alice/").status_code
    got["player api"] = api.get("/api/v1/players/alice/history/").status_code
    predicted = api.get(
        "/api/v1/predict/", {"ladder": "singles", "side_a": "alice", "side_b": "bob"}
    )
    got["predict api"] = predicted.json()["probability"] is not None
    got["head-to-head page"] = page.get("/ladders/singles/head-to-head/?a=alice&b=bob").status_code

    lineup = (
        {"side_a": "alice", "side_b": "bob"} if me == "alice" else {"side_a": me, "side_b": "alice"}
    )
    report = page.get("/ladders/singles/report/", lineup)
    got["report prefill"] = (report.status_code, "chance that" in report.content.decode())

    present = ["alice", "bob"] if me in ("alice", "bob", "mod", "root") else [me, "alice"]
    answer = api.post("/api/v1/ladders/singles/club-night/", {"present": present}, format="json")
    got["club night api"] = answer.status_code
    if answer.status_code == 400:
        assert answer.json() == {"present": ["No member of Club Singles is called alice."]}
    night = page.get("/ladders/singles/club-night/")
    got["club night page"] = (night.status_code, "Alice Archer" in night.content.decode())

    shown = page.get(f"/matches/{club.pk}/").content.decode()
    got["match page"] = ("Alice Archer" in shown, "Both agreed in the hall" in shown)
    detail = api.get(f"/api/v1/matches/{club.pk}/").json()
    record = detail["disputes"] is not None and detail["audit"] is not None
    if record:
        assert detail["disputes"][0]["resolution_reason"] == "Both agreed in the hall"
    got["match api"] = (detail["side_a"][0]["username"] == "alice", record)
    got["matches api ?player"] = api.get("/api/v1/matches/", {"player": "alice"}).json()["count"]

    inbox = page.get("/inbox/")
    got["inbox"] = (inbox.status_code, "Alice Archer" in inbox.content.decode())
    inbox_api = api.get("/api/v1/inbox/")
    got["inbox api"] = (inbox_api.status_code, "Alice Archer" in inbox_api.content.decode())

    found = api.get("/api/v1/players/", {"search": "Ali", "ladder": "singles"}).json()
    got["search api"] = "alice" in [p["username"] for p in found]
    typed = page.get("/ladders/singles/players/", {"q": "Ali"})
    got["autocomplete"] = (typed.status_code, "Alice Archer" in typed.content.decode())
    return got


@pytest.mark.parametrize("viewer", VIEWERS)
def test_every_viewer_against_every_surface(viewer: str, club: Any) -> None:
    got = _seen(viewer, club)
    expected = {surface: row[viewer] for surface, row in TABLE.items()}
    wrong = {s: (got[s], expected[s]) for s in TABLE if got[s] != expected[s]}
    assert not wrong, f"{viewer}: surface → (got, expected): {wrong}"


def test_the_table_covers_every_viewer_on_every_surface() -> None:
    assert all(set(row) == set(VIEWERS) for row in TABLE.values())


def test_exports_are_the_operators_and_name_everyone(club: Any, ladder: Any) -> None:
    """Exports are run by the club's operator (``access.OPERATOR``), who sees everyone."""
    assert access.OPERATOR.sees_everyone
    assert "Alice Archer" in export_matches(ladder) and "Alice Archer" in export_ratings(ladder)
