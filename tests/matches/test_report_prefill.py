"""The report form fills in players from a club-night link (?side_a=…&side_b=…)."""

from __future__ import annotations

from django.urls import reverse


def test_players_are_filled_in_from_your_side_and_the_other(
    client, doubles, alice, bob, charlie, dave
) -> None:  # type: ignore[no-untyped-def]
    client.force_login(charlie)
    url = reverse("ladder:report", args=[doubles.slug])
    page = client.get(url, {"side_a": "alice,bob", "side_b": "dave,charlie"}).content.decode()
    # charlie is on side B: dave is the partner, alice and bob the opponents.
    assert page.index('value="dave"') < page.index('value="alice"') < page.index('value="bob"')


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
