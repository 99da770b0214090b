"""The club night page: tick who is in the hall (members, and guests added by name), get a
round of balanced matches, then the next; and a round's scores entered on one screen.

One view serves the page and its two fragments (HTMX): the list of players (after
"everyone from the last club night" or adding a guest) and the rounds panel (after
proposing a round or starting over). Without JavaScript the same buttons post the form and
the page comes back. The matchmaking lives in ladder/clubnight/matchmaking.py, tonight's
rounds, guests and scores in services.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods
from django_htmx.http import reswap, retarget

from accounts.models import User
from ladder.clubnight import services as clubnight
from ladder.clubnight.matchmaking import QUALITY_FLOOR, ClubNightError, ClubNightPermissionError
from ladder.clubnight.models import ClubNight
from ladder.clubs import access
from ladder.clubs.access import HIDDEN_PLAYER_NAME, Viewer, viewer_for
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.views import get_ladder_for_user
from ladder.matches.forms import MatchForm
from ladder.matches.views import SignedInRequest
from ratings.models import rating_params


@dataclass(frozen=True)
class Attendee:
    """A member in the hall as the page lists them: with their current rating and rated matches."""

    username: str
    name: str
    rating: float | None  # None: not shown (a hidden member, or one who has left)
    rd: float | None  # grown for inactivity up to today
    games: int
    status: str = clubnight.UNRATED  # RATINGS.md §8 (clubnight.standing)
    guest: bool = False  # not a member: unrated, shown as "guest"
    removed: bool = False  # a guest taken off tonight's list since

    @property
    def provisional(self) -> bool:
        """Shown with "?" (RATINGS.md §8): not ranked yet, or not rated yet."""
        return self.status in ("provisional", clubnight.UNRATED)


def _guest(guest: clubnight.Guest) -> Attendee:
    return Attendee(guest.id, guest.name, None, None, 0, "guest", guest=True, removed=guest.removed)


def _with_guests(
    people: dict[str, Attendee], night: ClubNight | None, *, removed: bool = False
) -> dict[str, Attendee]:
    """The members listed and tonight's guests (with ``removed``, also those removed since,
    whom the rounds they were in still name)."""
    guests = clubnight.guests_of(night, removed=removed).values()
    return people | {g.id: _guest(g) for g in guests}


@dataclass(frozen=True)
class ShownResult:
    """A court's score as entered on the round's screen."""

    score: str  # "21-15 21-18", side A first
    games: list[tuple[int, int]]
    match_id: int | None  # the reported match; None for a game with a guest (not rated)
    corrected: bool = False  # a guest game's score, corrected since
    correct_url: str | None = None  # a guest game's, for whoever may correct it


@dataclass(frozen=True)
class ShownMatch:
    side_a: list[Attendee]
    side_b: list[Attendee]
    quality: float
    win_probability: float
    report_url: str | None  # for a player of this match: the report form, filled in
    below_floor: bool = False  # the players present allowed no match at the quality floor
    repeats: list[tuple[Attendee, Attendee]] = field(default_factory=list)  # met earlier tonight
    result: ShownResult | None = None  # entered on the round's screen

    @property
    def with_guest(self) -> bool:
        return any(p.guest for p in self.side_a + self.side_b)

    @property
    def not_played(self) -> str:
        """Why a court with no score will have none: its guests removed since ("" if none)."""
        gone = [p.name for p in self.side_a + self.side_b if p.removed]
        if self.result is not None or not gone:
            return ""
        verb = "was" if len(gone) == 1 else "were"
        return f"Not played: {' and '.join(gone)} {verb} removed from tonight's guests."


@dataclass(frozen=True)
class ShownRound:
    number: int
    matches: list[ShownMatch]
    byes: list[Attendee]


def _refused(request: SignedInRequest, ladder: Ladder) -> HttpResponse | None:
    """The 403 page for anyone who may not run the ladder's club night (members and
    moderators may); None for those who may."""
    refusal = clubnight.run_refusal(ladder, request.user)
    if refusal is None:
        return None
    return render(request, "forbidden.html", {"message": refusal}, status=403)


#: The actions that answer with the players' list (the guests are listed there).
GUEST_ACTIONS = ("add_guest", "remove_guest")


@login_required
@require_http_methods(["GET", "POST"])
def club_night(request: SignedInRequest, slug: str) -> HttpResponse:
    """Tonight's club night of a ladder, for its members and the moderators."""
    ladder = get_ladder_for_user(request, slug)
    if (refusal := _refused(request, ladder)) is not None:
        return refusal
    today = timezone.localdate()
    viewer = viewer_for(request)
    night = clubnight.tonight(ladder, today)
    people = _people(ladder, today, viewer)
    last = clubnight.last_club_night(ladder, today)
    error = guest_error = guest_name = guest_notice = ""
    status = 200
    # A guest's "Remove" button sends the guest's id as ``remove_guest``.
    action = "remove_guest" if "remove_guest" in request.POST else request.POST.get("action")
    action = action or "propose"

    # Members present tonight whom this viewer may not see (hidden members): not on the
    # viewer's list, so nobody else can untick them; a round another member proposes keeps
    # them (while they are still members with an active account).
    present = night.present if night else []
    kept = access.named(access.OPERATOR, ladder, present, playing=True)
    unseen = [u for u in present if u in kept and u not in people]
    if request.method == "POST":
        ticked = list(dict.fromkeys(request.POST.getlist("present")))
        try:
            if action == "start_over":
                clubnight.start_over(ladder, request.user, today)
            elif action == "add_guest":
                guest_name = request.POST.get("guest_name", "")
                guest = clubnight.add_guest(ladder, request.user, guest_name, today)
                ticked.append(guest.id)
                guest_name = ""
            elif action == "remove_guest":
                guest = clubnight.remove_guest(
                    ladder, request.user, request.POST["remove_guest"], today
                )
                ticked = [t for t in ticked if t != guest.id]
                guest_notice = f"{guest.name} was removed."
            else:
                members = [t for t in ticked if not clubnight.is_guest(t)]
                guests = [t for t in ticked if clubnight.is_guest(t)]
                users = clubnight.members_named(ladder, members, viewer)
                users += [kept[u] for u in unseen]
                courts = _courts(request.POST.get("courts", ""))
                night, _ = clubnight.add_round(ladder, request.user, users, today, courts, guests)
        except ClubNightPermissionError as exc:
            error, status = str(exc), 403
        except ClubNightError as exc:
            if action in GUEST_ACTIONS:
                guest_error = str(exc)
            else:
                error = str(exc)
            status = 400
        if status == 200 and not request.htmx and action not in GUEST_ACTIONS:
            return redirect(reverse("ladder:club_night", args=[slug]) + "#rounds")
        night = clubnight.tonight(ladder, today)
    else:
        ticked = night.present if night else []
        if request.GET.get("from") == "last" and last is not None:
            ticked = last.present
        elif request.GET.get("from") == "none":
            ticked = []

    context: dict[str, object] = {
        "ladder": ladder,
        "people": _with_guests(people, night),
        "ticked": set(ticked) - set(unseen),
        "unseen": len(unseen),
        "night": night,
        "rounds": _shown_rounds(ladder, night, _with_guests(people, night, removed=True), viewer),
        "error": error,
        "guest_error": guest_error,
        "guest_removal": action == "remove_guest",
        "guest_notice": guest_notice,
        "guest_name": guest_name,
        "max_guest_name": clubnight.MAX_GUEST_NAME,
        "today": today,
        "floor": QUALITY_FLOOR,
        "can_start_over": clubnight.may_start_over(night, request.user),
    }
    if request.htmx:
        if request.method == "GET" or action in GUEST_ACTIONS:
            # The players' list, wherever the form's submit aimed (Enter in the guest's name).
            response = render(request, "clubnight/club_night_players.html", context, status=status)
            return reswap(retarget(response, "#present-list"), "outerHTML")
        return render(request, "clubnight/club_night_rounds.html", context, status=status)
    context["last"] = last
    return render(request, "clubnight/club_night.html", context, status=status)


