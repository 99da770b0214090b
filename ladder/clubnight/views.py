"""The club night page: tick who is in the hall (members, and guests added by name), get a
round of balanced matches, then the next. A round's scores, entered on one screen, and a
guest game's correction are the pages of score_views.py, which shows tonight's rounds as
this page does (``shown_rounds``).

The page (``club_night``, GET) shows tonight; for HTMX, its list of players alone
("everyone from the last club night", "untick everyone"). Each of its buttons posts the
page's one form (who is ticked, the courts, a guest's name) to its own view and address:
``propose_round`` and ``start_over`` answer with the rounds panel (HTMX) or go back to the
page, ``add_guest`` and ``remove_guest`` with the list of players (HTMX) or the page. Without
JavaScript the same buttons post the form (``formaction``) and the page comes back. The
matchmaking lives in ladder/clubnight/matchmaking.py, tonight's rounds, guests and scores in
services.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET
from django_htmx.http import reswap, retarget

from accounts.models import User
from core.refusals import form_action
from ladder.clubnight import services as clubnight
from ladder.clubnight.matchmaking import QUALITY_FLOOR, ClubNightError, ClubNightPermissionError
from ladder.clubnight.models import ClubNight
from ladder.clubs import access
from ladder.clubs.access import HIDDEN_PLAYER_NAME, Viewer, viewer_for
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.views import get_ladder_for_user
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


def with_guests(
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


def refusal_page(request: SignedInRequest, ladder: Ladder) -> HttpResponse | None:
    """The 403 page for anyone who may not run the ladder's club night (members and
    moderators may); None for those who may."""
    refusal = clubnight.run_refusal(ladder, request.user)
    if refusal is None:
        return None
    return render(request, "forbidden.html", {"message": refusal}, status=403)


@dataclass(frozen=True)
class Hall:
    """Tonight's club night as ``viewer`` finds it, before a button changes it."""

    ladder: Ladder
    today: date
    viewer: Viewer
    night: ClubNight | None
    people: dict[str, Attendee]  # the members listed to the viewer
    # Members present tonight whom this viewer may not see (hidden members): not on the
    # viewer's list, so nobody else can untick them; a round another member proposes keeps
    # them (while they are still members with an active account).
    unseen: list[User]


def _hall(request: SignedInRequest, ladder: Ladder) -> Hall:
    today = timezone.localdate()
    viewer = viewer_for(request)
    night = clubnight.tonight(ladder, today)
    people = people_listed(ladder, today, viewer)
    present = night.present if night else []
    kept = access.named(access.OPERATOR, ladder, present, playing=True)
    unseen = [kept[u] for u in present if u in kept and u not in people]
    return Hall(ladder, today, viewer, night, people, unseen)


def _after(hall: Hall) -> Hall:
    """The hall after a button: tonight's club night read again."""
    return replace(hall, night=clubnight.tonight(hall.ladder, hall.today))


def _page(
    request: SignedInRequest,
    hall: Hall,
    ticked: list[str],
    *,
    players: bool,
    status: int = 200,
    error: str = "",
    guest_error: str = "",
    guest_removal: bool = False,
    guest_notice: str = "",
    guest_name: str = "",
    last: ClubNight | None = None,
) -> HttpResponse:
    """The club night page; for HTMX, the list of players (``players``) or the rounds panel.
    ``last``: the last club night before tonight, if read already."""
    ladder, night, people = hall.ladder, hall.night, hall.people
    context: dict[str, object] = {
        "ladder": ladder,
        "people": with_guests(people, night),
        "ticked": set(ticked) - {u.username for u in hall.unseen},
        "unseen": len(hall.unseen),
        "night": night,
        "rounds": shown_rounds(
            ladder, night, with_guests(people, night, removed=True), hall.viewer
        ),
        "error": error,
        "guest_error": guest_error,
        "guest_removal": guest_removal,
        "guest_notice": guest_notice,
        "guest_name": guest_name,
        "max_guest_name": clubnight.MAX_GUEST_NAME,
        "today": hall.today,
        "floor": QUALITY_FLOOR,
        "can_start_over": clubnight.may_start_over(night, request.user),
    }
    if request.htmx:
        if players:
            # The players' list, wherever the form's submit aimed (Enter in the guest's name).
            response = render(request, "clubnight/club_night_players.html", context, status=status)
            return reswap(retarget(response, "#present-list"), "outerHTML")
        return render(request, "clubnight/club_night_rounds.html", context, status=status)
    context["last"] = last or clubnight.last_club_night(ladder, hall.today)
    return render(request, "clubnight/club_night.html", context, status=status)


@login_required
@require_GET
def club_night(request: SignedInRequest, slug: str) -> HttpResponse:
    """Tonight's club night of a ladder, for its members and the moderators: its buttons
    post to ``propose_round``, ``start_over``, ``add_guest`` and ``remove_guest``.
    ``?from=last`` ticks everyone from the last club night, ``?from=none`` nobody (for
    HTMX, the players' list alone)."""
    ladder = get_ladder_for_user(request, slug)
    if (refusal := refusal_page(request, ladder)) is not None:
        return refusal
    hall = _hall(request, ladder)
    ticked = hall.night.present if hall.night else []
    last = None
    if request.GET.get("from") == "last":
        last = clubnight.last_club_night(ladder, hall.today)
        ticked = last.present if last is not None else ticked
    elif request.GET.get("from") == "none":
        ticked = []
    return _page(request, hall, ticked, players=True, last=last)


