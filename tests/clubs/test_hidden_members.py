"""One visibility rule for hidden members (issue 15 #4): a member who unticked "show me on
the leaderboard" appears to no visitor and no other member, on match pages, in the matches
API and its ?player= filter, in club night; they do appear to themselves, to moderators, and
to the players of their own matches."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse
from django.utils import timezone

from ladder.clubs.access import HIDDEN_PLAYER_NAME
from ladder.matches import operations as matches
from tests.factories import hide, login, reported_match
from tests.matches.support import API, api_client

HIDDEN = ("alice", "Alice Archer")


@pytest.fixture
def played(ladder, alice, bob, charlie, django_capture_on_commit_callbacks):
    """Alice, now hidden, played Bob; Charlie plays Bob too."""
    with django_capture_on_commit_callbacks(execute=True):
        hers = matches.confirm_match(reported_match(ladder, alice, [alice], [bob]), bob)
        other = matches.confirm_match(reported_match(ladder, charlie, [charlie], [bob]), bob)
    hide(user=alice, ladder=ladder)
    return hers, other


def _viewer(request, name):
    return AnonymousUser() if name == "visitor" else request.getfixturevalue(name)


def _page(client, user, url):
    if user.is_authenticated:
        login(client, user)
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("who", ["visitor", "charlie"])
def test_a_hidden_member_appears_nowhere_to_others(request, who, played, ladder, client, mod):
    viewer = _viewer(request, who)
    hers, _ = played
    page = _page(client, viewer, reverse("match_detail", args=[hers.pk]))
    assert HIDDEN_PLAYER_NAME in page and "Bob Baker" in page
    assert not any(text in page for text in HIDDEN)

    api = api_client(viewer)
    listed = api.get(API).content.decode()
    assert "Bob Baker" in listed and not any(text in listed for text in HIDDEN)
    detail = api.get(f"{API}{hers.pk}/").json()
    assert detail["reporter"] is None
    assert detail["side_a"][0]["username"] is None
    assert detail["side_a"][0]["name"] == HIDDEN_PLAYER_NAME
    assert not any(text in str(detail) for text in HIDDEN), str(detail)
    # The filter does not reveal which matches she played.
    assert api.get(API, {"player": "alice"}).json()["count"] == 0
    assert api.get(API, {"player": "bob"}).json()["count"] == 2


@pytest.mark.parametrize("who", ["alice", "mod", "bob"])
def test_she_appears_to_herself_moderators_and_her_opponent(request, who, played, client):
    viewer = _viewer(request, who)
    hers, _ = played
    page = _page(client, viewer, reverse("match_detail", args=[hers.pk]))
    assert "Alice Archer" in page
    detail = api_client(viewer).get(f"{API}{hers.pk}/").json()
    assert detail["side_a"][0]["username"] == "alice"
    assert detail["reporter"] == "alice"


@pytest.mark.parametrize(("who", "count"), [("alice", 1), ("mod", 1)])
def test_the_player_filter_finds_her_matches_for_herself_and_moderators(
    request, who, count, played
):
    viewer = _viewer(request, who)
    assert api_client(viewer).get(API, {"player": "alice"}).json()["count"] == count


def test_club_night_lists_her_only_to_herself_and_moderators(
    ladder, alice, bob, charlie, mod, client
):
    hide(user=alice, ladder=ladder)
    url = reverse("ladder:club_night", args=[ladder.slug])
    assert not any(text in _page(client, charlie, url) for text in HIDDEN)
    assert "Alice Archer" in _page(client, alice, url)
    assert "Alice Archer" in _page(client, mod, url)


def test_club_night_rounds_name_her_only_to_herself_and_moderators(
    ladder, alice, bob, charlie, mod, client
):
    from ladder.clubs.models import Membership
    from tests.factories import MembershipFactory, UserFactory

    for name in ("dave", "erin"):
        MembershipFactory(ladder=ladder, user=UserFactory(username=name))
    erin = UserFactory(username="erin")  # a member who is not in the hall tonight
    url = reverse("ladder:club_night", args=[ladder.slug])
    propose = reverse("ladder:club_night_propose", args=[ladder.slug])
    login(client, mod)
    response = client.post(propose, {"present": ["alice", "bob", "charlie", "dave"]})
    assert response.status_code == 302
    hide(user=alice, ladder=ladder)
    assert Membership.objects.get(user=alice, ladder=ladder).is_public is False
    client.logout()
    page = _page(client, erin, url)
    assert HIDDEN_PLAYER_NAME in page
    assert not any(text in page for text in HIDDEN)
    assert "0.00" not in page  # no made-up rating beside "Hidden player"
    client.logout()
    assert "Alice Archer" in _page(client, mod, url)


def test_a_round_another_member_proposes_keeps_a_present_hidden_member(
    ladder, alice, bob, charlie, client
):
    from ladder.clubnight.services import tonight
    from tests.factories import MembershipFactory, UserFactory

    dave = UserFactory(username="dave")
    MembershipFactory(ladder=ladder, user=dave)
    hide(user=alice, ladder=ladder)
    url = reverse("ladder:club_night", args=[ladder.slug])
    propose = reverse("ladder:club_night_propose", args=[ladder.slug])
    login(client, alice)  # she ticks herself and Bob
    assert client.post(propose, {"present": ["alice", "bob"]}).status_code == 302
    client.logout()
    login(client, charlie)  # Charlie cannot see her, and ticks who he sees
    page = _page(client, charlie, url)
    assert "1 more present who chose not to be listed" in page and "Alice Archer" not in page
    assert client.post(propose, {"present": ["bob", "charlie", "dave"]}).status_code == 302
    night = tonight(ladder, timezone.localdate())
    assert set(night.present) == {"alice", "bob", "charlie", "dave"}


def test_the_player_search_finds_her_exact_username_for_members_only(
    ladder, alice, charlie, client
):
    hide(user=alice, ladder=ladder)
    url = f"/api/v1/players/?ladder={ladder.slug}&search=alice"
    assert client.get(url).json() == []  # a visitor
    login(client, charlie)  # a member reporting a match against her names her exactly
    assert [p["username"] for p in client.get(url).json()] == ["alice"]
    assert client.get(f"/api/v1/players/?ladder={ladder.slug}&search=alic").json() == []
