"""A member's home (issue 16 #3): today's rating, rank and change over the last week on each
of their ladders, what waits for them, and the latest results of their ladders."""

from __future__ import annotations

import time_machine

from ratings.models import PlayerRating, RatingChange
from ratings.pipeline import rate_ladder
from tests.factories import LadderFactory, hide
from tests.ratings.pages_support import NOON, TODAY, member, play, text_of


def home(client) -> str:  # type: ignore[no-untyped-def]
    response = client.get("/")
    assert response.status_code == 200
    return text_of(response.content.decode())


@time_machine.travel(NOON, tick=False)
def test_todays_rating_rank_and_week_and_the_latest_results(client, db):  # type: ignore[no-untyped-def]
    club = LadderFactory(name="Club Singles", slug="club")
    other = LadderFactory(name="Quiet Ladder", slug="quiet")
    ann, bea, cal = (
        member(club, name, display_name=name.title()) for name in ("ann", "bea", "cal")
    )
    member(other, "ann2")
    other.memberships.create(user=ann, initial_rating=5000.0, initial_rd=200.0)
    old = play(club, [ann], [bea], [(21, 10), (21, 12)], TODAY.replace(day=1))
    recent = play(club, [ann], [cal], [(21, 19), (21, 19)], TODAY)
    rate_ladder(club.pk)

    client.force_login(ann)
    text = home(client)
    row = PlayerRating.objects.get(ladder=club, user=ann)
    assert f"Club Singles {row.rating / 1000:.2f} ± " in text
    week = RatingChange.objects.get(match=recent, user=ann).change  # the 1st is 29 days ago
    assert f"▲{week / 1000:.2f}" in text
    assert "Quiet Ladder 5.00 ± 0.20 Not rated yet" in text
    # The latest results of her ladders, newest first, saying who won (issue 23).
    assert text.index("You beat Cal 21-19 21-19") < text.index("You beat Bea 21-10 21-12")
    assert old.pk and "Latest results" in text


@time_machine.travel(NOON, tick=False)
def test_a_hidden_member_stays_hidden_in_the_latest_results(client, db):  # type: ignore[no-untyped-def]
    club = LadderFactory(name="Club Singles", slug="club")
    ann, bea, cal = (
        member(club, name, display_name=name.title()) for name in ("ann", "bea", "cal")
    )
    play(club, [ann], [bea], [(21, 10), (21, 12)], TODAY)
    rate_ladder(club.pk)
    hide(ladder=club, user=bea)
    client.force_login(cal)
    text = home(client)
    assert "Ann beat Hidden player 21-10 21-12" in text and "Bea" not in text
    client.force_login(bea)  # she sees herself
    assert "Ann beat you 21-10 21-12" in home(client)