def _posted(request: SignedInRequest, slug: str) -> tuple[Hall, list[str]] | HttpResponse:
    """What a button of the page starts from: tonight's hall and the players ticked on the
    form; the 403 page for whoever may not run the ladder's club night."""
    ladder = get_ladder_for_user(request, slug)
    if (refusal := refusal_page(request, ladder)) is not None:
        return refusal
    return _hall(request, ladder), list(dict.fromkeys(request.POST.getlist("present")))


def _failed(exc: ClubNightError) -> tuple[str, int]:
    """A refusal's message and status: 403 for a permission refused, else 400."""
    return str(exc), 403 if isinstance(exc, ClubNightPermissionError) else 400


def _rounds_changed(
    request: SignedInRequest, hall: Hall, ticked: list[str], refused: ClubNightError | None
) -> HttpResponse:
    """The answer to a button that changes the rounds: back to the page's rounds, or (for
    HTMX, and whenever refused) the rounds as they are now, with the refusal."""
    if refused is None and not request.htmx:
        return redirect(reverse("ladder:club_night", args=[hall.ladder.slug]) + "#rounds")
    error, status = _failed(refused) if refused is not None else ("", 200)
    return _page(request, _after(hall), ticked, players=False, error=error, status=status)


@form_action
def propose_round(request: SignedInRequest, slug: str) -> HttpResponse:
    """Propose and keep tonight's next round for the players ticked (members and guests),
    on at most the courts typed (``clubnight.add_round``)."""
    posted = _posted(request, slug)
    if isinstance(posted, HttpResponse):
        return posted
    hall, ticked = posted
    members = [t for t in ticked if not clubnight.is_guest(t)]
    guests = [t for t in ticked if clubnight.is_guest(t)]
    try:
        users = clubnight.members_named(hall.ladder, members, hall.viewer) + hall.unseen
        courts = _courts(request.POST.get("courts", ""))
        clubnight.add_round(hall.ladder, request.user, users, hall.today, courts, guests)
    except ClubNightError as exc:
        return _rounds_changed(request, hall, ticked, exc)
    return _rounds_changed(request, hall, ticked, None)


@form_action
def start_over(request: SignedInRequest, slug: str) -> HttpResponse:
    """Forget tonight's rounds (``clubnight.start_over``: a moderator or whoever started
    the evening); who is present stays ticked."""
    posted = _posted(request, slug)
    if isinstance(posted, HttpResponse):
        return posted
    hall, ticked = posted
    try:
        clubnight.start_over(hall.ladder, request.user, hall.today)
    except ClubNightError as exc:
        return _rounds_changed(request, hall, ticked, exc)
    return _rounds_changed(request, hall, ticked, None)


@form_action
def add_guest(request: SignedInRequest, slug: str) -> HttpResponse:
    """Add a guest by the name typed to tonight's list, ticked (``clubnight.add_guest``)."""
    posted = _posted(request, slug)
    if isinstance(posted, HttpResponse):
        return posted
    hall, ticked = posted
    typed = request.POST.get("guest_name", "")
    try:
        guest = clubnight.add_guest(hall.ladder, request.user, typed, hall.today)
    except ClubNightError as exc:
        return _guest_refused(request, hall, ticked, exc, guest_name=typed)
    return _page(request, _after(hall), [*ticked, guest.id], players=True)


@form_action
def remove_guest(request: SignedInRequest, slug: str) -> HttpResponse:
    """Take the guest whose "Remove" was pressed (their id, ``remove_guest``) off
    tonight's list (``clubnight.remove_guest``)."""
    posted = _posted(request, slug)
    if isinstance(posted, HttpResponse):
        return posted
    hall, ticked = posted
    try:
        guest = clubnight.remove_guest(
            hall.ladder, request.user, request.POST.get("remove_guest", ""), hall.today
        )
    except ClubNightError as exc:
        return _guest_refused(request, hall, ticked, exc, removal=True)
    return _page(
        request,
        _after(hall),
        [t for t in ticked if t != guest.id],
        players=True,
        guest_removal=True,
        guest_notice=f"{guest.name} was removed.",
    )


def _guest_refused(
    request: SignedInRequest,
    hall: Hall,
    ticked: list[str],
    refused: ClubNightError,
    *,
    guest_name: str = "",
    removal: bool = False,
) -> HttpResponse:
    """A guest's button refused: the players' list (for HTMX) or the page, the name typed
    kept and the reason beside the guests (a permission refused: above the rounds)."""
    message, status = _failed(refused)
    return _page(
        request,
        _after(hall),
        ticked,
        players=True,
        status=status,
        error=message if status == 403 else "",
        guest_error=message if status != 403 else "",
        guest_removal=removal,
        guest_name=guest_name,
    )


def _courts(typed: str) -> int | None:
    """The number of courts typed (blank: as many as the players fill); ClubNightError
    for anything but a whole number (the matchmaking checks its range)."""
    typed = typed.strip()
    if not typed:
        return None
    if not typed.isdigit():
        raise ClubNightError(f"The number of courts is a whole number, not {typed[:20]!r}.")
    return int(typed)


def people_listed(ladder: Ladder, on: date, viewer: Viewer) -> dict[str, Attendee]:
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


def shown_rounds(
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
    ladder: Ladder, match: clubnight.KeptMatch, viewer: Viewer, number: int, court: int
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
