"""The home page: it composes the apps (a member's standing on their ladders today, what waits
for them, the latest results of their ladders)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.views.decorators.http import require_GET, require_safe

from ladder.clubs.access import viewer_for
from ladder.clubs.models import Membership
from ladder.clubs.views import ladders_for
from ladder.matches.inbox import inbox_for
from ladder.matches.visibility import shown_matches
from ratings import histories


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    context: dict[str, object] = {"ladders": ladders_for(request)}
    if request.user.is_authenticated:
        memberships = list(
            Membership.objects.filter(user=request.user)
            .select_related("ladder")
            .order_by("ladder__name")
        )
        viewer = viewer_for(request)
        results = shown_matches(
            viewer, histories.latest_results([m.ladder_id for m in memberships])
        )
        context.update(
            {
                "inbox": inbox_for(request.user),
                "memberships": memberships,
                "standings": histories.standings(viewer, request.user, memberships),
                "results": results,
                "week": histories.WEEK,
            }
        )
    return render(request, "ladder/home.html", context)


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers ask for whatever a page links: the site's icon (its
    hashed static address, resolved per request: the manifest exists after collectstatic)."""
    return redirect(static("icons/favicon.ico"), permanent=True)
