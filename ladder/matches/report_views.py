"""The report pages: the report form (with its prediction and stakes), its check as the
member types, and the player search beside it. Thin views, as ``views.py``: the rules are
``validation.py``'s and the change is ``operations.report_match``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import trigger_client_event

from accounts.models import User, name_contains
from core.refusals import forbidden, form_action
from ladder.clubs import access
from ladder.clubs.access import Viewer, viewer_for
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.views import get_ladder_for_user
from ladder.matches import hooks
from ladder.matches import operations as domain
from ladder.matches.errors import (
    MatchError,
    MatchValidationError,
)
from ladder.matches.forms import ReportForm
from ladder.matches.rematch import recent_lineups
from ladder.matches.serializers import SCHEDULED_LINKS
from ladder.matches.templatetags.match_tags import names_and, names_or
from ladder.matches.validation import Report, check_report
from ladder.matches.views import SignedInRequest

# Type-ahead: enough names to pick from, few enough to read.
SEARCH_LIMIT = 8
# Members named under the player inputs when JavaScript is off.
NOSCRIPT_MEMBERS = 60


def _when(moment: datetime) -> str:
    return date_format(timezone.localtime(moment), "j M H:i")


def _member_ladder(request: HttpRequest, slug: str) -> Ladder | HttpResponse:
    ladder = get_ladder_for_user(request, slug)
    if not ladder.is_member:  # type: ignore[attr-defined]
        return forbidden(
            request, f"Only members of {ladder.name} report its matches: join the ladder first."
        )
    barred = access.barred(ladder, request.user)  # banned from the ladder: the reason why
    if barred:
        return forbidden(request, barred)
    return ladder


def _report_errors(ladder: Ladder, reporter: User, **arguments: Any) -> dict[str, list[str]]:
    """The domain's verdict on a report without making it (``check_report``: the same
    rules as the real report, no locks, no rows): its errors, {} when it would pass."""
    try:
        check_report(Report(ladder=ladder, reporter=reporter, **arguments))
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
    stakes: object = None  # ratings.stakes.Stakes, for the template (RATINGS.md §6)


def _prediction(
    ladder: Ladder, viewer: Viewer, form: ReportForm, arguments: dict[str, Any] | None
) -> PredictionPanel:
    """The engine's win probability for your side, once every player is known, unless it
    would tell ``viewer`` the rating of a player hidden from them (the access policy: they
    may name an opponent they played, not read their rating)."""
    # An unbound form's arguments come from a complete lineup in the address (_prefilled).
    complete = form.lineup_complete if form.is_bound else arguments is not None
    if arguments is None or not complete or form.errors_for("players"):
        return PredictionPanel(None, "Choose every player to see who is expected to win.")
    side_a, side_b = arguments["side_a"], arguments["side_b"]
    if len(side_b) != ladder.team_size or len(side_a) != ladder.team_size:
        return PredictionPanel(None, "Choose every player to see who is expected to win.")
    if not access.sees_all_of(viewer, ladder, [*side_a, *side_b]):
        return PredictionPanel(
            None, "No prediction: a player here is not listed publicly, so their rating is private."
        )
    prediction = hooks.ratings().predict(ladder, side_a, side_b, arguments["played_on"])
    probability = None if prediction is None else prediction.probability
    if probability is None:
        return PredictionPanel(
            None, "No prediction: the rating engine has none for these players yet."
        )
    partners = side_a[1:]
    yours = f"you and {names_and(partners)}" if partners else "you"
    stakes = hooks.ratings().stakes(ladder, side_a, side_b, arguments["played_on"])
    return PredictionPanel(probability, "", f"{yours} beat {names_and(side_b)}", stakes)


def _report_context(
    request: SignedInRequest,
    ladder: Ladder,
    form: ReportForm,
    arguments: dict[str, Any] | None,
) -> dict[str, Any]:
    viewer = viewer_for(request)
    members = (
        access.players(viewer, Membership.objects.filter(ladder=ladder))
        .exclude(user=request.user)
        .select_related("user")
        .order_by("user__display_name", "user__username")
    )
    return {
        "ladder": ladder,
        "form": form,
        "prediction": _prediction(ladder, viewer, form, arguments),
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
    arguments = None
    if request.method == "GET":
        arguments = _prefilled(ladder, form)
        form.pick_initial(viewer_for(request))
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
                    match = domain.report_match(
                        Report(ladder=ladder, reporter=request.user, **arguments),
                        links=form.links(),
                    )
                except MatchValidationError as exc:
                    form.add_domain_errors(exc.errors)
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
        "played_on": form.initial.get("played_on") or timezone.localdate(),
        "side_a": [form.reporter, *(by_slot[s] for s in form.partner_slots)],
        "side_b": [by_slot[s] for s in form.opponent_slots],
    }


def _links_from_query(request: SignedInRequest) -> dict[str, int]:
    """`?challenge=ID` (or `?open_game=ID`): what the match was scheduled as."""
    raw = {link: request.GET.get(link, "") for link in SCHEDULED_LINKS}
    return {link: int(value) for link, value in raw.items() if value.isdigit() and int(value)}


def _lineup_from_query(request: SignedInRequest, ladder: Ladder) -> dict[str, Any]:
    """Players filled in from `?side_a=u1,u2&side_b=u3,u4` (club night's "Report this match"),
    or from the scheduled match of `?challenge=ID` (the play app answers: `hooks.play()`).

    The reporter is always "you": your side gives the partners, the other the opponents.
    A lineup you are not in fills nothing (one of its players reports it).
    """
    links = _links_from_query(request) if request.method == "GET" else {}
    arranged = hooks.play().scheduled_lineup(ladder, request.user, links) if links else None
    sides = [
        [name.strip() for name in request.GET.get(key, "").split(",") if name.strip()]
        for key in ("side_a", "side_b")
    ]
    if arranged:
        sides = [list(arranged.side_a), list(arranged.side_b)]
    me = request.user.username
    mine = next((i for i, side in enumerate(sides) if me in side), None)
    if request.method != "GET" or mine is None:
        if request.method == "GET" and any(sides):
            messages.info(request, "You are not in that match: one of its players reports it.")
        return {}
    partners = [name for name in sides[mine] if name != me]
    opponents = sides[1 - mine]
    initial: dict[str, Any] = {f"partner_{i}": name for i, name in enumerate(partners, 1)}
    initial.update({f"opponent_{i}": name for i, name in enumerate(opponents, 1)})
    if arranged:
        initial.update(links)
        # Reported the day after, it is still dated the day it was played; a time still
        # ahead (played early) leaves today's date.
        initial["played_on"] = min(arranged.played_on, timezone.localdate())
    return initial


@form_action
def report_validate(request: SignedInRequest, slug: str) -> HttpResponse:
    """Validation as you type: the form's errors and the prediction, nothing created.

    Answers 200 with out-of-band swaps of every error slot and the prediction panel, so
    the inputs being typed in are never replaced. Errors of a section only show once the
    member has filled it in (no "enter a game" while they are still choosing players).
    """
    ladder = _member_ladder(request, slug)
    if isinstance(ladder, HttpResponse):
        return ladder
    # htmx sends the last submit button focused with the form: a Remove or Add button the
    # member tabbed past is not a row edit here, only a check of what is typed.
    typed = request.POST.copy()
    for button in ("add_game", "remove_game"):
        typed.pop(button, None)
    form = ReportForm(typed, ladder=ladder, reporter=request.user)
    arguments = form.report_arguments(partial=True)
    if arguments is not None:
        form.add_domain_errors(_report_errors(ladder, request.user, **arguments))
    complete = arguments if form.lineup_complete and form.is_valid() else None
    context = _report_context(request, ladder, form, complete)
    context["live"] = _live_errors(form)
    return render(request, "matches/_report_feedback.html", context)


def _live_errors(form: ReportForm) -> list[tuple[str, list[str]]]:
    """(element id, messages) for every error slot of the report form, as typed so far."""
    # A side's "needs exactly 2 players" only once every player input names a member: a
    # name not found already says what is wrong.
    lineup = form.lineup_complete and not any(form.errors_for(s) for s in form.player_slots)
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
    members = access.players(viewer_for(request), Membership.objects.filter(ladder=ladder))
    # Never oneself; with ``available`` (choosing whom to challenge), not those away today.
    members = members.select_related("user").exclude(user=request.user)
    available = request.GET.get("available") == "1"
    if available:
        members = members.exclude(away_until__gte=timezone.localdate())
    picked = request.GET.get("pick")
    if picked is not None:
        member = members.filter(user__username=picked).first()
        context = {
            "ladder": ladder,
            "slot": slot,
            "label": label,
            "value": picked,
            "picked": member.user if member else None,
            "available": available,
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
    context = {
        "ladder": ladder,
        "slot": slot,
        "label": label,
        "members": found,
        "text": text,
        "available": available,
    }
    return render(request, "matches/_player_options.html", context)


@login_required
@require_GET
def report_start(request: SignedInRequest) -> HttpResponse:
    """ "Report" in the header: the member's one ladder's report form, or a choice of their
    ladders and a rematch of a recent lineup (one tap to a form with the players filled in)."""
    ladders = list(Ladder.objects.filter(memberships__user=request.user).order_by("name"))
    lineups = recent_lineups(request.user)
    if len(ladders) == 1 and not lineups:
        return redirect("ladder:report", ladders[0].slug)
    return render(request, "matches/report_start.html", {"ladders": ladders, "lineups": lineups})
