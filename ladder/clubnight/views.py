"""The club night page: tick who is in the hall, get a round of balanced matches, then the next.

One view serves the page and its two fragments (HTMX): the list of members (after
"everyone from the last club night") and the rounds panel (after proposing a round or
starting over). Without JavaScript the same buttons post the form and the page comes
back. The matchmaking lives in ladder/clubnight/matchmaking.py, tonight's rounds in services.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from accounts.models import User
from ladder.clubnight import services as clubnight
from ladder.clubnight.matchmaking import QUALITY_FLOOR, ClubNightError, ClubNightPermissionError
from ladder.clubnight.models import ClubNight
from ladder.clubs import access
from ladder.clubs.access import HIDDEN_PLAYER_NAME, Viewer, viewer_for
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.views import get_ladder_for_user
from ladder.matches.views import SignedInRequest


@dataclass(frozen=True)
class Attendee:
    """A member in the hall as the page lists them: with their current rating and rated matches."""

    username: str
    name: str
    rating: float | None  # None: not shown (a hidden member, or one who has left)
    rd: float | None  # grown for inactivity up to today
    games: int
    status: str = clubnight.UNRATED  # RATINGS.md §8 (clubnight.standing)

    @property
    def provisional(self) -> bool:
        """Shown with "?" (RATINGS.md §8): not ranked yet, or not rated yet."""
        return self.status in ("provisional", clubnight.UNRATED)


@dataclass(frozen=True)
class ShownMatch:
    side_a: list[Attendee]
    side_b: list[Attendee]
    quality: float
    win_probability: float
    report_url: str | None  # for a player of this match: the report form, filled in
    below_floor: bool = False  # the players present allowed no match at the quality floor


@dataclass(frozen=True)
class ShownRound:
    number: int
    matches: list[ShownMatch]
    byes: list[Attendee]


@login_required
@require_http_methods(["GET", "POST"])
def club_night(request: SignedInRequest, slug: str) -> HttpResponse:
    """Tonight's club night of a ladder, for its members and the moderators."""
    ladder = get_ladder_for_user(request, slug)
    if not (ladder.is_member or request.user.is_moderator):  # type: ignore[attr-defined]
        return render(
            request,
            "forbidden.html",
            {"message": f"Only members of {ladder.name} and moderators run its club nights."},
            status=403,
        )
    today = timezone.localdate()
    viewer = viewer_for(request)
    people = _people(ladder, today, viewer)
    night = clubnight.tonight(ladder, today)
    last = clubnight.last_club_night(ladder, today)
    error = ""
    status = 200

    # Members present tonight whom this viewer may not see (hidden members): not on the
    # viewer's list, so nobody else can untick them; a round another member proposes keeps
    # them (while they are still members with an active account).
    present = night.present if night else []
    kept = access.named(access.OPERATOR, ladder, present)
    unseen = [u for u in present if u in kept and u not in people]
    if request.method == "POST":
        ticked = request.POST.getlist("present")
        try:
            if request.POST.get("action") == "start_over":
                clubnight.start_over(ladder, request.user, today)
            else:
                users = clubnight.members_named(ladder, list(dict.fromkeys(ticked)), viewer)
                users += [kept[u] for u in unseen]
                courts = _courts(request.POST.get("courts", ""))
                night, _ = clubnight.add_round(ladder, request.user, users, today, courts)
        except ClubNightPermissionError as exc:
            error, status = str(exc), 403
        except ClubNightError as exc:
            error, status = str(exc), 400
        if not error and not request.htmx:
            return redirect(reverse("ladder:club_night", args=[slug]) + "#rounds")
        night = clubnight.tonight(ladder, today)
    else:
        ticked = night.present if night else []
        if request.GET.get("from") == "last" and last is not None:
            ticked = last.present
        elif request.GET.get("from") == "none":
            ticked = []

    context: dict[str, Any] = {
        "ladder": ladder,
        "people": people,
        "ticked": set(ticked) - set(unseen),
        "unseen": len(unseen),
        "night": night,
        "rounds": _shown_rounds(ladder, night, people, viewer),
        "error": error,
        "today": today,
        "floor": QUALITY_FLOOR,
        "can_start_over": clubnight.may_start_over(night, request.user),
    }
    if request.htmx:
        fragment = (
            "clubnight/club_night_players.html"
            if request.method == "GET"
            else "clubnight/club_night_rounds.html"
        )
        return render(request, fragment, context, status=status)
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
        access.members(viewer, Membership.objects.filter(ladder=ladder)).select_related("user")
    )
    states = clubnight.hall_states(ladder, [m.user for m in memberships])
    people = []
    for m in memberships:
        state, games = states[m.user_id]
        shown = clubnight.standing(ladder, state, on)
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
            )
            for m in rnd["matches"]
        ]
        shown.append(ShownRound(number, matches, [person(u) for u in rnd["byes"]]))
    return shown[::-1]


def _report_url(
    ladder: Ladder, side_a: list[str], side_b: list[str], viewer: Viewer, played_on: date
) -> str | None:
    """The report form with the players filled in, the viewer's side first (the reporter is
    always on side A there) and the night's date; None for a match the viewer is not in."""
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
