"""A button's address visited, or pressed after the session ended (core.refusals.form_action).

Before: a visit got an empty 405, and a signed-out press (a session that expired at the
court) went to the sign-in page, which then returned to the button's address: an empty
page, and the confirm never happened.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from core.refusals import FORM_ACTION_MESSAGE
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

# Every POST-only page of the site; the view never runs for these requests, so the objects
# they name need not exist.
BUTTONS = [
    ("away", ["singles"]),
    ("match_confirm", [5]),
    ("match_cancel", [5]),
    ("integrity_ban", ["singles"]),
    ("integrity_lift", ["singles", "ben"]),
    ("integrity_decide", ["singles", 3]),
    ("report_validate", ["singles"]),
    ("notifications_read_all", []),
    ("challenge_action", [7, "accept"]),
    ("club_night_propose", ["singles"]),
    ("club_night_start_over", ["singles"]),
    ("club_night_add_guest", ["singles"]),
    ("club_night_remove_guest", ["singles"]),
]


def url(name, args):
    return reverse(f"ladder:{name}" if name in LADDER_NAMES else name, args=args)


LADDER_NAMES = {
    "away",
    "integrity_ban",
    "integrity_lift",
    "integrity_decide",
    "report_validate",
    "club_night_propose",
    "club_night_start_over",
    "club_night_add_guest",
    "club_night_remove_guest",
}


@pytest.mark.parametrize(("name", "args"), BUTTONS)
@pytest.mark.parametrize("signed_in", [False, True])
def test_a_visit_says_nothing_was_changed(client, name, args, signed_in):
    if signed_in:
        client.force_login(UserFactory())
    response = client.get(url(name, args))
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert FORM_ACTION_MESSAGE in response.content.decode()


@pytest.mark.parametrize(("name", "args"), BUTTONS)
def test_a_signed_out_press_signs_in_back_to_the_page_of_the_button(client, name, args):
    response = client.post(url(name, args), HTTP_REFERER="http://testserver/matches/5/?tab=a")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/matches/5/%3Ftab%3Da"


def test_a_foreign_or_missing_referer_returns_to_the_start_page(client):
    confirm = reverse("match_confirm", args=[5])
    for headers in ({"HTTP_REFERER": "https://evil.example/matches/5/"}, {}):
        response = client.post(confirm, **headers)
        assert response["Location"] == "/accounts/login/?next=/"
