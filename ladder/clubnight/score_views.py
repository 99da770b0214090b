"""A round's scores on one screen, and a guest game's score corrected: the pages the club
night page's rounds link to (``round_scores``: every court of tonight's round ``number`` on
one form; ``correct_score``: one guest game, unrated). The club night page itself, and what
it shows of tonight's rounds, is views.py; tonight's rounds, guests and scores are kept by
services.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from ladder.clubnight import services as clubnight
from ladder.clubnight.matchmaking import ClubNightError, ClubNightPermissionError
from ladder.clubnight.views import (
    Attendee,
    ShownMatch,
    ShownRound,
    people_listed,
    refusal_page,
    shown_rounds,
    with_guests,
)
from ladder.clubs.access import Viewer, viewer_for
from ladder.clubs.models import Ladder
from ladder.clubs.views import get_ladder_for_user
from ladder.matches.forms import MatchForm
from ladder.matches.views import SignedInRequest


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
    people = with_guests(people_listed(ladder, today, viewer), night, removed=True)
    return {r.number: r for r in shown_rounds(ladder, night, people, viewer)}


@login_required
@require_http_methods(["GET", "POST"])
def round_scores(request: SignedInRequest, slug: str, number: int) -> HttpResponse:
    """Every court's score of tonight's round ``number`` on one form, submitted once.

    Each court on its own (``clubnight.enter_scores``): the valid ones are saved, the
    refused ones keep what was typed and say why; a court entered before is not entered
    again, so a double submit reports nothing twice. Blank courts wait for later."""
    ladder = get_ladder_for_user(request, slug)
    if (refusal := refusal_page(request, ladder)) is not None:
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
    if (refusal := refusal_page(request, ladder)) is not None:
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
