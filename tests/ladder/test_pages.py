"""Home, the ladder list and a ladder's page: who sees what."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import hide

HOME = reverse("home")
LIST = reverse("ladder:list")


def detail(slug="singles"):
    return reverse("ladder:detail", args=[slug])


def test_addresses():
    assert (HOME, LIST, detail()) == ("/", "/ladders/", "/ladders/singles/")


def test_visitor_sees_public_ladders_only(client, alice, bob, private_ladder):
    for url in (HOME, LIST):
        response = client.get(url)
        assert response.status_code == 200
        page = response.content.decode()
        assert "Club Singles" in page
        assert "Squad" not in page
        assert "Log in to join" in page
    assert client.get(detail("squad")).status_code == 404


def test_list_cards(client, alice, bob, charlie):
    page = client.get(LIST).content.decode()
    assert "Badminton to 21, best of 3" in page
    assert "Singles" in page
    assert '<dd id="members-singles">3</dd>' in page  # members


def test_member_sees_their_private_ladder_and_member_tags(client, alice, private_ladder):
    client.force_login(alice)
    page = client.get(LIST).content.decode()
    assert "Squad" in page and "Private" in page
    assert page.count("✓ Member") == 2
    assert client.get(detail("squad")).status_code == 200


def test_outsider_sees_public_ladders_with_join_buttons(client, outsider, alice, private_ladder):
    client.force_login(outsider)
    page = client.get(LIST).content.decode()
    assert "Squad" not in page
    assert 'hx-get="/ladders/singles/join/"' in page
    assert 'href="/ladders/singles/join/"' in page  # works without JS too
    assert client.get(detail("squad")).status_code == 404


def test_moderator_sees_every_ladder(client, mod, private_ladder):
    client.force_login(mod)
    page = client.get(LIST).content.decode()
    assert "Squad" in page and "Club Singles" in page
    assert client.get(detail("squad")).status_code == 200


def test_empty_list(client, db):
    page = client.get(LIST).content.decode()
    assert "The club has no ladders yet." in page


def test_ladder_page_details_and_members(client, alice, bob, charlie):
    response = client.get(detail())
    assert response.status_code == 200
    page = response.content.decode()
    assert "Best of 3 games to 21, win by 2, capped at 30" in page
    assert "Composite opponent" in page
    assert "Report a match within 14 days" in page
    assert "within 7 days" in page
    # Members with starting ratings as x.xx, highest first.
    assert page.index("Alice Archer") < page.index("Bob Baker") < page.index("Charlie Chen")
    assert "5.00" in page and "4.50" in page and "4.00" in page
    assert "Level 5.0, league-rated" in page
    assert "Sign up" in page


def test_hidden_members_are_listed_only_for_themselves_and_moderators(
    client, alice, bob, mod, ladder
):
    hide(user=bob)
    assert "Bob Baker" not in client.get(detail()).content.decode()
    client.force_login(alice)
    assert "Bob Baker" not in client.get(detail()).content.decode()
    client.force_login(bob)
    page = client.get(detail()).content.decode()
    assert "Bob Baker" in page and "Hidden" in page and "You are hidden" in page
    client.force_login(mod)
    assert "Bob Baker" in client.get(detail()).content.decode()


def test_ladder_page_for_a_member_and_a_non_member(client, alice, outsider):
    client.force_login(alice)
    page = client.get(detail()).content.decode()
    assert "You're a member" in page
    assert "Join this ladder" not in page
    client.force_login(outsider)
    page = client.get(detail()).content.decode()
    assert "Join this ladder" in page and 'name="level"' in page


def test_home_summarises_your_ladders(client, alice, private_ladder):
    client.force_login(alice)
    page = client.get(HOME).content.decode()
    assert "Hello, Alice Archer" in page
    assert "Your ladders" in page
    assert "5.00" in page


def test_home_for_a_new_member(client, outsider, ladder):
    client.force_login(outsider)
    assert "You have not joined a ladder yet." in client.get(HOME).content.decode()


def test_unknown_ladder_is_404(client, db):
    assert client.get(detail("nope")).status_code == 404


@pytest.mark.parametrize("url", [HOME, LIST, "/ladders/singles/"])
@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_pages_are_read_only(client, ladder, url, method):
    assert getattr(client, method)(url).status_code == 405


def test_list_query_count_does_not_grow_with_ladders(
    client, django_assert_max_num_queries, outsider
):
    from tests.factories import LadderFactory, MembershipFactory

    for n in range(6):
        ladder = LadderFactory(name=f"L{n}", slug=f"l{n}")
        MembershipFactory(ladder=ladder)
    client.force_login(outsider)
    with django_assert_max_num_queries(6):
        assert client.get(LIST).status_code == 200
