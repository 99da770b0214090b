"""The report form fills in players from a club-night link (?side_a=…&side_b=…)."""

from __future__ import annotations

import re

from django.urls import reverse

from tests.factories import hide


def test_players_are_filled_in_from_your_side_and_the_other(
    client, doubles, alice, bob, charlie, dave
) -> None:  # type: ignore[no-untyped-def]
    client.force_login(charlie)
    url = reverse("ladder:report", args=[doubles.slug])
    page = client.get(url, {"side_a": "alice,bob", "side_b": "dave,charlie"}).content.decode()
    # charlie is on side B: dave is the partner, alice and bob the opponents.
    assert page.index('value="dave"') < page.index('value="alice"') < page.index('value="bob"')
    # Each chip names its member, as a pick from the type-ahead does.
    for slot, name in [("partner_1", "Dave"), ("opponent_1", "Alice"), ("opponent_2", "Bob")]:
        assert re.search(rf'<span class="picked" id="picked-{slot}">✓ {name} \w+</span>', page)


def test_a_hidden_player_s_chip_stays_empty_as_after_a_pick(
    client, doubles, alice, bob, charlie, dave
) -> None:  # type: ignore[no-untyped-def]
    # The access policy: charlie may name bob (the username), not read his hidden name.
    hide(user=bob)
    client.force_login(charlie)
    url = reverse("ladder:report", args=[doubles.slug])
    page = client.get(url, {"side_a": "alice,bob", "side_b": "dave,charlie"}).content.decode()
    assert 'value="bob"' in page
    assert '<span class="picked" id="picked-opponent_2"></span>' in page
    assert re.search(r'<span class="picked" id="picked-opponent_1">✓ Alice \w+</span>', page)
    picked = client.get(
        reverse("ladder:player_search", args=[doubles.slug]),
        {"slot": "opponent_2", "label": "Opponent 2", "pick": "bob"},
    ).content.decode()
    assert '<span class="picked" id="picked-opponent_2"></span>' in picked


def test_a_lineup_you_are_not_in_fills_nothing_and_says_why(
    client, doubles, alice, bob, charlie, dave, mod
) -> None:  # type: ignore[no-untyped-def]
    from tests.factories import MembershipFactory

    MembershipFactory(ladder=doubles, user=mod)
    client.force_login(mod)
    url = reverse("ladder:report", args=[doubles.slug])
    page = client.get(url, {"side_a": "alice,bob", "side_b": "charlie,dave"}).content.decode()
    assert "You are not in that match: one of its players reports it." in page
    assert 'value="alice"' not in page and 'value="charlie"' not in page
