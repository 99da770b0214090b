"""Match pages: report, the match page, confirm / dispute / cancel, the inbox, moderation.

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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import trigger_client_event

from accounts.models import User, name_contains
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.views import HtmxHttpRequest, get_ladder_for_user
from ladder.matches import operations as domain
from ladder.matches.errors import (
    MatchError,
    MatchPermissionError,
    MatchStateError,
    MatchValidationError,
)
from ladder.matches.forms import DisputeForm, ModerationForm, ReportForm
from ladder.matches.inbox import inbox_for, moderation_queue
from ladder.matches.models import Match, Notification
from ladder.matches.permissions import allowed_actions
from ladder.matches.signals import predict_lineup, stakes_of_lineup
from ladder.matches.templatetags.match_tags import names_and, names_or
from ladder.matches.validation import check_report
from ladder.matches.visibility import get_match_for_user, mask_hidden_players

# Type-ahead: enough names to pick from, few enough to read.
SEARCH_LIMIT = 8
# Members named under the player inputs when JavaScript is off.
NOSCRIPT_MEMBERS = 60


# ---- helpers ------------------------------------------------------------------------------


class SignedInRequest(HtmxHttpRequest):
    """The request of a ``login_required`` view: its user is a member account."""

    user: User  # type: ignore[assignment]


def _forbidden(request: HttpRequest, message: str) -> HttpResponse:
    """The 403 page (or, for HTMX, just the message) explaining what is not allowed."""
    template = (
        "matches/_refusal.html" if getattr(request, "htmx", False) else "forbidden.html"
    )
    return render(request, template, {"message": message}, status=403)


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


def _actions(match: Match, user: Any) -> set[str]:
    if not user.is_authenticated:
        return set()
    return set(allowed_actions(match, user))


@dataclass
class Row:
    """A match in the inbox: the match, what this user may do, and a note after an action."""

    match: Match
    actions: set[str] = field(default_factory=set)
    note: str = ""
    error: str = ""


def _row_response(
    request: HttpRequest, match: Match, *, note: str = "", error: str = "", status: int = 200
) -> HttpResponse:
    match = _refresh(match)
    row = Row(match, _actions(match, request.user), note=note, error=error)
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
    return _forbidden(request, exc.message)


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


# ---- report -------------------------------------------------------------------------------


def _member_ladder(request: HttpRequest, slug: str) -> Ladder | HttpResponse:
    ladder = get_ladder_for_user(request, slug)
    if not ladder.is_member:  # type: ignore[attr-defined]
        return _forbidden(
            request, f"Only members of {ladder.name} report its matches: join the ladder first."
        )
    return ladder


def _report_errors(ladder: Ladder, reporter: User, **arguments: Any) -> dict[str, list[str]]:
    """The domain's verdict on a report without making it (``check_report``: the same
    rules as the real report, no locks, no rows): its errors, {} when it would pass."""
    try:
        check_report(ladder=ladder, reporter=reporter, **arguments)
    except MatchValidationError as exc:
        return {key: list(value) for key, value in exc.errors.items()}
    except MatchError as exc:
        return {"__all__": [exc.message]}
    return {}


@dataclass
class PredictionPanel:
    probability: float | None
    note: str
    sides: str = ""
    stakes: Any = None  # ratings.stakes.Stakes: what each result would do (RATINGS.md §6)


def _prediction(
    ladder: Ladder, form: ReportForm, arguments: dict[str, Any] | None
) -> PredictionPanel:
    """The engine's win probability for your side, once every player is known."""
    # An unbound form's arguments come from a complete lineup in the address (_prefilled).
    complete = form.lineup_complete if form.is_bound else arguments is not None
    if arguments is None or not complete or form.errors_for("players"):
        return PredictionPanel(None, "Choose every player to see who is expected to win.")
    side_a, side_b = arguments["side_a"], arguments["side_b"]
    if len(side_b) != ladder.team_size or len(side_a) != ladder.team_size:
        return PredictionPanel(None, "Choose every player to see who is expected to win.")
    prediction = predict_lineup(ladder, side_a, side_b, arguments["played_on"])
    probability = None if prediction is None else prediction.probability
    if probability is None:
        return PredictionPanel(
            None, "No prediction: the rating engine has none for these players yet."
        )
    partners = side_a[1:]
    yours = f"you and {names_and(partners)}" if partners else "you"
    stakes = stakes_of_lineup(ladder, side_a, side_b, arguments["played_on"])
    return PredictionPanel(probability, "", f"{yours} beat {names_and(side_b)}", stakes)


