"""Who may see a hidden member: the one rule, asked by every list of people."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

# THE visibility rule (issue 15 #4). A member who unticked "show me on the leaderboard"
# (Membership.is_public off) is seen on that ladder only by themselves and the moderators;
# to everyone else they are not listed, and where a match must show them, they read as
# HIDDEN_PLAYER_NAME. The players of one match see each other's names on it (they played
# face to face, and must know whose report they confirm). Every list of people asks this
# rule: memberships and player search (MembershipQuerySet.listed_for), rating rows
# (PlayerRating.listed_for), match pages and the matches API (ladder.matches.visibility.mask_hidden_players),
# club night. Exports are run by the club's operator, who sees everyone.

HIDDEN_PLAYER_NAME = "Hidden player"


def sees_hidden_members(viewer: Any) -> bool:
    """Whether ``viewer`` sees every member, hidden or not (moderators)."""
    return bool(viewer is not None and viewer.is_authenticated and viewer.is_moderator)


def listed_q(viewer: Any, *, public: Q, user: str = "user", among: Q | None = None) -> Q:
    """The rule as a condition on rows naming a member: rows ``among`` (all by default)
    that are ``public``, or are the viewer's own; every one of them for moderators."""
    among = among if among is not None else Q()
    if sees_hidden_members(viewer):
        return among
    if viewer is not None and viewer.is_authenticated:
        return among & (public | Q(**{user: viewer}))
    return among & public
