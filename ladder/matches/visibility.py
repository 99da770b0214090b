"""A match as a viewer may see it: the one door to a match (``get_match_for_user``), the
matches a list may show (``visible_matches``, ``player_matches``), and the names on them
(``shown_matches``).

The rules are the access policy's (ladder.clubs.access), about ladders and people; this
module answers about a match by asking it about the match's ladder and each of its people.
Nothing here changes a model instance: pages and the API show the names of a ``ShownMatch``,
never those of the match's users.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.http import Http404

from ladder.clubs import access
from ladder.clubs.access import Person, Viewer
from ladder.matches.models import AuditEntry, Dispute, Match, MatchPlayer, MatchQuerySet


def visible_matches(viewer: Viewer, queryset: MatchQuerySet) -> MatchQuerySet:
    """The matches of ``queryset`` on ladders ``viewer`` may see."""
    return queryset.filter(ladder__in=access.ladders(viewer).values("pk"))


def player_matches(viewer: Viewer, queryset: MatchQuerySet, username: str) -> MatchQuerySet:
    """The matches of ``queryset`` that ``username`` played, but for those on ladders where
    ``viewer`` may not see them (a filter must not tell which matches a hidden member played)."""
    return queryset.filter(players__user__username=username).exclude(
        ladder_id__in=access.unseen_ladders(viewer, username)
    )


def get_match_for_user(viewer: Viewer, pk: int | str) -> Match:
    """The match ``pk`` with its players, games, disputes and audit trail; 404 if not visible."""
    try:
        return visible_matches(viewer, Match.objects.with_history()).get(pk=pk)
    except (Match.DoesNotExist, ValueError, TypeError):
        raise Http404("No such match.") from None


# ---- the names on a match ---------------------------------------------------------------------


@dataclass(frozen=True)
class ShownPlayer:
    """One player of a match as the viewer may see them: ``HIDDEN_PLAYER_NAME`` and no
    username (no link) for one the access policy hides from them."""

    name: str
    username: str | None
    you: bool  # the viewer: "you and Bob Baker beat …"
    stats: object  # as reported (MatchPlayer.stats): numbers by name, or None

    @property
    def hidden(self) -> bool:
        return self.username is None


@dataclass(frozen=True)
class ShownMatch:
    """A match as ``viewer`` may see it: ``match`` for its ladder, day, state and score, and
    its people as the access policy lets the viewer see them. Pages and the API take the
    names from here, never from the match's users.

    ``record``: whether the viewer may read its dispute and moderator reasons and its audit
    trail (its players and the moderators, ``access.knows_players``). Whoever may read them
    sees every name on the match, so its disputes and audit entries come as they are."""

    match: Match
    side_a: tuple[ShownPlayer, ...]
    side_b: tuple[ShownPlayer, ...]
    reporter: Person
    record: bool

    @property
    def pk(self) -> int:
        return self.match.pk

    def get_absolute_url(self) -> str:
        return self.match.get_absolute_url()

    @property
    def players(self) -> tuple[ShownPlayer, ...]:
        return self.side_a + self.side_b

    def player(self, user_id: int) -> ShownPlayer | None:
        """The player ``user_id`` of the match as the viewer may see them; None for no player."""
        rows = [*self.match.side_a_rows, *self.match.side_b_rows]
        found = [p for row, p in zip(rows, self.players, strict=True) if row.user_id == user_id]
        return found[0] if found else None

    @property
    def opponents(self) -> tuple[ShownPlayer, ...]:
        """The side opposing the reporter, who confirm or dispute (``Match.opponents``):
        every player when the reporter did not play (a club night's organiser)."""
        return {"a": self.side_b, "b": self.side_a}.get(
            self.match.reporter_side or "", self.players
        )

    @property
    def disputes(self) -> list[Dispute] | None:
        """Its disputes, oldest first; None unless the viewer may read them (``record``)."""
        return list(self.match.disputes.all()) if self.record else None

    @property
    def audit(self) -> list[AuditEntry] | None:
        """Its audit trail, oldest first; None unless the viewer may read it (``record``)."""
        return list(self.match.audit.all()) if self.record else None


def shown_matches(viewer: Viewer, matches: Iterable[Match]) -> list[ShownMatch]:
    """``matches`` (fetched with their players and reporters: ``with_details``) as ``viewer``
    may see them, in their order: one question to the access policy for all their ladders,
    none when the viewer played each of them or sees everyone."""
    matches = list(matches)
    knows = {m.pk: access.knows_players(viewer, _player_ids(m)) for m in matches}
    strangers = {m.ladder_id for m in matches if not knows[m.pk]}
    unseen = access.unseen(viewer, strangers) if strangers else {}
    return [
        _shown(viewer, m, knows[m.pk], set() if knows[m.pk] else unseen.get(m.ladder_id, set()))
        for m in matches
    ]


def shown_match(viewer: Viewer, match: Match) -> ShownMatch:
    """``match`` as ``viewer`` may see it (``shown_matches``)."""
    return shown_matches(viewer, [match])[0]


def _player_ids(match: Match) -> list[int]:
    return [row.user_id for row in match.players.all()]


def _shown(viewer: Viewer, match: Match, record: bool, unseen: set[int]) -> ShownMatch:
    def player(row: MatchPlayer) -> ShownPlayer:
        person = access.person_of(row.user, unseen)
        return ShownPlayer(person.name, person.username, viewer.is_user(row.user_id), row.stats)

    def side(rows: Sequence[MatchPlayer]) -> tuple[ShownPlayer, ...]:
        return tuple(player(row) for row in rows)

    reporter = access.person_of(match.reporter, unseen)
    return ShownMatch(match, side(match.side_a_rows), side(match.side_b_rows), reporter, record)
