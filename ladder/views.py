"""The home page: it composes the apps (a member's ladders, what waits in their inbox)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ladder.clubs.caching import cacheable_for_visitors
from ladder.clubs.models import Membership
from ladder.clubs.views import ladders_for, public_ladders
from ladder.matches.operations import inbox_for


@require_GET
@cacheable_for_visitors(public_ladders)
def home(request: HttpRequest) -> HttpResponse:
    memberships = []
    inbox = None
    if request.user.is_authenticated:
        inbox = inbox_for(request.user)
        memberships = list(
            Membership.objects.filter(user=request.user)
            .select_related("ladder")
            .order_by("ladder__name")
        )
    return render(
        request,
        "ladder/home.html",
        {"ladders": ladders_for(request), "memberships": memberships, "inbox": inbox},
    )
