"""Issue 23: "Provisional" says how many more matches until ranked (RATINGS.md §8)."""

from __future__ import annotations

import html
import re

from django.urls import reverse

from ladder.matches import operations
from ratings.pipeline import rate_ladder
from ratings.templatetags.rating_tags import to_be_ranked
from tests.factories import reported_match


def words(response) -> str:  # type: ignore[no-untyped-def]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def test_a_provisional_player_reads_how_many_matches_are_missing(client, ladder, alice, bob):
    for games in ([(21, 15), (21, 18)], [(21, 10), (21, 12)]):
        operations.confirm_match(reported_match(ladder, alice, [alice], [bob], games=games), bob)
    rate_ladder(ladder.pk)
    assert ladder.ranked_min_matches == 5
    board = words(client.get(ladder.get_absolute_url()))
    assert board.count("3 more matches to be ranked") == 2  # alice and bob, 2 matches each
    player = words(client.get(reverse("ratings:player", args=["alice"])))
    assert "Provisional 3 more matches to be ranked" in player


def test_the_words_for_one_match_and_for_an_rd_still_too_high(ladder):
    assert to_be_ranked(4, ladder) == "1 more match to be ranked"
    assert to_be_ranked(0, ladder) == "5 more matches to be ranked"
    assert to_be_ranked(9, ladder) == "± above 0.12: closer-rated opponents lower it most"
