"""The pages of challenges, open games and the calendar: thin views over ``services.py``
(the same functions as the API), errors put back on the form."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods
from icalendar import Calendar

from accounts.models import User
from core.refusals import forbidden, form_action
from ladder.clubs import access
from ladder.clubs.models import Ladder
from ladder.clubs.views import get_ladder_for_user
from ladder.matches.errors import (
    MatchError,
    MatchPermissionError,
    MatchRateLimited,
    MatchValidationError,
)
from ladder.matches.views import SignedInRequest
from ladder.play import services
from ladder.play.calendar import member_calendar, single_event
from ladder.play.forms import ChallengeForm, OpenGameForm, TimesForm
from ladder.play.models import (
    LIVE,
    OPEN,
    SCHEDULED,
    CalendarFeed,
    Challenge,
    OpenGame,
    PlaySettings,
)


def _member_ladder(request: SignedInRequest, slug: str, doing: str) -> Ladder | HttpResponse:
    ladder = get_ladder_for_user(request, slug)
    if not ladder.is_member:  # type: ignore[attr-defined]
        return forbidden(request, f"Only members of {ladder.name} {doing}: join the ladder first.")
    if barred := access.barred(ladder, request.user):
        return forbidden(request, barred)
    return ladder


@login_required
@require_http_methods(["GET", "POST"])
def challenge_new(request: SignedInRequest, slug: str) -> HttpResponse:
    """The challenge form: opponents (and a partner in doubles), up to three times, a message."""
    ladder = _member_ladder(request, slug, "challenge its players")
    if isinstance(ladder, HttpResponse):
        return ladder
    initial = {"opponent_1": request.GET.get("opponent", "")}
    form = ChallengeForm(request.POST or None, ladder=ladder, initial=initial)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            services.create_challenge(ladder=ladder, by=request.user, **form.arguments())
        except MatchValidationError as exc:
            form.add_domain_errors(exc.errors)
        except MatchRateLimited as exc:
            form.add_error(None, exc.message)  # it says when to try again
            status = 429
        else:
            messages.success(request, "Challenge sent. You will hear when they answer.")
            return redirect("challenges")
    if request.method == "POST" and status == 200:
        status = 400
    rules = PlaySettings.of(ladder)
    return render(
        request,
        "play/challenge_form.html",
        {"ladder": ladder, "form": form, "rules": rules},
        status=status,
    )


def _sections(user: User, challenges: list[Challenge]) -> list[tuple[str, str, list[Challenge]]]:
    now = timezone.now()

    def answering(c: Challenge) -> bool:
        return c.state == OPEN and c.side_of(user) == c.answering_side and c.expires_at > now

    return [
        ("answer", "To answer", [c for c in challenges if answering(c)]),
        (
            "waiting",
            "Waiting for an answer",
            [c for c in challenges if c.state == OPEN and not answering(c)],
        ),
        ("scheduled", "Scheduled", [c for c in challenges if c.state == SCHEDULED]),
        ("past", "Past", [c for c in challenges if c.state not in LIVE][:20]),
    ]


@login_required
@require_GET
def challenges(request: SignedInRequest) -> HttpResponse:
    """My challenges by what they wait for (moderators: ``?all=1``, everyone's)."""
    everyone = request.user.is_moderator and request.GET.get("all") == "1"
    queryset = services.challenges_for(request.user)
    if not everyone:
        queryset = queryset.filter(players__user=request.user)
    shown = list(queryset.order_by("-created_at", "-pk")[:200])
    # Each challenge listed with its form for other times (the model holds no form).
    sections = [
        (key, title, [(c, TimesForm(prefix=f"c{c.pk}")) for c in items])
        for key, title, items in _sections(request.user, shown)
    ]
    feed = CalendarFeed.objects.filter(user=request.user).first()
    return render(
        request,
        "play/challenges.html",
        {
            "sections": sections,
            "everyone": everyone,
            "feed": feed,
            "now": timezone.now(),
            "my_ladders": [m.ladder for m in request.user.memberships.select_related("ladder")],
        },
    )


@form_action
def challenge_action(request: SignedInRequest, pk: int, action: str) -> HttpResponse:
    """accept / propose / decline / cancel, from the My challenges page."""
    challenge = services.get_challenge_for_user(request.user, pk)
    done = {
        "accept": "Accepted: the match is scheduled (and in your calendar feed, if you use one).",
        "propose": "Other times sent.",
        "decline": "Declined.",
        "cancel": "Cancelled.",
    }
    try:
        if action == "accept":
            services.accept_challenge(challenge, request.user, request.POST.get("time", ""))
        elif action == "propose":
            form = TimesForm(request.POST, prefix=f"c{challenge.pk}")
            times = form.times() if form.is_valid() else []
            services.propose_times(challenge, request.user, times)
        elif action == "decline":
            services.decline_challenge(challenge, request.user)
        elif action == "cancel":
            services.cancel_challenge(challenge, request.user)
        else:
            raise Http404("No such action.")
    except MatchPermissionError as exc:
        return forbidden(request, exc.message)
    except MatchError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done[action])
    return redirect(reverse("challenges") + f"#challenge-{challenge.pk}")


