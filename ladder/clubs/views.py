"""Ladder pages: the list, finding a ladder a visitor may see, and joining one.

Every page works without JavaScript; with HTMX, joining from a ladder card happens in
place (the view renders the fragment when ``request.htmx``).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.middleware import HtmxDetails

from core.refusals import form_action
from ladder.clubs import access
from ladder.clubs.access import viewer_for
from ladder.clubs.formatting import format_day
from ladder.clubs.forms import AwayForm, JoinForm, ProfileForm
from ladder.clubs.models import Ladder, LadderQuerySet, Membership
from ladder.clubs.services import LadderError, can_join, join_ladder, set_away


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def ladders_for(request: HttpRequest) -> LadderQuerySet:
    """The ladders this visitor may see, with member counts and whether they belong."""
    return (
        access.ladders(viewer_for(request))
        .with_member_count()
        .with_is_member(request.user)
        .order_by("name")
    )


def get_ladder_for_user(request: HttpRequest, slug: str) -> Ladder:
    """The ladder called ``slug`` if this visitor may see it; 404 otherwise (even if private)."""
    # No member count: the ladder pages do not show it, and counting is a scan of them.
    return access.ladder_or_404(
        viewer_for(request), slug, Ladder.objects.with_is_member(request.user)
    )


@require_GET
def ladder_list(request: HttpRequest) -> HttpResponse:
    return render(request, "clubs/list.html", {"ladders": ladders_for(request)})


@login_required
@require_http_methods(["GET", "POST"])
def join(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Ask the optional self-assessment (GET), then join the ladder (POST)."""
    ladder = get_ladder_for_user(request, slug)
    if ladder.is_member:  # type: ignore[attr-defined]
        return _joined(request, ladder, None)
    if not can_join(request.user, ladder):
        return _refused(request, ladder, f"{ladder.name} is private: a moderator adds its members.")
    form = JoinForm(request.POST if request.method == "POST" else None, ladder=ladder)
    if request.method == "POST" and form.is_valid():
        try:
            membership = join_ladder(
                request.user, ladder, form.cleaned_data["level"], form.cleaned_data["certainty"]
            )
        except LadderError as exc:
            form.add_error(None, str(exc))
        else:
            return _joined(request, ladder, membership)
    if request.htmx:
        # Inside a ladder card: the form in place of the Join button (or the button again).
        slot_form = None if request.GET.get("cancel") else form
        return render(request, "clubs/_join_slot.html", {"ladder": ladder, "form": slot_form})
    return render(request, "clubs/join.html", {"ladder": ladder, "form": form})


def _joined(
    request: HtmxHttpRequest, ladder: Ladder, membership: Membership | None
) -> HttpResponse:
    if request.htmx:
        ladder.is_member = True  # type: ignore[attr-defined]
        context: dict[str, object] = {"ladder": ladder, "joined": membership}
        if membership is not None:
            # The card's member count changes too: swapped out of band.
            context["member_count"] = ladder.memberships.count()
        return render(request, "clubs/_join_slot.html", context)
    if membership is None:
        messages.info(request, f"You are already a member of {ladder.name}.")
    else:
        messages.success(
            request,
            f"Welcome to {ladder.name}! You start at {membership.initial_rating_display} "
            f"± {membership.initial_rd_display}.",
        )
    return redirect(ladder)


def _refused(request: HtmxHttpRequest, ladder: Ladder, message: str) -> HttpResponse:
    if request.htmx:
        return render(request, "clubs/_join_slot.html", {"ladder": ladder, "error": message})
    messages.error(request, message)
    return redirect(ladder)


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    """Your own profile: there is deliberately no address for anyone else's."""
    form = ProfileForm(request.POST if request.method == "POST" else None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Your profile is saved.")
        return redirect("profile")
    context = {"form": form, "memberships": form.memberships}
    return render(request, "accounts/profile.html", context)


@form_action
def away(request: HttpRequest, slug: str) -> HttpResponse:
    """ "Away until" on the ladder page: the member's own time away, or back (an empty date
    or the "I'm back" button). Refusals come back as a message on the ladder page."""
    ladder = get_ladder_for_user(request, slug)
    form = AwayForm(request.POST)
    if "back" in request.POST:
        until = None
    elif form.is_valid() and form.cleaned_data["until"] is not None:
        until = form.cleaned_data["until"]
    else:
        messages.error(request, "Give the last day you are away (a date such as 2026-12-20).")
        return redirect(f"{ladder.get_absolute_url()}#membership")
    try:
        set_away(request.user, ladder, until)
    except LadderError as exc:
        messages.error(request, str(exc))
    else:
        if until is None:
            messages.success(request, f"Welcome back: you are no longer away on {ladder.name}.")
        else:
            messages.success(request, f"You are away on {ladder.name} until {format_day(until)}.")
    return redirect(f"{ladder.get_absolute_url()}#membership")