def _report_context(
    request: SignedInRequest,
    ladder: Ladder,
    form: ReportForm,
    arguments: dict[str, Any] | None,
) -> dict[str, Any]:
    members = (
        Membership.objects.filter(ladder=ladder)
        .listed_for(request.user)
        .exclude(user=request.user)
        .select_related("user")
        .order_by("user__display_name", "user__username")
    )
    return {
        "ladder": ladder,
        "form": form,
        "prediction": _prediction(ladder, form, arguments),
        "noscript_members": members[:NOSCRIPT_MEMBERS],
        "rows_url": reverse("ladder:report", args=[ladder.slug]),
    }


@login_required
@require_http_methods(["GET", "POST"])
def report(request: SignedInRequest, slug: str) -> HttpResponse:
    """The report form (GET); report the match (POST) and go to its page."""
    ladder = _member_ladder(request, slug)
    if isinstance(ladder, HttpResponse):
        return ladder
    form = ReportForm(
        request.POST if request.method == "POST" else None,
        ladder=ladder,
        reporter=request.user,
        initial=_lineup_from_query(request, ladder),
    )
    arguments = _prefilled(ladder, form) if request.method == "GET" else None
    status = 200
    if request.method == "POST":
        if form.editing_rows:
            if request.htmx:
                return render(
                    request,
                    "matches/_games.html",
                    {"form": form, "rows_url": reverse("ladder:report", args=[slug])},
                )
        else:
            arguments = form.report_arguments()
            if arguments is not None:
                try:
                    match = domain.report_match(ladder=ladder, reporter=request.user, **arguments)
                except MatchValidationError as exc:
                    form.add_domain_errors(exc.errors)
                except MatchPermissionError as exc:
                    return _forbidden(request, exc.message)
                else:
                    messages.success(
                        request,
                        f"Match reported. {names_or(match.opponents)} can now confirm it "
                        f"until {_when(match.expires_at)}.",
                    )
                    return redirect(match)
            status = 400
            # Without JavaScript this page is where the prediction and the points at stake
            # show: from the players entered, whatever else still needs fixing.
            arguments = arguments or form.report_arguments(partial=True)
    return render(
        request,
        "matches/report.html",
        _report_context(request, ladder, form, arguments),
        status=status,
    )


def _prefilled(ladder: Ladder, form: ReportForm) -> dict[str, Any] | None:
    """The lineup filled in from the address, as the prediction needs it, when every player
    is a member of the ladder (club night's "Report this match" shows the points at stake
    at once, without JavaScript); None otherwise."""
    slots = form.player_slots
    names = [str(form.initial.get(slot, "")) for slot in slots]
    if not slots or not all(names):
        return None
    users = {
        m.user.username: m.user
        for m in Membership.objects.filter(ladder=ladder, user__username__in=names).select_related(
            "user"
        )
    }
    if any(name not in users for name in names):
        return None
    by_slot = dict(zip(slots, (users[name] for name in names), strict=True))
    return {
        "played_on": timezone.localdate(),
        "side_a": [form.reporter, *(by_slot[s] for s in form.partner_slots)],
        "side_b": [by_slot[s] for s in form.opponent_slots],
    }


def _lineup_from_query(request: SignedInRequest, ladder: Ladder) -> dict[str, str]:
    """Players filled in from `?side_a=u1,u2&side_b=u3,u4` (club night's "Report this match").

    The reporter is always "you": your side gives the partners, the other the opponents.
    A lineup you are not in fills nothing (one of its players reports it).
    """
    sides = [
        [name.strip() for name in request.GET.get(key, "").split(",") if name.strip()]
        for key in ("side_a", "side_b")
    ]
    me = request.user.username
    mine = next((i for i, side in enumerate(sides) if me in side), None)
    if request.method != "GET" or mine is None:
        if request.method == "GET" and any(sides):
            messages.info(request, "You are not in that match: one of its players reports it.")
        return {}
    partners = [name for name in sides[mine] if name != me]
    opponents = sides[1 - mine]
    initial = {f"partner_{i}": name for i, name in enumerate(partners, 1)}
    initial.update({f"opponent_{i}": name for i, name in enumerate(opponents, 1)})
    return initial


@login_required
@require_POST
def report_validate(request: SignedInRequest, slug: str) -> HttpResponse:
    """Validation as you type: the form's errors and the prediction, nothing created.

    Answers 200 with out-of-band swaps of every error slot and the prediction panel, so
    the inputs being typed in are never replaced. Errors of a section only show once the
    member has filled it in (no "enter a game" while they are still choosing players).
    """
    ladder = _member_ladder(request, slug)
    if isinstance(ladder, HttpResponse):
        return ladder
    form = ReportForm(request.POST, ladder=ladder, reporter=request.user)
    arguments = form.report_arguments(partial=True)
    if arguments is not None:
        form.add_domain_errors(_report_errors(ladder, request.user, **arguments))
    complete = arguments if form.lineup_complete and form.is_valid() else None
    context = _report_context(request, ladder, form, complete)
    context["live"] = _live_errors(form)
    return render(request, "matches/_report_feedback.html", context)


