"""Issue 37.6: the challenge form's type-ahead offers neither oneself nor a member away; the
report form's still finds a member now away (a match played before they left)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from ladder.clubs.services import set_away

pytestmark = pytest.mark.django_db


def test_the_challenge_type_ahead_leaves_out_those_away_and_oneself(
    client, ladder, alice, bob, charlie
) -> None:  # type: ignore[no-untyped-def]
    set_away(bob, ladder, timezone.localdate() + timedelta(days=10))
    client.force_login(alice)
    form = client.get(reverse("ladder:challenge", args=[ladder.slug])).content.decode()
    assert '"available": "1"' in form  # the form's boxes ask for those one may play

    search = reverse("ladder:player_search", args=[ladder.slug])
    offered = client.get(
        search, {"slot": "opponent_1", "q": "a", "available": "1"}
    ).content.decode()
    assert "Charlie Chen" in offered
    assert "Bob Baker" not in offered and "Alice Archer" not in offered
    assert "available=1" in offered  # a pick keeps asking the same way

    reporting = client.get(search, {"slot": "opponent_1", "q": "b"}).content.decode()
    assert "Bob Baker" in reporting

    set_away(bob, ladder, None)
    back = client.get(search, {"slot": "opponent_1", "q": "b", "available": "1"}).content.decode()
    assert "Bob Baker" in back
