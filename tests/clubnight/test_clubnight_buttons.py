"""The club night page's buttons, one address each (issue 38): propose a round, start over,
add a guest, remove a guest. Each takes a POST only: a visit is refused (405) and changes
nothing; a bad input is refused, says why, and changes nothing."""

from __future__ import annotations

from html import unescape

import pytest
from django.core.cache import cache
from django.urls import reverse

from accounts.models import User
from ladder.clubnight import services as clubnight
from ladder.clubnight.models import ClubNight
from ladder.clubs.models import Ladder

HX = {"HTTP_HX_REQUEST": "true"}

BUTTONS = [
    "club_night_propose",
    "club_night_start_over",
    "club_night_add_guest",
    "club_night_remove_guest",
]


@pytest.fixture(autouse=True)
def _no_throttle_history() -> None:
    cache.clear()


@pytest.fixture
def evening(ladder: Ladder, alice: User, bob: User, charlie: User) -> ClubNight:
    """Tonight with a guest and one round, started by Alice."""
    guest = clubnight.add_guest(ladder, alice, "Sam Visitor")
    night, _ = clubnight.add_round(ladder, alice, [alice, bob, charlie], guest_ids=[guest.id])
    return night


def stored(ladder: Ladder) -> list[dict]:
    return list(
        ClubNight.objects.filter(ladder=ladder).values(
            "date", "present", "rounds", "guests", "courts", "created_by"
        )
    )


def address(name: str, ladder: Ladder) -> str:
    return reverse(f"ladder:{name}", args=[ladder.slug])


@pytest.mark.parametrize("name", BUTTONS)
def test_a_visit_is_refused_and_changes_nothing(client, ladder, evening, alice, name) -> None:
    client.force_login(alice)
    before = stored(ladder)
    for headers in ({}, HX):
        response = client.get(address(name, ladder), **headers)
        assert response.status_code == 405
        assert response["Allow"] == "POST"
    assert stored(ladder) == before


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        (
            "club_night_propose",
            {"present": ["alice", "bob", "charlie"], "courts": "two"},
            "The number of courts is a whole number, not 'two'.",
        ),
        (
            "club_night_propose",
            {"present": ["alice", "bob", "nobody"]},
            "No member of Club Singles is called nobody.",
        ),
        ("club_night_add_guest", {"guest_name": "Bob Baker"}, "reads like the name of someone"),
        ("club_night_add_guest", {"guest_name": "  "}, "Give the guest a name"),
        ("club_night_remove_guest", {"remove_guest": "guest:99"}, "That guest is not on"),
        ("club_night_remove_guest", {}, "That guest is not on tonight's list."),
    ],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_a_bad_input_is_refused_and_changes_nothing(
    client, ladder, evening, alice, name, data, message, htmx
) -> None:
    client.force_login(alice)
    before = stored(ladder)
    response = client.post(address(name, ladder), data, **(HX if htmx else {}))
    assert response.status_code == 400
    assert message in unescape(response.content.decode())
    assert stored(ladder) == before


def test_start_over_with_no_round_to_forget_changes_nothing(client, ladder, alice) -> None:
    clubnight.add_guest(ladder, alice, "Sam Visitor")  # an evening, with no round yet
    client.force_login(alice)
    before = stored(ladder)
    for headers in ({}, HX):
        response = client.post(address("club_night_start_over", ladder), {}, **headers)
        assert response.status_code == 400
        assert "There is no round tonight to start over from." in unescape(
            response.content.decode()
        )
    assert stored(ladder) == before


@pytest.mark.parametrize("name", BUTTONS)
def test_an_outsider_is_refused_and_changes_nothing(client, ladder, evening, outsider, name):
    client.force_login(outsider)
    before = stored(ladder)
    data = {"present": ["alice", "bob", "charlie"], "guest_name": "Zed", "remove_guest": "guest:1"}
    response = client.post(address(name, ladder), data)
    assert response.status_code == 403
    assert "Only members of Club Singles and moderators" in response.content.decode()
    assert stored(ladder) == before


def test_the_page_sends_each_button_to_its_own_address(client, ladder, evening, alice) -> None:
    client.force_login(alice)
    page = client.get(reverse("ladder:club_night", args=[ladder.slug])).content.decode()
    for name in BUTTONS:
        assert f'formaction="{address(name, ladder)}"' in page, name