def _live_errors(form: ReportForm) -> list[tuple[str, list[str]]]:
    """(element id, messages) for every error slot of the report form, as typed so far."""
    lineup = form.lineup_complete
    slots: list[tuple[str, list[str]]] = [("errors-played_on", form.errors_for("played_on"))]
    for slot in form.player_slots:
        filled = form.slot_filled(slot)
        slots.append((f"errors-{slot}", form.errors_for(slot) if filled else []))
    for section in ("side_a", "side_b", "players"):
        slots.append((f"errors-{section}", form.errors_for(section) if lineup else []))
    games = form.games_entered
    slots.append(("errors-games", form.errors_for("games") if games else []))
    slots.append(("errors-stats", form.errors_for("stats")))
    slots.append(("errors-all", form.all_errors if lineup and games else []))
    return slots


@login_required
@require_GET
def player_search(request: SignedInRequest, slug: str) -> HttpResponse:
    """Type-ahead: the ladder's members matching the text, as choices; with ``pick``, the
    player input again with the chosen member filled in."""
    ladder = get_ladder_for_user(request, slug)
    slot = request.GET.get("slot", "")
    if not slot.replace("_", "").isalnum():
        slot = "player"
    label = request.GET.get("label") or "Player"
    members = Membership.objects.filter(ladder=ladder).listed_for(request.user)
    members = members.select_related("user").exclude(user=request.user)
    picked = request.GET.get("pick")
    if picked is not None:
        member = members.filter(user__username=picked).first()
        context = {
            "ladder": ladder,
            "slot": slot,
            "label": label,
            "value": picked,
            "picked": member.user if member else None,
        }
        response = render(request, "matches/_player_slot.html", context)
        # The report form listens for this to validate and predict again.
        return trigger_client_event(response, "player-picked")
    text = (request.GET.get("q") or request.GET.get(slot) or "").strip().lstrip("@")
    found: list[Membership] = []
    if text:
        found = list(
            members.filter(name_contains(text, "user__")).order_by(
                "user__display_name", "user__username"
            )[:SEARCH_LIMIT]
        )
    context = {"ladder": ladder, "slot": slot, "label": label, "members": found, "text": text}
    return render(request, "matches/_player_options.html", context)


# ---- the match page -----------------------------------------------------------------------


def _when(moment: Any) -> str:
    return date_format(timezone.localtime(moment), "j M H:i")


@require_GET
def match_detail(request: HttpRequest, pk: int) -> HttpResponse:
    match = get_match_for_user(request.user, pk)
    actions = _actions(match, request.user)
    mask_hidden_players([match], request.user)
    context = {
        "match": match,
        "actions": actions,
        "disputes": list(match.disputes.all()),
        "audit": list(match.audit.all()),
    }
    return render(request, "matches/match_detail.html", context)


@login_required
@require_POST
def confirm(request: SignedInRequest, pk: int) -> HttpResponse:
    match = get_match_for_user(request.user, pk)
    return _transition(
        request,
        match,
        lambda: domain.confirm_match(match, request.user),
        "Confirmed: thanks. The match counts for the ratings.",
    )


@login_required
@require_POST
def cancel(request: SignedInRequest, pk: int) -> HttpResponse:
    match = get_match_for_user(request.user, pk)
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
    match = get_match_for_user(request.user, pk)
    if request.htmx and request.GET.get("cancel"):
        return _row_response(request, match)
    if request.method == "GET" and "dispute" not in _actions(match, request.user):
        message = (
            "Only a player of the side opposing the reporter can dispute a match, while it "
            f"waits for confirmation. This one is {match.get_state_display().lower()}."
        )
        if request.htmx:
            return _row_response(request, match, error=message, status=403)
        return _forbidden(request, message)
    form = DisputeForm(request.POST if request.method == "POST" else None, match=match)
    status = 200
    if request.method == "POST" and not form.editing_rows:
        arguments = form.dispute_arguments()
        if arguments is not None:
            try:
                domain.dispute_match(match, request.user, **arguments)
            except MatchValidationError as exc:
                form.add_domain_errors(exc.errors)
            except (MatchPermissionError, MatchStateError) as exc:
                return _refused(request, match, exc)
            else:
                done = "Disputed: a moderator will look at it. The match is not rated meanwhile."
                if request.htmx:
                    return _row_response(request, match, note=done)
                messages.success(request, done)
                return HttpResponseRedirect(_next_or(request, match.get_absolute_url()))
        status = 400
    context = {
        **_match_form_context(match, f"d{match.pk}-", "The right score (optional)"),
        "form": form,
        "rows_url": reverse("match_dispute", args=[match.pk]),
        "next": _next_or(request, ""),
    }
    if request.htmx:
        template = "matches/_games.html" if form.editing_rows else "matches/_inbox_dispute_row.html"
        return render(request, template, context, status=status)
    return render(request, "matches/dispute.html", context, status=status)


