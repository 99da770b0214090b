"""Bans compose (issue 36 item 5): a match two active bans reach is held by both, and lifting
one ban restores only what no other active ban withholds.

The case of the issue: X is banned from a date (withholding a match X v Y), then Y is banned
from all their matches (that match is withheld already), then X's ban is lifted: the match
must stay withheld, and every rating must be that of a replay without Y's matches (the
ratings of Y's ban alone). Both orders of lifting, and each end state exactly.
"""

from __future__ import annotations

import pytest

from ladder.integrity import bans
from ladder.integrity.models import BanVoid
from ladder.matches.models import Match
from tests.integrity.support import Club, changes_of, ratings_of

pytestmark = pytest.mark.django_db


def _shared(club: Club) -> tuple[Match, str, str]:
    """A rated match between two members, neither of them the cheat, and their usernames;
    the later the better, so that a ban from its date reaches little else."""
    for match in sorted(club.matches, key=lambda m: (m.played_on, m.pk), reverse=True):
        names = sorted(p.user.username for p in match.players.select_related("user"))
        if "cheat" not in names:
            return match, names[0], names[1]
    raise AssertionError("the club has no match without the cheat")


def _alone(club: Club, mod, name: str, since=None):  # type: ignore[no-untyped-def]
    """The ratings and changes with only ``name`` banned (then lifted again)."""
    bans.ban_member(club.ladder, mod, name, "Alone.", since)
    state = ratings_of(club.ladder), changes_of(club.ladder)
    bans.lift_ban(club.ladder, mod, name)
    return state


@pytest.mark.parametrize("lift_first", ["x", "y"])
def test_two_overlapping_bans_lift_in_either_order(club, mod, lift_first) -> None:
    match, x, y = _shared(club)
    original = ratings_of(club.ladder), changes_of(club.ladder)
    only_y = _alone(club, mod, y)
    only_x = _alone(club, mod, x, match.played_on)
    assert (ratings_of(club.ladder), changes_of(club.ladder)) == original
    assert only_x != original and only_y != original

    bans.ban_member(club.ladder, mod, x, "Traded wins.", match.played_on)
    match.refresh_from_db()
    assert match.state == "voided"
    bans.ban_member(club.ladder, mod, y, "Traded wins too.", None)
    # Y's ban holds the match X's ban withheld first.
    assert BanVoid.objects.filter(match=match, ban__lifted_at__isnull=True).count() == 2

    if lift_first == "x":
        bans.lift_ban(club.ladder, mod, x, "Appeal upheld.")
        match.refresh_from_db()
        assert match.state == "voided"  # Y is still banned: the match still does not count
        assert (ratings_of(club.ladder), changes_of(club.ladder)) == only_y
        bans.lift_ban(club.ladder, mod, y, "Appeal upheld.")
    else:
        bans.lift_ban(club.ladder, mod, y, "Appeal upheld.")
        match.refresh_from_db()
        assert match.state == "voided"  # X's ban, from its date, still reaches it
        assert (ratings_of(club.ladder), changes_of(club.ladder)) == only_x
        bans.lift_ban(club.ladder, mod, x, "Appeal upheld.")

    match.refresh_from_db()
    assert match.state == "confirmed"
    assert (ratings_of(club.ladder), changes_of(club.ladder)) == original


def test_a_ban_that_does_not_reach_the_match_does_not_hold_it(club, mod) -> None:
    """Y banned from a day after the shared match: lifting X's ban restores it."""
    from datetime import timedelta

    match, x, y = _shared(club)
    original = ratings_of(club.ladder)
    bans.ban_member(club.ladder, mod, x, "Traded wins.", match.played_on)
    bans.ban_member(club.ladder, mod, y, "Later.", match.played_on + timedelta(days=1))
    assert not BanVoid.objects.filter(match=match, ban__user__username=y).exists()
    bans.lift_ban(club.ladder, mod, x)
    match.refresh_from_db()
    assert match.state == "confirmed"
    bans.lift_ban(club.ladder, mod, y)
    assert ratings_of(club.ladder) == original