def _courts(typed: str) -> int | None:
    """The number of courts typed (blank: as many as the players fill); ClubNightError
    for anything but a whole number (the matchmaking checks its range)."""
    typed = typed.strip()
    if not typed:
        return None
    if not typed.isdigit():
        raise ClubNightError(f"The number of courts is a whole number, not {typed[:20]!r}.")
    return int(typed)


def _people(ladder: Ladder, on: date, viewer: Viewer) -> dict[str, Attendee]:
    """The ladder's members listed to ``viewer`` (the access policy), by username, in the
    order the page lists them (by name)."""
    memberships = list(
        access.players(viewer, Membership.objects.filter(ladder=ladder)).select_related("user")
    )
    states = clubnight.hall_states(ladder, [m.user for m in memberships])
    params = rating_params(ladder)
    people = []
    for m in memberships:
        state, games = states[m.user_id]
        shown = clubnight.standing(ladder, state, on, params)
        people.append(
            Attendee(m.user.username, m.user.name, shown.rating, shown.rd, games, shown.status)
        )
    people.sort(key=lambda p: (p.name.casefold(), p.username))
    return {p.username: p for p in people}


def _shown_rounds(
    ladder: Ladder, night: ClubNight | None, people: dict[str, Attendee], viewer: Viewer
) -> list[ShownRound]:
    """Tonight's rounds, the latest first, with names and (for their players) report links."""
    if night is None:
        return []

    unseen = access.unseen(viewer, [ladder.pk]).get(ladder.pk, set())
    hidden = {u.username: u.name for u in User.objects.filter(pk__in=unseen)} if unseen else {}
    viewer_name = viewer.username or None

    def person(username: str, among: list[str] = []) -> Attendee:  # noqa: B006 - never changed
        if clubnight.is_guest(username):
            return people.get(username) or Attendee(username, "Guest", None, None, 0, guest=True)
        if username in hidden:
            # The players of one match see each other (the access policy).
            if viewer_name in among:
                return Attendee(username, hidden[username], None, None, 0)
            return Attendee("", HIDDEN_PLAYER_NAME, None, None, 0)
        # Someone who has left the ladder since still shows, by username.
        return people.get(username) or Attendee(username, username, None, None, 0)

    shown = []
    for number, rnd in enumerate(night.rounds, start=1):
        matches = [
            ShownMatch(
                side_a=[person(u, m["side_a"] + m["side_b"]) for u in m["side_a"]],
                side_b=[person(u, m["side_a"] + m["side_b"]) for u in m["side_b"]],
                quality=m["quality"],
                win_probability=m["win_probability"],
                report_url=_report_url(ladder, m["side_a"], m["side_b"], viewer, night.date),
                below_floor=m["quality"] < rnd.get("floor", QUALITY_FLOOR),
                repeats=[
                    (person(x, m["side_a"] + m["side_b"]), person(y, m["side_a"] + m["side_b"]))
                    for x, y in m.get("repeats", [])
                ],
                result=_result(ladder, m, viewer, number, court),
            )
            for court, m in enumerate(rnd["matches"], start=1)
        ]
        shown.append(ShownRound(number, matches, [person(u) for u in rnd["byes"]]))
    return shown[::-1]


