"""The one door to a match (``get_match_for_user``): a match on a ladder the viewer may see
(the access policy, ladder.clubs.access, which also withholds the names on it that the
viewer may not see: ``access.mask_matches``)."""

from __future__ import annotations

from django.http import Http404

from ladder.clubs import access
from ladder.clubs.access import Viewer
from ladder.matches.models import Match


def get_match_for_user(viewer: Viewer, pk: int | str) -> Match:
    """The match ``pk`` with its players, games, disputes and audit trail; 404 if not visible."""
    try:
        return access.visible_matches(viewer, Match.objects.with_history()).get(pk=pk)
    except (Match.DoesNotExist, ValueError, TypeError):
        raise Http404("No such match.") from None
