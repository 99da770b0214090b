"""Issue 23's bugs of the report form, seen through the pages (the browser tests repeat 1, 2
and 4 in Chromium): each test reproduced its bug on main before the fix."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from ladder.matches.models import Match
from tests.factories import MembershipFactory, UserFactory, reported_match
from tests.matches.support import unchanged

HX = {"HTTP_HX_REQUEST": "true"}


def report_url(slug: str = "singles") -> str:
    return reverse("ladder:report", args=[slug])


def validate_url(slug: str = "singles") -> str:
    return reverse("ladder:report_validate", args=[slug])


def singles_report(**overrides):  # type: ignore[no-untyped-def]
    data = {
        "played_on": timezone.localdate().isoformat(),
        "opponent_1": "charlie",
        "game_a": ["21", "21"],
        "game_b": ["15", "18"],
    }
    data.update(overrides)
    return data


def text_of(response) -> str:  # type: ignore[no-untyped-def]
    return html.unescape(response.content.decode())


# ---- 1. the opponent picker -----------------------------------------------------------------


def test_a_full_name_typed_without_picking_it_reports_the_match(client, ladder, alice, charlie):
    client.force_login(alice)
    response = client.post(report_url(), singles_report(opponent_1="Charlie Chen"))
    assert response.status_code == 302
    match = Match.objects.with_details().get()
    assert [u.username for u in match.side_b_players] == ["charlie"]
    # Any case, as people type it (another day: not a duplicate).
    yesterday = (timezone.localdate() - timedelta(days=1)).isoformat()
    response = client.post(
        report_url(), singles_report(opponent_1="charlie chen", played_on=yesterday)
    )
    assert response.status_code == 302
    assert Match.objects.filter(players__user=charlie).count() == 2


def test_a_name_two_members_share_is_refused_without_guessing(client, ladder, alice, charlie):
    twin = UserFactory(username="charlie2", display_name="Charlie Chen")
    MembershipFactory(ladder=ladder, user=twin)
    client.force_login(alice)
    with unchanged():
        response = client.post(report_url(), singles_report(opponent_1="Charlie Chen"))
    assert response.status_code == 400
    assert "No member of Club Singles is called 'Charlie Chen'." in text_of(response)


def test_a_name_not_found_says_so_once_and_nothing_about_the_sides(client, ladder, alice):
    client.force_login(alice)
    with unchanged():
        response = client.post(validate_url(), singles_report(opponent_1="Tom Okafor"), **HX)
    page = text_of(response)
    assert page.count("No member of Club Singles is called 'Tom Okafor'.") == 1
    assert "needs exactly" not in page
    with unchanged():
        response = client.post(report_url(), singles_report(opponent_1="Tom Okafor"))
    page = text_of(response)
    assert response.status_code == 400
    assert page.count("No member of Club Singles is called 'Tom Okafor'.") == 1
    assert "needs exactly" not in page


def test_the_type_ahead_matches_word_by_word(client, ladder, alice):
    chloe = UserFactory(username="chloe", display_name="Chloé Dubois")
    MembershipFactory(ladder=ladder, user=chloe)
    client.force_login(alice)
    search = reverse("ladder:player_search", args=["singles"])
    for text in ("chloe", "Chloé D", "chloe d", "dubois chlo", "@chloe"):
        page = text_of(client.get(search, {"slot": "opponent_1", "q": text}))
        assert "@chloe" in page, text
    page = text_of(client.get(search, {"slot": "opponent_1", "q": "chloe x"}))
    assert "@chloe" not in page and "No member of Club Singles matches" in page


# ---- 2. the live check after tabbing past "Remove" -------------------------------------------


def test_the_live_check_ignores_a_row_button_sent_with_the_form(client, ladder, alice, charlie):
    client.force_login(alice)
    with unchanged():
        response = client.post(validate_url(), singles_report(remove_game="2"), **HX)
        also = client.post(validate_url(), singles_report(add_game="1"), **HX)
    for answer in (response, also):
        page = text_of(answer)
        assert answer.status_code == 200
        assert "not finished" not in page
        assert "<li>" not in page  # 21-15 21-18 against a member: nothing to complain about


# ---- 3. every error once ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("games", "message"),
    [
        ({"game_a": ["21", "21"], "game_b": ["", "18"]}, "Game 1: enter both scores."),
        ({"game_a": ["21", "x"], "game_b": ["15", "18"]}, "Game 2: points are whole numbers"),
    ],
)
def test_each_form_error_shows_once(client, ladder, alice, charlie, games, message):
    client.force_login(alice)
    with unchanged():
        response = client.post(report_url(), singles_report(**games))
    assert response.status_code == 400
    assert text_of(response).count(message) == 1


# ---- 7. a negative score -----------------------------------------------------------------------


def test_a_negative_score_names_the_number(client, ladder, alice, charlie):
    client.force_login(alice)
    with unchanged():
        response = client.post(report_url(), singles_report(game_b=["-5", "18"]))
    page = text_of(response)
    assert response.status_code == 400
    assert "Game 1: -5 is not a score: points cannot be negative." in page
    assert "21--5" not in page


# ---- 7. the inbox's "To confirm" count after a confirm ------------------------------------------


def test_the_to_confirm_count_reloads_after_a_confirm(client, doubles, alice, bob, charlie, dave):
    first = reported_match(doubles, alice, [alice, bob], [charlie, dave])
    reported_match(doubles, alice, [alice, bob], [charlie, dave], games=[(21, 10), (21, 12)])
    client.force_login(charlie)
    page = client.get(reverse("inbox")).content.decode()
    heading = re.search(r'<span id="to-confirm-count"[^>]*hx-trigger="([^"]+)"', page)
    assert heading is not None and heading.group(1) == "inbox-changed from:body"
    assert 'title="2 matches to confirm">2<' in page
    response = client.post(reverse("match_confirm", args=[first.pk]), **HX)
    assert "inbox-changed" in response["HX-Trigger"]
    count = client.get(reverse("inbox_badge"), {"where": "heading"}).content.decode()
    assert count.strip().startswith('<span id="to-confirm-count"')
    assert 'title="1 match to confirm">1<' in count