def _result(
    ladder: Ladder, match: dict[str, Any], viewer: Viewer, number: int, court: int
) -> ShownResult | None:
    result = match.get("result")
    if result is None:
        return None
    correct_url = None
    if result["match"] is None and clubnight.may_correct(result, viewer):
        correct_url = reverse("ladder:club_night_correct", args=[ladder.slug, number, court])
    return ShownResult(
        clubnight.score_text(result["games"]),
        [(a, b) for a, b in result["games"]],
        result["match"],
        corrected="corrected_by" in result,
        correct_url=correct_url,
    )


def _report_url(
    ladder: Ladder, side_a: list[str], side_b: list[str], viewer: Viewer, played_on: date
) -> str | None:
    """The report form with the players filled in, the viewer's side first (the reporter is
    always on side A there) and the night's date; None for a match the viewer is not in, or
    one with a guest (never reported: it is not rated)."""
    if any(clubnight.is_guest(p) for p in side_a + side_b):
        return None
    me = viewer.username
    if me in side_b:
        side_a, side_b = side_b, side_a
    elif me not in side_a:
        return None
    ours = [me, *(u for u in side_a if u != me)]
    query = urlencode(
        {"side_a": ",".join(ours), "side_b": ",".join(side_b), "played_on": played_on.isoformat()},
        safe=",",
    )
    return f"{reverse('ladder:report', args=[ladder.slug])}?{query}"


