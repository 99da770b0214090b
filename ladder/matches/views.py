"""Match pages (the report pages are in ``report_views.py``): the match page, confirm / dispute / cancel, the inbox, moderation.

Thin views (STYLE.md "Where logic lives"): fetch through ``get_match_for_user``, parse
with a form from ``ladder/matches/forms.py``, call the operation of ``ladder/matches/operations.py``,
respond. The domain's errors map to the same statuses as the API:

- ``MatchValidationError`` → the form again with the errors where they belong, 400;
- ``MatchPermissionError`` → the 403 page (an HTMX fragment with the message, 403);
- ``MatchStateError`` → a message and back to the match (HTMX: the fragment with the
  message, 409).

``templates/base.html`` tells HTMX to swap 400/403/409 responses too, so the fragment
that explains a refusal replaces the row or panel that asked.

Every page works without JavaScript; with HTMX (``request.htmx``) the same view renders
the fragment: the inbox row after confirm / dispute / cancel, the moderation card after
a decision, the game rows after "Add a game" / "Remove".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import trigger_client_event

from accounts.models import RequestUser, User
from core.inputs import BadInput, parse_instant
from core.refusals import forbidden, form_action
from ladder.clubs.access import viewer_for
from ladder.clubs.models import Ladder
from ladder.clubs.views import HtmxHttpRequest
from ladder.matches import operations as domain
from ladder.matches.errors import (
    MatchError,
    MatchPermissionError,
    MatchStateError,
    MatchValidationError,
)
from ladder.matches.forms import (
    DisputeForm,
    EditForm,
    MailSettingsForm,
    MatchForm,
    ModerationForm,
)
from ladder.matches.inbox import inbox_for, moderation_queue
from ladder.matches.models import MAIL_EVENTS, Dispute, Match, Notification
from ladder.matches.permissions import allowed_actions
from ladder.matches.rematch import lineup_of
from ladder.matches.templatetags.match_tags import names_and, names_or
from ladder.matches.visibility import ShownMatch, get_match_for_user, shown_match, shown_matches

# ---- helpers ------------------------------------------------------------------------------


class SignedInRequest(HtmxHttpRequest):
    """The request of a ``login_required`` view: its user is a member account."""

    user: User


def _next_or(request: HttpRequest, default: str) -> str:
    """A safe ``next`` from the form (the inbox sends one), else ``default``."""
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


def _refresh(match: Match) -> Match:
    """The match again with everything its pages show (players, games, disputes, audit)."""
    return Match.objects.with_history().get(pk=match.pk)


def _actions(match: Match, user: RequestUser) -> set[str]:
    if not user.is_authenticated:
        return set()
    return set(allowed_actions(match, user))


@dataclass
class Row:
    """A match in the inbox: the match as this user may see it, what they may do, and a note
    after an action."""

    shown: ShownMatch
    actions: set[str] = field(default_factory=set)
    note: str = ""
    error: str = ""


def _row_response(
    request: HttpRequest, match: Match, *, note: str = "", error: str = "", status: int = 200
) -> HttpResponse:
    match = _refresh(match)
    shown = shown_match(viewer_for(request), match)
    row = Row(shown, _actions(match, request.user), note=note, error=error)
    response = render(request, "matches/_inbox_row.html", {"row": row}, status=status)
    # The navigation badge counts matches to confirm: tell the page to refresh it.
    return trigger_client_event(response, "inbox-changed")


def _refused(request: HtmxHttpRequest, match: Match, exc: MatchError) -> HttpResponse:
    """A transition the domain refused: the row with its message (HTMX, 403 / 409), the 403
    page, or, for a state that does not allow it, a message on the match page."""
    if request.htmx:
        return _row_response(request, match, error=exc.message, status=exc.status)
    if isinstance(exc, MatchStateError):
        messages.error(request, exc.message)
        return redirect(match)
    return forbidden(request, exc.message)


def _submitted(
    request: SignedInRequest,
    match: Match,
    form: MatchForm,
    arguments: Mapping[str, object] | None,
    act: Callable[..., Match],
    done: Callable[[], HttpResponse],
) -> HttpResponse | None:
    """A match form's POST: the domain's ``act`` with the form's ``arguments``, then the
    answer ``done`` gives; a refusal's answer; or None, the form to show again with its
    errors (the domain's added to it)."""
    if arguments is None:
        return None
    try:
        act(match, request.user, **arguments)
    except MatchValidationError as exc:
        form.add_domain_errors(exc.errors)
        return None
    except (MatchPermissionError, MatchStateError) as exc:
        return _refused(request, match, exc)
    return done()


def _transition(
    request: HtmxHttpRequest, match: Match, run: Callable[[], Match], done: str
) -> HttpResponse:
    """Run one state change; answer with the inbox row (HTMX) or a redirect and a message."""
    try:
        match = run()
    except (MatchPermissionError, MatchStateError) as exc:
        return _refused(request, match, exc)
    if request.htmx:
        return _row_response(request, match, note=done)
    messages.success(request, done)
    return HttpResponseRedirect(_next_or(request, match.get_absolute_url()))


# ---- the match page -----------------------------------------------------------------------


@require_GET
def match_detail(request: HttpRequest, pk: int) -> HttpResponse:
    viewer = viewer_for(request)
    match = get_match_for_user(viewer, pk)
    user = request.user
    member = isinstance(user, User) and match.ladder.memberships.filter(user=user).exists()
    context = {
        "match": match,
        # The names on it, its reasons and its audit trail as the viewer may see them.
        "shown": shown_match(viewer, match),
        "actions": _actions(match, user),
        # A player still on the ladder: one tap to report the next match of the same lineup.
        "rematch": lineup_of(match, user) if member and isinstance(user, User) else None,
    }
    return render(request, "matches/match_detail.html", context)


def _seen(request: HttpRequest) -> datetime | None:
    """When the page the member acts from showed the match (its ``updated_at``), if it says."""
    try:
        return parse_instant(request.POST.get("seen") or "")
    except BadInput:
        return None


@form_action
def confirm(request: SignedInRequest, pk: int) -> HttpResponse:
    match = get_match_for_user(viewer_for(request), pk)
    seen = _seen(request)
    return _transition(
        request,
        match,
        lambda: domain.confirm_match(match, request.user, seen=seen),
        "Confirmed: thanks. The match counts for the ratings.",
    )


@form_action
def cancel(request: SignedInRequest, pk: int) -> HttpResponse:
    match = get_match_for_user(viewer_for(request), pk)
    return _transition(
        request,
        match,
        lambda: domain.cancel_match(match, request.user),
        "Report cancelled: the match will not be rated.",
    )


@login_required
@require_http_methods(["GET", "POST"])
def dispute(request: SignedInRequest, pk: int) -> HttpResponse:
    """The dispute form (a page, or in place of the inbox row); dispute the match (POST)."""
    viewer = viewer_for(request)
    match = get_match_for_user(viewer, pk)
    if request.htmx and request.GET.get("cancel"):
        return _row_response(request, match)
    if request.method == "GET" and "dispute" not in _actions(match, request.user):
        message = (
            "Only a player of the side opposing the reporter can dispute a match, while it "
            f"waits for confirmation. This one is {match.get_state_display().lower()}."
        )
        if request.htmx:
            return _row_response(request, match, error=message, status=403)
        return forbidden(request, message)
    form = DisputeForm(request.POST if request.method == "POST" else None, match=match)
    status = 200
    if request.method == "POST" and not form.editing_rows:

        def disputed() -> HttpResponse:
            done = "Disputed: a moderator will look at it. The match is not rated meanwhile."
            if request.htmx:
                return _row_response(request, match, note=done)
            messages.success(request, done)
            return HttpResponseRedirect(_next_or(request, match.get_absolute_url()))

        arguments = form.dispute_arguments()
        answer = _submitted(request, match, form, arguments, domain.dispute_match, disputed)
        if answer is not None:
            return answer
        status = 400
    context = {
        **_match_form_context(
            shown_match(viewer, match), f"d{match.pk}-", "The right score (optional)"
        ),
        "form": form,
        "rows_url": reverse("match_dispute", args=[match.pk]),
        "next": _next_or(request, ""),
    }
    if request.htmx:
        template = "matches/_games.html" if form.editing_rows else "matches/_inbox_dispute_row.html"
        return render(request, template, context, status=status)
    return render(request, "matches/dispute.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def edit(request: SignedInRequest, pk: int) -> HttpResponse:
    """The reporter changes their pending report (score, date); the opponents confirm the new
    version (``operations.edit_match``)."""
    viewer = viewer_for(request)
    match = get_match_for_user(viewer, pk)
    shown = shown_match(viewer, match)
    if request.method == "GET" and "edit" not in _actions(match, request.user):
        return forbidden(
            request,
            f"Only {shown.reporter.name}, who reported this match, can change it, while it "
            f"waits for confirmation. This one is {match.get_state_display().lower()}.",
        )
    form = EditForm(request.POST if request.method == "POST" else None, match=match)
    status = 200
    if request.method == "POST" and not form.editing_rows:

        def edited() -> HttpResponse:
            opponents = names_or(shown.opponents)
            messages.success(request, f"Report changed. {opponents} will confirm the new version.")
            return redirect(match)

        answer = _submitted(request, match, form, form.edit_arguments(), domain.edit_match, edited)
        if answer is not None:
            return answer
        status = 400
    context = {
        **_match_form_context(shown, f"e{match.pk}-", "Games"),
        "form": form,
        "rows_url": reverse("match_edit", args=[match.pk]),
    }
    if request.htmx and form.editing_rows:
        return render(request, "matches/_games.html", context)
    return render(request, "matches/edit.html", context, status=status)


def _match_form_context(shown: ShownMatch, prefix: str, legend: str) -> dict[str, object]:
    """What a form about an existing match shows with its game rows."""
    return {
        "match": shown.match,
        "shown": shown,
        "prefix": prefix,
        "games_legend": legend,
        "side_a_label": names_and(shown.side_a),
        "side_b_label": names_and(shown.side_b),
    }


# ---- inbox --------------------------------------------------------------------------------


@login_required
@require_GET
def inbox(request: SignedInRequest) -> HttpResponse:
    box = inbox_for(request.user)
    user = request.user
    viewer = viewer_for(request)
    context = {
        "inbox": box,
        "to_confirm": [
            Row(s, _actions(s.match, user)) for s in shown_matches(viewer, box.to_confirm)
        ],
        "my_pending": [
            Row(s, _actions(s.match, user)) for s in shown_matches(viewer, box.my_pending)
        ],
        "disputes": box.disputes,
        "ladders": Ladder.objects.filter(memberships__user=user).order_by("name"),
    }
    return render(request, "matches/inbox.html", context)


# ---- moderation ---------------------------------------------------------------------------


@dataclass
class Case:
    """A match in front of a moderator: its open dispute, the decision form, the outcome."""

    shown: ShownMatch
    dispute: Dispute | None
    form: ModerationForm
    done: str = ""

    @property
    def match(self) -> Match:
        return self.shown.match

    @property
    def prefix(self) -> str:
        """Scopes the element ids of this case's form: several share the moderation page."""
        return f"m{self.match.pk}-"


def _open_dispute(match: Match) -> Dispute | None:
    return next((d for d in reversed(match.disputes.all()) if d.resolution is None), None)


def _case(shown: ShownMatch, data: Mapping[str, object] | None = None) -> Case:
    match = shown.match
    dispute = _open_dispute(match)
    proposed = dispute.proposed_games if dispute is not None and dispute.proposed_games else None
    form = ModerationForm(data, match=match, games=proposed or match.game_scores)
    return Case(shown, dispute, form)


@login_required
@require_GET
def moderation(request: SignedInRequest) -> HttpResponse:
    if not request.user.is_moderator:
        return forbidden(request, "The moderation queue is for moderators.")
    cases = [_case(shown) for shown in shown_matches(viewer_for(request), moderation_queue())]
    return render(request, "matches/moderation.html", {"cases": cases})


@login_required
@require_http_methods(["GET", "POST"])
def resolve(request: SignedInRequest, pk: int) -> HttpResponse:
    """Resolve a dispute: uphold, correct (with the games) or void, with a reason."""
    viewer = viewer_for(request)
    match = get_match_for_user(viewer, pk)
    if request.method == "GET":
        if "resolve" not in _actions(match, request.user):
            return forbidden(request, "Only a moderator resolves a disputed match.")
        return render(request, "matches/resolve.html", {"case": _case(shown_match(viewer, match))})
    case = _case(shown_match(viewer, match), request.POST)
    arguments = case.form.moderation_arguments()
    status = 400
    if arguments is not None:
        try:
            domain.resolve_dispute(match, request.user, **arguments)
        except MatchValidationError as exc:
            case.form.add_domain_errors(exc.errors)
        except MatchStateError as exc:
            if not request.htmx:
                messages.error(request, exc.message)
                return redirect(match)
            case.form.add_section_errors("__all__", [exc.message])
            status = 409
        else:
            shown = shown_match(viewer, _refresh(match))
            case = Case(shown, None, case.form, done=_resolution_note(arguments))
            if not request.htmx:
                messages.success(request, case.done)
                return HttpResponseRedirect(_next_or(request, match.get_absolute_url()))
            status = 200
    template = "matches/_moderation_case.html" if request.htmx else "matches/resolve.html"
    return render(request, template, {"case": case}, status=status)


def _resolution_note(arguments: dict[str, Any]) -> str:
    return {
        "uphold": "Upheld: the reported score stands and counts for the ratings.",
        "correct": "Corrected: the new score counts for the ratings.",
        "void": "Voided: the match does not count.",
    }.get(arguments["decision"], "Done.")


@login_required
@require_http_methods(["GET", "POST"])
def correct(request: SignedInRequest, pk: int) -> HttpResponse:
    """A moderator corrects a confirmed (or corrected) match: new games, a reason."""
    return _moderate(request, pk, "correct")


@login_required
@require_http_methods(["GET", "POST"])
def void(request: SignedInRequest, pk: int) -> HttpResponse:
    """A moderator voids a confirmed (or corrected) match, with a reason."""
    return _moderate(request, pk, "void")


def _moderate(request: SignedInRequest, pk: int, decision: str) -> HttpResponse:
    match = get_match_for_user(viewer_for(request), pk)
    if request.method == "GET" and decision not in _actions(match, request.user):
        return forbidden(
            request, "Only a moderator corrects or voids a match, once it is confirmed."
        )
    form = ModerationForm(
        request.POST if request.method == "POST" else None,
        match=match,
        games=match.game_scores,
        decision=decision,
    )
    status = 200
    if request.method == "POST":
        arguments = form.moderation_arguments()
        if arguments is not None:
            arguments.pop("decision")
            operation = domain.correct_match if decision == "correct" else domain.void_match
            try:
                operation(match, request.user, **arguments)
            except MatchValidationError as exc:
                form.add_domain_errors(exc.errors)
            except MatchStateError as exc:
                messages.error(request, exc.message)
                return redirect(match)
            else:
                messages.success(request, _resolution_note({"decision": decision}))
                return redirect(match)
        status = 400
    label = "Save the correction" if decision == "correct" else "Void the match"
    context = {
        "match": match,
        "shown": shown_match(viewer_for(request), match),
        "form": form,
        "decision": decision,
        "label": label,
    }
    return render(request, "matches/moderate.html", context, status=status)


@login_required
@require_GET
def inbox_badge(request: HttpRequest) -> HttpResponse:
    """The navigation badge alone (or, ``?where=heading``, the inbox heading's count): HTMX
    reloads both after an action in the inbox."""
    if request.GET.get("where") == "heading":
        return render(request, "matches/_inbox_count.html")
    return render(request, "matches/_inbox_badge.html")


NOTIFICATIONS_PAGE = 30


@login_required
@require_GET
def notifications(request: SignedInRequest) -> HttpResponse:
    """What the member was told, newest first; the unread ones are marked, then read."""
    # The unread first, then the newest.
    mine = (
        Notification.objects.filter(user=request.user)
        .select_related("match")
        .annotate(unread=Q(read_at__isnull=True))
        .order_by("-unread", "-created_at", "-pk")
    )
    page = Paginator(mine, NOTIFICATIONS_PAGE).get_page(request.GET.get("page"))
    shown = list(page.object_list)
    unread = [n.pk for n in shown if n.read_at is None]
    context = {
        "page": page,
        "shown": shown,
        # Reading this page marks what it shows; the rest waits for "Mark all as read".
        "unread_elsewhere": Notification.objects.filter(user=request.user)
        .unread()
        .exclude(pk__in=unread)
        .count(),
    }
    response = render(request, "matches/notifications.html", context)
    if unread:
        Notification.objects.filter(pk__in=unread).update(read_at=timezone.now())
    return response


@form_action
def notifications_read_all(request: SignedInRequest) -> HttpResponse:
    """Mark every notification of the member read, and back to the list."""
    count = Notification.objects.filter(user=request.user).unread().update(read_at=timezone.now())
    messages.success(request, f"Marked {count} notification{'s' if count != 1 else ''} as read.")
    return redirect("notifications")


@login_required
@require_http_methods(["GET", "POST"])
def notification_settings(request: SignedInRequest) -> HttpResponse:
    """Which events e-mail the member."""
    form = MailSettingsForm(request.POST if request.method == "POST" else None, user=request.user)
    if request.method == "POST" and form.is_valid():
        muted = form.save()
        kept = len(MAIL_EVENTS) - len(muted)
        messages.success(
            request,
            "Saved: no e-mails; the site still tells you everything."
            if not kept
            else f"Saved: e-mails for {kept} of {len(MAIL_EVENTS)} kinds of event.",
        )
        return redirect("notification_settings")
    status = 400 if request.method == "POST" else 200
    return render(request, "matches/notification_settings.html", {"form": form}, status=status)