def _match_form_context(match: Match, prefix: str, legend: str) -> dict[str, Any]:
    """What a form about an existing match shows with its game rows."""
    return {
        "match": match,
        "prefix": prefix,
        "games_legend": legend,
        "side_a_label": names_and(match.side_a_players),
        "side_b_label": names_and(match.side_b_players),
    }


# ---- inbox --------------------------------------------------------------------------------


@login_required
@require_GET
def inbox(request: SignedInRequest) -> HttpResponse:
    box = inbox_for(request.user)
    user = request.user
    context = {
        "inbox": box,
        "to_confirm": [Row(m, _actions(m, user)) for m in box.to_confirm],
        "my_pending": [Row(m, _actions(m, user)) for m in box.my_pending],
        "disputes": box.disputes,
        "ladders": Ladder.objects.filter(memberships__user=user).order_by("name"),
    }
    return render(request, "matches/inbox.html", context)


# ---- moderation ---------------------------------------------------------------------------


@dataclass
class Case:
    """A match in front of a moderator: its open dispute, the decision form, the outcome."""

    match: Match
    dispute: Any
    form: ModerationForm
    done: str = ""

    @property
    def prefix(self) -> str:
        """Scopes the element ids of this case's form: several share the moderation page."""
        return f"m{self.match.pk}-"


def _open_dispute(match: Match) -> Any:
    return next((d for d in reversed(match.disputes.all()) if d.resolution is None), None)


def _case(match: Match, data: Any = None) -> Case:
    dispute = _open_dispute(match)
    proposed = dispute.proposed_games if dispute is not None and dispute.proposed_games else None
    form = ModerationForm(data, match=match, games=proposed or match.game_scores)
    return Case(match, dispute, form)


@login_required
@require_GET
def moderation(request: SignedInRequest) -> HttpResponse:
    if not request.user.is_moderator:
        return _forbidden(request, "The moderation queue is for moderators.")
    cases = [_case(match) for match in moderation_queue()]
    return render(request, "matches/moderation.html", {"cases": cases})


@login_required
@require_http_methods(["GET", "POST"])
def resolve(request: SignedInRequest, pk: int) -> HttpResponse:
    """Resolve a dispute: uphold, correct (with the games) or void, with a reason."""
    match = get_match_for_user(request.user, pk)
    if request.method == "GET":
        if "resolve" not in _actions(match, request.user):
            return _forbidden(request, "Only a moderator resolves a disputed match.")
        return render(request, "matches/resolve.html", {"case": _case(match)})
    case = _case(match, request.POST)
    arguments = case.form.moderation_arguments()
    status = 400
    if arguments is not None:
        try:
            domain.resolve_dispute(match, request.user, **arguments)
        except MatchValidationError as exc:
            case.form.add_domain_errors(exc.errors)
        except MatchPermissionError as exc:
            return _forbidden(request, exc.message)
        except MatchStateError as exc:
            if not request.htmx:
                messages.error(request, exc.message)
                return redirect(match)
            case.form.add_section_errors("__all__", [exc.message])
            status = 409
        else:
            case = Case(_refresh(match), None, case.form, done=_resolution_note(arguments))
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
    match = get_match_for_user(request.user, pk)
    if request.method == "GET" and decision not in _actions(match, request.user):
        return _forbidden(
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
            except MatchPermissionError as exc:
                return _forbidden(request, exc.message)
            except MatchStateError as exc:
                messages.error(request, exc.message)
                return redirect(match)
            else:
                messages.success(request, _resolution_note({"decision": decision}))
                return redirect(match)
        status = 400
    label = "Save the correction" if decision == "correct" else "Void the match"
    context = {"match": match, "form": form, "decision": decision, "label": label}
    return render(request, "matches/moderate.html", context, status=status)


@login_required
@require_GET
def inbox_badge(request: HttpRequest) -> HttpResponse:
    """The navigation badge alone: HTMX reloads it after an action in the inbox."""
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
    response = render(request, "matches/notifications.html", {"page": page, "shown": shown})
    unread = [n.pk for n in shown if n.read_at is None]
    if unread:
        Notification.objects.filter(pk__in=unread).update(read_at=timezone.now())
    return response
