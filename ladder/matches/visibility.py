"""Which matches and which names on them a viewer sees: the one door to a match
(``get_match_for_user``) and the masking of hidden members' names (``mask_hidden_players``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.http import Http404

from accounts.models import User
from ladder.clubs.models import Membership
from ladder.clubs.visibility import HIDDEN_PLAYER_NAME, sees_hidden_members
from ladder.matches.models import (
    Match,
)


def get_match_for_user(user: Any, pk: Any) -> Match:
    """The match ``pk`` with its players, games, disputes and audit trail; 404 if not visible."""
    try:
        return Match.objects.visible_to(user).with_history().get(pk=pk)
    except (Match.DoesNotExist, ValueError, TypeError):
        raise Http404("No such match.") from None


def mask_hidden_players(shown: Iterable[Match], viewer: Any) -> None:
    """Withhold hidden members' names on these matches (fetched ``with_details`` or
    ``with_history``) from ``viewer``, by the rule of ladder.clubs.visibility: players, reporter,
    dispute raisers and audit actors who are hidden from the viewer become a stand-in named
    HIDDEN_PLAYER_NAME with no username. A player of the match sees every name on it.
    For display only: call it after the domain operations, on what is about to be shown."""
    shown = list(shown)
    if not shown or sees_hidden_members(viewer):
        return
    hidden: dict[int, set[int]] = {}
    rows = (
        Membership.objects.filter(ladder_id__in={m.ladder_id for m in shown})
        .hidden_from(viewer)
        .order_by()
        .values_list("ladder_id", "user_id")
    )
    for ladder_id, user_id in rows:
        hidden.setdefault(ladder_id, set()).add(user_id)
    viewer_id = getattr(viewer, "pk", None)
    for match in shown:
        ids = hidden.get(match.ladder_id, set())
        players = list(match.players.all())
        if not ids or any(p.user_id == viewer_id for p in players):
            continue

        def masked(user: User | None, ids: set[int] = ids) -> User | None:
            if user is None or user.pk not in ids:
                return user
            # Unsaved and never saved: only its name and (no) username are ever read.
            return User(pk=user.pk, username="", display_name=HIDDEN_PLAYER_NAME)

        names = {p.user.username for p in players if p.user_id in ids}
        for player in players:
            player.user = masked(player.user)  # type: ignore[assignment]
        match.reporter = masked(match.reporter)  # type: ignore[assignment]
        cached = getattr(match, "_prefetched_objects_cache", {})
        for dispute in cached.get("disputes", []):
            dispute.raised_by = masked(dispute.raised_by)
        for entry in cached.get("audit", []):
            entry.actor = masked(entry.actor)
            entry.before, entry.after = (
                _without_names(entry.before, names),
                _without_names(entry.after, names),
            )


def _without_names(snapshot: Any, names: set[str]) -> Any:
    """An audit snapshot with the usernames in ``names`` withheld (None) from its sides."""
    if not isinstance(snapshot, dict):
        return snapshot
    return {
        key: [None if n in names else n for n in value]
        if key in ("side_a", "side_b") and isinstance(value, list)
        else value
        for key, value in snapshot.items()
    }
