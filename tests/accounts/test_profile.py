"""The profile edits your own display name and public flags, and nothing of anyone else's."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ladder.clubs.models import Membership

URL = reverse("profile")


def _membership(user, ladder):
    return Membership.objects.get(user=user, ladder=ladder)


@pytest.mark.django_db
def test_anonymous_is_sent_to_login(client):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={URL}"
    assert client.post(URL, {"display_name": "X"}).status_code == 302


def test_profile_page_lists_your_ladders(client, alice, private_ladder):
    client.force_login(alice)
    response = client.get(URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Club Singles" in page and "Squad" in page
    assert 'value="Alice Archer"' in page


def test_display_name_is_saved(client, alice, bob):
    client.force_login(alice)
    public = list(alice.memberships.values_list("pk", flat=True))
    response = client.post(URL, {"display_name": "Ace Alice", "public_memberships": public})
    assert response.status_code == 302
    alice.refresh_from_db()
    bob.refresh_from_db()
    assert alice.display_name == "Ace Alice"
    assert bob.display_name == "Bob Baker"


def test_public_flags_are_saved_for_your_memberships(client, alice, ladder, private_ladder):
    client.force_login(alice)
    squad = _membership(alice, private_ladder)
    response = client.post(URL, {"display_name": "Alice Archer", "public_memberships": [squad.pk]})
    assert response.status_code == 302
    assert _membership(alice, ladder).is_public is False
    assert _membership(alice, private_ladder).is_public is True

    client.post(URL, {"display_name": "Alice Archer"})
    assert not Membership.objects.filter(user=alice, is_public=True).exists()


def test_someone_elses_membership_cannot_be_changed(client, alice, bob, ladder):
    client.force_login(alice)
    bobs = _membership(bob, ladder)
    alices = _membership(alice, ladder)
    response = client.post(
        URL, {"display_name": "Changed", "public_memberships": [alices.pk, bobs.pk]}
    )
    assert response.status_code == 200
    assert "public_memberships" in response.context["form"].errors
    bobs.refresh_from_db()
    alice.refresh_from_db()
    assert bobs.is_public is True
    assert alice.display_name == "Alice Archer"  # nothing saved


def test_hiding_bob_via_an_unticked_box_is_impossible(client, alice, bob, ladder):
    # Alice's form only ever covers Alice's memberships: an empty list leaves Bob listed.
    client.force_login(alice)
    client.post(URL, {"display_name": "Alice Archer"})
    assert _membership(bob, ladder).is_public is True


def test_profile_without_memberships(client, outsider):
    client.force_login(outsider)
    response = client.get(URL)
    assert "Once you join a ladder" in response.content.decode()
    response = client.post(URL, {"display_name": "Olive O."})
    assert response.status_code == 302
    outsider.refresh_from_db()
    assert outsider.display_name == "Olive O."


def test_display_name_too_long_is_refused(client, outsider):
    client.force_login(outsider)
    response = client.post(URL, {"display_name": "x" * 61})
    assert response.status_code == 200
    outsider.refresh_from_db()
    assert outsider.display_name == "Olive Outsider"


def test_there_is_no_address_for_another_users_profile():
    from django.urls import NoReverseMatch

    with pytest.raises(NoReverseMatch):
        reverse("profile", args=["bob"])


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_wrong_methods_are_refused(client, alice, method):
    client.force_login(alice)
    assert getattr(client, method)(URL).status_code == 405
