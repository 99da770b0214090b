"""The match page says what the match did to each player's rating, and why (issue 16 #3)."""

from __future__ import annotations

import re

from ladder.matches import operations as matches
from ratings.models import RatingChange
from ratings.pipeline import rate_ladder
from tests.factories import UserFactory, hide, login
from tests.matches.support import doubles_match
from tests.ratings.pages_support import text_of


def page_text(client, match) -> str:  # type: ignore[no-untyped-def]
    response = client.get(f"/matches/{match.pk}/")
    assert response.status_code == 200
    return text_of(response.content.decode())


def test_each_players_change_with_its_explanation(client, doubles, alice, bob, charlie, dave):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    login(client, alice)
    assert "What it did to the ratings" not in page_text(client, match)  # pending: nothing yet
    matches.confirm_match(match, dave)
    text = page_text(client, match)
    assert "The ratings are being updated" in text  # confirmed, the worker not done yet
    rate_ladder(doubles.pk)
    text = page_text(client, match)
    assert "What it did to the ratings" in text
    for player in (alice, bob, charlie, dave):
        change = RatingChange.objects.get(match=match, user=player)
        before, after = f"{change.rating_before / 1000:.2f}", f"{change.rating_after / 1000:.2f}"
        assert f"{player.name} : {before} → {after}" in text
        arrow = "▲" if change.change > 0 else "▼"
        assert f"{arrow}{abs(change.change) / 1000:.2f}" in text
    # Every row is explained: what was expected, the result, what the margin did.
    assert len(re.findall(r"\d+% chance to win, (?:won 21-15 21-18|lost 15-21 18-21)", text)) == 4


def test_a_hidden_player_stays_hidden_on_the_match_page(client, doubles, alice, bob, charlie, dave):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    matches.confirm_match(match, dave)
    rate_ladder(doubles.pk)
    hide(ladder=doubles, user=bob)
    outsider = UserFactory(username="watcher")
    doubles.memberships.create(user=outsider, initial_rating=4500.0, initial_rd=250.0)
    login(client, outsider)
    text = page_text(client, match)
    assert "Bob Baker" not in text and "Hidden player :" in text
    login(client, charlie)  # a player of the match sees every name on it
    assert "Bob Baker :" in page_text(client, match)
