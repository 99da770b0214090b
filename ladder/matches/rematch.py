"""Rematches: the lineups a member played lately, each one tap from a report form filled in
(the report form reads ``?side_a=…&side_b=…``, as club night's "Report this match" does)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse

from accounts.models import User
from ladder.clubs import access
from ladder.clubs.access import Viewer
from ladder.clubs.models import Ladder, Membership
from ladder.matches.models import CANCELLED, EXPIRED, VOIDED, Match

# Enough lineups to find this week's partners and opponents; few enough to read on a phone.
REMATCH_LIMIT = 6
# Matches looked through to find them (a member playing the same pair every week repeats).
RECENT_MATCHES = 40


@dataclass(frozen=True)
class Lineup:
    """A member's side and the other side of a recent match, on its ladder."""

    ladder: Ladder
    player: User
    partners: tuple[User, ...]
    opponents: tuple[User, ...]

    @property
    def report_url(self) -> str:
        """The report form with these players filled in (the member is always "you")."""
        query = urlencode(
            {
                "side_a": ",".join(u.username for u in (self.player, *self.partners)),
                "side_b": ",".join(u.username for u in self.opponents),
            }
        )
        return f"{reverse('ladder:report', args=[self.ladder.slug])}?{query}"


def lineup_of(match: Match, user: User) -> Lineup | None:
    """``user``'s side and the other side of ``match``; None for anyone not in it."""
    mine = match.side_of(user)
    if mine is None:
        return None
    ours = match.side_a_players if mine == "a" else match.side_b_players
    theirs = match.side_b_players if mine == "a" else match.side_a_players
    return Lineup(match.ladder, user, tuple(u for u in ours if u.pk != user.pk), tuple(theirs))


def recent_lineups(user: User, limit: int = REMATCH_LIMIT) -> list[Lineup]:
    """The member's latest distinct lineups, newest first, on ladders they still belong to,
    with players still members there whom the member may see."""
    matches = (
        Match.objects.filter(players__user=user)
        .exclude(state__in=(CANCELLED, EXPIRED, VOIDED))
        .with_details()
        .order_by("-played_on", "-pk")[:RECENT_MATCHES]
    )
    listed: dict[int, set[int]] = {}
    for ladder_id, user_id in access.players(
        Viewer.of(user), Membership.objects.filter(ladder__memberships__user=user)
    ).values_list("ladder_id", "user_id"):
        listed.setdefault(ladder_id, set()).add(user_id)
    seen: set[tuple[int, frozenset[int], frozenset[int]]] = set()
    lineups: list[Lineup] = []
    for match in matches:
        lineup = lineup_of(match, user)
        members = listed.get(match.ladder_id, set())
        if lineup is None or user.pk not in members:
            continue
        if any(u.pk not in members for u in (*lineup.partners, *lineup.opponents)):
            continue
        key = (
            match.ladder_id,
            frozenset(u.pk for u in lineup.partners),
            frozenset(u.pk for u in lineup.opponents),
        )
        if key not in seen:
            seen.add(key)
            lineups.append(lineup)
        if len(lineups) == limit:
            break
    return lineups