# ---- a round's scores on one screen ------------------------------------------------------------


@dataclass
class CourtForm:
    """One court's block of the round's screen: its match, and the score boxes as typed."""

    number: int
    match: ShownMatch
    form: MatchForm  # parses the typed games as the report form does
    rows: list[tuple[int, str, str]]  # (game, side A's points, side B's points) as typed
    errors: list[str]

    @property
    def done(self) -> bool:
        return self.match.result is not None

    @property
    def sides(self) -> tuple[list[Attendee], list[Attendee]]:
        return self.match.side_a, self.match.side_b


def _court_forms(ladder: Ladder, shown: ShownRound, data: QueryDict | None) -> list[CourtForm]:
    """A block per court of the round, its boxes as posted."""
    return [
        _court_form(ladder, number, match, data)
        for number, match in enumerate(shown.matches, start=1)
    ]


def _court_form(
    ladder: Ladder,
    number: int,
    match: ShownMatch,
    data: QueryDict | None,
    filled: Sequence[Sequence[int]] = (),
) -> CourtForm:
    """One court's block, its boxes as posted (``c<court>-a``, ``c<court>-b``: one of each
    per game), or else ``filled`` with a score entered before."""
    best_of = ladder.scoring().best_of
    games = QueryDict(mutable=True)
    if data is not None:
        games.setlist("game_a", data.getlist(f"c{number}-a")[:best_of])
        games.setlist("game_b", data.getlist(f"c{number}-b")[:best_of])
    form = MatchForm(games if data is not None else None, ladder=ladder)
    if data is not None:
        typed = [(r.a, r.b) for r in form.game_rows]
    else:
        typed = [(str(a), str(b)) for a, b in filled]
    typed += [("", "")] * (best_of - len(typed))
    rows = [(n, a, b) for n, (a, b) in enumerate(typed, start=1)]
    return CourtForm(number, match, form, rows, [])


def _rounds_tonight(ladder: Ladder, today: date, viewer: Viewer) -> dict[int, ShownRound]:
    """Tonight's rounds by number as ``viewer`` sees them (guests named, those removed too)."""
    night = clubnight.tonight(ladder, today)
    people = _with_guests(_people(ladder, today, viewer), night, removed=True)
    return {r.number: r for r in _shown_rounds(ladder, night, people, viewer)}


@login_required
@require_http_methods(["GET", "POST"])
def round_scores(request: SignedInRequest, slug: str, number: int) -> HttpResponse:
    """Every court's score of tonight's round ``number`` on one form, submitted once.

    Each court on its own (``clubnight.enter_scores``): the valid ones are saved, the
    refused ones keep what was typed and say why; a court entered before is not entered
    again, so a double submit reports nothing twice. Blank courts wait for later."""
    ladder = get_ladder_for_user(request, slug)
    if (refusal := _refused(request, ladder)) is not None:
        return refusal
    today = timezone.localdate()
    viewer = viewer_for(request)
    rounds = _rounds_tonight(ladder, today, viewer)
    if number not in rounds:
        raise Http404(f"There is no round {number} on tonight's club night of {ladder.name}.")
    data = request.POST if request.method == "POST" else None
    courts = _court_forms(ladder, rounds[number], data)
    error = ""
    status = 200
    if request.method == "POST":
        scores = {}
        for court in courts:
            # A court entered before still goes to the service, which leaves it alone: a
            # second submit of the same form (a double tap, the back button) is no error.
            if not court.form.games_entered:
                continue
            games = court.form.parse_games()
            if games is None:
                court.errors = court.form.errors_for("games")
            else:
                scores[court.number] = games
        outcomes: dict[int, clubnight.CourtOutcome] = {}
        try:
            if scores:
                outcomes = clubnight.enter_scores(ladder, request.user, number, scores, today)
            elif not any(c.errors for c in courts):
                error, status = "Enter the score of at least one court.", 400
        except ClubNightPermissionError as exc:
            error, status = str(exc), 403
        except ClubNightError as exc:
            error, status = str(exc), 400
        for court in courts:
            outcome = outcomes.get(court.number)
            if outcome is not None and outcome.status == clubnight.REFUSED:
                court.errors = [outcome.message]
        entered = [o for o in outcomes.values() if o.status != clubnight.REFUSED]
        if not any(c.errors for c in courts) and not error:
            messages.success(request, _entered_message(number, list(outcomes.values())))
            return redirect(reverse("ladder:club_night", args=[slug]) + "#rounds")
        if any(c.errors for c in courts):
            status = 400
            saved = len([o for o in entered if o.status != clubnight.ALREADY])
            error = (
                f"{saved} court{'s' if saved != 1 else ''} saved; " if saved else "Nothing saved: "
            ) + "correct the courts marked below and save again."
        # The courts saved just now show as entered.
        fresh = _rounds_tonight(ladder, today, viewer).get(number)
        for court, match in zip(courts, fresh.matches if fresh else [], strict=False):
            court.match = match
    return render(
        request,
        "clubnight/round_scores.html",
        {
            "ladder": ladder,
            "round": rounds[number],
            "courts": courts,
            "error": error,
            "today": today,
        },
        status=status,
    )


