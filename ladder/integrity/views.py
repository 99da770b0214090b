"""The integrity pages: a ladder's flags and bans for moderators, and a banned member's
own decision.

- ``/ladders/<slug>/integrity/``: the flags (each with its reason, players, matches and a
  keep / dismiss form with a note), the bans (a form to ban, a button to lift), and the
  ladder's moderation trail;
- ``/ladders/<slug>/ban/``: for the member it concerns, the ban and its reason.

Thin: the same domain functions as the API (bans.py, flags.py); their messages are shown
as they are. Forms post and come back to the page (no JavaScript needed).
"""

from __future__ import annotations

from datetime import date

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from accounts.models import User
from core.refusals import form_action
from ladder.clubs.models import Ladder
from ladder.clubs.views import get_ladder_for_user
from ladder.integrity import bans, flags
from ladder.integrity.errors import ModerationError, ModerationValidationError
from ladder.integrity.models import Ban, IntegrityEntry

TRAIL_SHOWN = 30  # the page shows the newest entries of the trail; the admin has all


def _moderated(request: HttpRequest, slug: str) -> Ladder | HttpResponse:
    ladder = get_ladder_for_user(request, slug)
    if not request.user.is_moderator:  # type: ignore[union-attr]
        return render(
            request,
            "forbidden.html",
            {"message": f"Only moderators see the integrity of {ladder.name}."},
            status=403,
        )
    return ladder


def _page(ladder: Ladder) -> str:
    return reverse("ladder:integrity", args=[ladder.slug])


@login_required
@require_http_methods(["GET"])
def integrity(request: HttpRequest, slug: str) -> HttpResponse:
    """A ladder's flags, bans and moderation trail (moderators)."""
    ladder = _moderated(request, slug)
    if isinstance(ladder, HttpResponse):
        return ladder
    return _render(request, ladder)


def _render(
    request: HttpRequest,
    ladder: Ladder,
    ban_errors: dict[str, list[str]] | None = None,
    ban_input: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    shown = flags.flags_for(ladder, request.user)
    names = dict(
        User.objects.filter(pk__in={p for f in shown for p in f.players}).values_list(
            "pk", "display_name"
        )
    )
    for flag in shown:
        flag.people = [  # type: ignore[attr-defined]
            (username, names.get(pk) or username)
            for pk, username in zip(flag.players, flag.usernames, strict=True)  # type: ignore[attr-defined]
        ]
    ban_rows = list(
        Ban.objects.filter(ladder=ladder).select_related("user", "by", "lifted_by")[:50]
    )
    trail = list(
        IntegrityEntry.objects.filter(ladder=ladder)
        .select_related("actor", "member", "flag")
        .order_by("-at", "-pk")[:TRAIL_SHOWN]
    )
    context = {
        "ladder": ladder,
        "flags": shown,
        "open_count": sum(1 for f in shown if f.state == "open" and f.current),
        "active_bans": [b for b in ban_rows if b.is_active],
        "past_bans": [b for b in ban_rows if not b.is_active],
        "trail": trail,
        # "__all__" cannot be read in a template: the form's own errors are "all" there.
        "ban_errors": {("all" if k == "__all__" else k): v for k, v in (ban_errors or {}).items()},
        "ban_input": ban_input or {},
    }
    return render(request, "integrity/integrity.html", context, status=status)


@form_action
def decide(request: HttpRequest, slug: str, flag_id: int) -> HttpResponse:
    """Keep or dismiss a flag, with a note."""
    ladder = _moderated(request, slug)
    if isinstance(ladder, HttpResponse):
        return ladder
    state = request.POST.get("state")
    try:
        flag = flags.decide_flag(ladder, flag_id, request.user, state, request.POST.get("note"))
    except ModerationError as exc:
        messages.error(request, f"Flag {flag_id}: {exc.message}")
    else:
        messages.success(request, f"Flag {flag.pk} {flag.state}: {flag.note}")
    return redirect(_page(ladder) + f"#flag-{flag_id}")


@form_action
def ban(request: HttpRequest, slug: str) -> HttpResponse:
    """Ban a member, voiding their rated matches from a date (or all)."""
    ladder = _moderated(request, slug)
    if isinstance(ladder, HttpResponse):
        return ladder
    given = {k: request.POST.get(k, "") for k in ("username", "reason", "void_since", "scope")}
    void_since: date | None = None
    if given["scope"] == "since":
        try:
            void_since = date.fromisoformat(given["void_since"])
        except ValueError:
            errors = {"void_since": ["Give the date from which their matches stop counting."]}
            return _render(request, ladder, errors, given, status=400)
    try:
        outcome = bans.ban_member(
            ladder, request.user, given["username"], given["reason"], void_since
        )
    except ModerationValidationError as exc:
        return _render(request, ladder, exc.errors, given, status=400)
    except ModerationError as exc:
        return _render(request, ladder, {"__all__": [exc.message]}, given, status=exc.status)
    messages.success(
        request,
        f"{outcome.ban.user.name} is banned from {ladder.name}: "
        f"{_count(len(outcome.withheld), 'rated match', 'es')} withheld, "
        f"{_count(len(outcome.cancelled), 'waiting report')} cancelled, "
        f"{_count(len(outcome.changes), 'member')} told of their recalculated rating.",
    )
    return redirect(_page(ladder) + "#bans")


def _count(n: int, noun: str, suffix: str = "s") -> str:
    """ "1 rated match", "10 rated matches": a count as a sentence says it."""
    return f"{n} {noun}{pluralize(n, suffix)}"


@form_action
def lift(request: HttpRequest, slug: str, username: str) -> HttpResponse:
    """Lift a ban: the matches it withheld count again."""
    ladder = _moderated(request, slug)
    if isinstance(ladder, HttpResponse):
        return ladder
    try:
        outcome = bans.lift_ban(ladder, request.user, username, request.POST.get("reason", ""))
    except ModerationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            f"The ban of {outcome.ban.user.name} is lifted: "
            f"{_count(len(outcome.withheld), 'match', 'es')} count again, "
            f"{_count(len(outcome.changes), 'member')} told of their recalculated rating.",
        )
    return redirect(_page(ladder) + "#bans")


@login_required
@require_http_methods(["GET"])
def my_ban(request: HttpRequest, slug: str) -> HttpResponse:
    """The member's own ban on this ladder: the decision and its reason (or that there is none)."""
    ladder = get_ladder_for_user(request, slug)
    shown = (
        Ban.objects.filter(ladder=ladder, user=request.user)  # type: ignore[misc]
        .select_related("by", "lifted_by")
        .first()
    )
    return render(request, "integrity/my_ban.html", {"ladder": ladder, "ban": shown})