def _ics(calendar: Calendar, filename: str, attachment: bool) -> HttpResponse:
    response = HttpResponse(calendar.to_ical(), content_type="text/calendar; charset=utf-8")
    disposition = "attachment" if attachment else "inline"
    response["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_GET
def challenge_ics(request: SignedInRequest, pk: int) -> HttpResponse:
    """One scheduled match as an .ics file, to add to a calendar by hand."""
    challenge = services.get_challenge_for_user(request.user, pk)
    if challenge.starts_at is None:
        raise Http404("This challenge has no time yet.")
    return _ics(single_event(challenge), f"challenge-{challenge.pk}.ics", attachment=True)


@login_required
@require_GET
def open_game_ics(request: SignedInRequest, pk: int) -> HttpResponse:
    game = services.get_game(pk, request.user)
    if request.user.pk not in {u.pk for u in game.players_list}:
        raise Http404("Not one of your games.")
    return _ics(single_event(game), f"game-{game.pk}.ics", attachment=True)


@login_required
@require_http_methods(["GET", "POST"])
def open_games(request: SignedInRequest, slug: str) -> HttpResponse:
    """A ladder's games to come: join, leave, cancel; post one."""
    ladder = get_ladder_for_user(request, slug)
    form = OpenGameForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if not ladder.is_member:  # type: ignore[attr-defined]
            return forbidden(request, f"Only members of {ladder.name} post its games.")
        if form.is_valid():
            try:
                services.post_open_game(ladder=ladder, by=request.user, **form.arguments())
            except MatchValidationError as exc:
                form.add_domain_errors(exc.errors)
            else:
                messages.success(request, "Game posted. You will hear when someone joins.")
                return redirect("ladder:open_games", slug=ladder.slug)
        status = 400
    games = list(services.open_games(ladder))
    to_report = list(services.games_to_report(ladder, request.user))
    viewer = access.viewer_for(request)
    unseen = access.unseen(viewer, [ladder.pk]).get(ladder.pk, set())
    refusals = services.join_refusals(ladder, request.user, games)
    shown = {
        g.pk: ShownGame(g, access.people(viewer, g.players_list, unseen), refusals.get(g.pk, ""))
        for g in games + to_report
    }
    context = {
        "ladder": ladder,
        "games": [shown[g.pk] for g in games],
        "to_report": [shown[g.pk] for g in to_report],
        "form": form,
        "barred": access.barred(ladder, request.user),
    }
    return render(request, "play/open_games.html", context, status=status)


@dataclass(frozen=True)
class ShownGame:
    """An open game and its players as the viewer may see them (the access policy: a hidden
    host reads as the placeholder, with no link, to anyone but the game's players)."""

    game: OpenGame
    players: list[access.Person]
    cannot_join: str = ""  # why the viewer could not join it (services.join_refusals)

    @property
    def host(self) -> access.Person:
        ids = [u.pk for u in self.game.players_list]
        if self.game.host_id in ids:
            return self.players[ids.index(self.game.host_id)]
        return access.Person(access.HIDDEN_PLAYER_NAME, None)

    @property
    def joined(self) -> set[int]:
        return {u.pk for u in self.game.players_list}


@form_action
def open_game_action(request: SignedInRequest, pk: int, action: str) -> HttpResponse:
    game = services.get_game(pk, request.user)
    operations = {
        "join": (services.join_open_game, "You are in."),
        "leave": (services.leave_open_game, "You left the game."),
        "cancel": (services.cancel_open_game, "Game cancelled; its players are told."),
    }
    if action not in operations:
        raise Http404("No such action.")
    operation, done = operations[action]
    try:
        operation(game, request.user)
    except MatchPermissionError as exc:
        return forbidden(request, exc.message)
    except MatchError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return redirect(reverse("ladder:open_games", args=[game.ladder.slug]) + f"#game-{game.pk}")


@login_required
@require_http_methods(["GET", "POST"])
def calendar_settings(request: SignedInRequest) -> HttpResponse:
    """The member's private feed address; POST makes a new one (the old one stops)."""
    if request.method == "POST":
        services.renew_feed(request.user)
        messages.success(request, "New address made: the old one no longer works.")
        return redirect("calendar")
    feed = services.feed_of(request.user)
    url = request.build_absolute_uri(feed.get_absolute_url())
    webcal = "webcal://" + url.split("://", 1)[-1]
    return render(request, "play/calendar.html", {"url": url, "webcal": webcal})


@require_GET
def calendar_feed(request: HttpRequest, token: str) -> HttpResponse:
    """The feed itself: the secret in the address is the key (calendar apps have no session)."""
    feed = CalendarFeed.objects.filter(token=token).select_related("user").first()
    if feed is None or not feed.is_current:
        raise Http404("No such calendar.")
    return _ics(member_calendar(feed.user), "club-ladder.ics", attachment=False)
