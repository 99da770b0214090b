"""Display names are unique across the site, compared case-, accent- and
confusable-insensitively (issue 22, What 6: a member renamed themself "Daniel Kim")."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.models import User
from accounts.names import name_key
from tests.factories import UserFactory

URL = reverse("profile")
DANIEL = "Daniel Kim"


@pytest.mark.parametrize(
    ("one", "other", "alike"),
    [
        ("Daniel Kim", "daniel kim", True),  # case
        ("Daniel Kim", "DANIEL  KIM", True),  # case, runs of spaces, capital I for l
        ("Daniel Kim", "Dániel Kim", True),  # accents
        ("Daniel Kim", "D\u0430niel Kim", True),  # a Cyrillic а
        ("Daniel Kim", "DanieI Kim", True),  # a capital I for the l
        ("Daniel Kim", "Daniel Kirn", True),  # rn for m
        ("Daniel Kim", "\U0001d403aniel Kim", True),  # a mathematical bold D
        ("Bob", "b0b", True),  # zero for O
        ("Daniel Kim", "Dana Kim", False),
        ("Alice Archer", "Alice Archer-Smith", False),
        ("Zoë", "Zoe", True),
        ("Ann", "Anna", False),
    ],
)
def test_names_alike(one: str, other: str, alike: bool) -> None:
    assert (name_key(one) == name_key(other)) is alike


@pytest.fixture
def daniel(db: None) -> User:
    return UserFactory(username="dkim", display_name=DANIEL)


@pytest.mark.parametrize("name", ["Daniel Kim", "daniel kim", "D\u0430niel Kim", "Dániel  Kirn"])
def test_a_member_cannot_take_anothers_name(client, alice, daniel, name):
    client.force_login(alice)
    response = client.post(URL, {"display_name": name})
    assert response.status_code == 200  # the form again, with the reason
    assert "Another member is already shown as" in response.content.decode()
    alice.refresh_from_db()
    assert alice.display_name == "Alice Archer"  # nothing saved


def test_nor_anothers_username(client, alice, bob):
    bob.display_name = ""
    bob.save(update_fields=["display_name"])
    client.force_login(alice)
    response = client.post(URL, {"display_name": "BOB"})
    assert "Another member is already shown as" in response.content.decode()
    alice.refresh_from_db()
    assert alice.display_name == "Alice Archer"


def test_your_own_name_in_other_letters_is_fine(client, alice, daniel):
    client.force_login(alice)
    response = client.post(URL, {"display_name": "ALICE ARCHER"})
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.display_name == "ALICE ARCHER"


def test_a_new_account_cannot_be_shown_as_an_existing_name(daniel):
    """Sign-up and the admin save through the model's checks (a username is the shown name
    of a member without a display name)."""
    newcomer = User(username="Daniel_Kim", email="new@example.org")
    newcomer.clean()  # a different username: fine
    for username in ("danielkim", "DanielKim"):
        User(username=username, email="n@example.org").clean()
    clash = User(username="new", email="new@example.org", display_name="daniel KIM")
    with pytest.raises(ValidationError) as raised:
        clash.clean()
    assert "display_name" in raised.value.message_dict
    UserFactory(username="zed", display_name="")
    with pytest.raises(ValidationError):
        User(username="ZED", email="z@example.org").clean()
