"""Who may be seen: a ladder is seen by whom ``Ladder.objects.visible_to`` says, and a member
with ``Membership.is_public`` off is seen only by themselves and moderators; elsewhere (a
match list, an explanation) they read as "a hidden player".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from accounts.models import User
from ladder.clubs.models import Ladder, Membership
from ratings.explain import HIDDEN_PLAYER


@dataclass(frozen=True)
class Person:
    """A player as the viewer may see them: no username (no link) for a hidden member."""

    name: str
    username: str | None


def person(user: User, hidden: set[int]) -> Person:
    return named_person(user.pk, user.username, user.display_name, hidden)


def named_person(user_id: int, username: str, display_name: str, hidden: set[int]) -> Person:
    """``person`` from the user's columns alone (``User.name``'s rule), for rows read
    without their users."""
    if user_id in hidden:
        return Person(HIDDEN_PLAYER, None)
    return Person(display_name or username, username)


def hidden_members(viewer: Any, ladder_ids: Iterable[int]) -> dict[int, set[int]]:
    """Per ladder, the members ``viewer`` may not see (their names are withheld)."""
    hidden: dict[int, set[int]] = defaultdict(set)
    # No ordering: Membership's default one would join ladders and users to sort the rows.
    rows = Membership.objects.filter(ladder_id__in=list(ladder_ids)).hidden_from(viewer).order_by()
    for ladder_id, user_id in rows.values_list("ladder_id", "user_id"):
        hidden[ladder_id].add(user_id)
    return hidden


def player_memberships(username: str, viewer: Any) -> tuple[User | None, list[Membership]]:
    """The player called ``username`` (None if no one is) and their memberships that
    ``viewer`` may see, by ladder name. The memberships bring the player along: the player
    is read on their own only when there are none."""
    visible = Ladder.objects.visible_to(viewer).values("pk")
    memberships = list(
        Membership.objects.filter(user__username=username, ladder__in=visible)
        .listed_for(viewer)
        .select_related("ladder", "user")
        .order_by("ladder__name")
    )
    if memberships:
        return memberships[0].user, memberships
    return User.objects.filter(username=username).first(), memberships


def can_view_player(player: User, viewer: Any, memberships: Sequence[Membership]) -> bool:
    """A player page exists for a viewer who may see one of its ladders (or is that player)."""
    if memberships:
        return True
    return viewer.is_authenticated and (viewer.pk == player.pk or viewer.is_moderator)