def _entered_message(number: int, outcomes: list[clubnight.CourtOutcome]) -> str:
    reported = sum(o.status == clubnight.REPORTED for o in outcomes)
    kept = sum(o.status == clubnight.KEPT for o in outcomes)
    parts = []
    if reported:
        parts.append(
            f"{reported} match{'es' if reported != 1 else ''} reported: "
            "a player of each waits to confirm it"
        )
    if kept:
        parts.append(f"{kept} game{'s' if kept != 1 else ''} with a guest kept (not rated)")
    if not parts:
        return f"Round {number}: those courts were entered already; nothing was entered twice."
    return f"Round {number}: " + "; ".join(parts) + "."


@login_required
@require_http_methods(["GET", "POST"])
def correct_score(request: SignedInRequest, slug: str, number: int, court: int) -> HttpResponse:
    """Correct the score of tonight's game with a guest (round ``number``, ``court``), for
    whoever entered it or a moderator (``clubnight.correct_guest_score``): unrated, so only
    the night's record changes."""
    ladder = get_ladder_for_user(request, slug)
    if (refusal := _refused(request, ladder)) is not None:
        return refusal
    today = timezone.localdate()
    viewer = viewer_for(request)
    rounds = _rounds_tonight(ladder, today, viewer)
    matches = rounds[number].matches if number in rounds else []
    match = matches[court - 1] if 1 <= court <= len(matches) else None
    result = match.result if match is not None and match.with_guest else None
    if match is None or result is None or result.match_id is not None:
        raise Http404(f"Round {number}'s court {court} has no guest game's score tonight.")
    if result.correct_url is None:
        return render(
            request,
            "forbidden.html",
            {"message": clubnight.correction_refused(court)},
            status=403,
        )
    data = request.POST if request.method == "POST" else None
    form = _court_form(ladder, court, match, data, filled=result.games)
    status = 200
    if request.method == "POST":
        games = form.form.parse_games()
        if games is None:
            form.errors = form.form.errors_for("games")
        else:
            try:
                done = clubnight.correct_guest_score(
                    ladder, request.user, number, court, games, today
                )
            except ClubNightPermissionError as exc:
                return render(request, "forbidden.html", {"message": str(exc)}, status=403)
            except ClubNightError as exc:
                form.errors = [str(exc)]
            else:
                messages.success(
                    request,
                    f"Round {number}, court {court} corrected: {clubnight.score_text(done.now)} "
                    f"(was {clubnight.score_text(done.was)}); not rated.",
                )
                return redirect(reverse("ladder:club_night", args=[slug]) + "#rounds")
        status = 400
    return render(
        request,
        "clubnight/correct_score.html",
        {"ladder": ladder, "number": number, "court": form, "today": today},
        status=status,
    )
