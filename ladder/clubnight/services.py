"""Club night on the site: a ladder's players and their ratings into the pure search of
``matchmaking.py``, tonight's rounds kept in a ``ClubNight``, its guests, and a round's
scores entered together (``enter_scores``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, NotRequired, TypedDict

from django.db import transaction
from django.utils import timezone

from accounts.models import RequestUser, User
from accounts.names import confusable_with
from ladder.clubnight.matchmaking import (
    ClubNightError,
    ClubNightPermissionError,
    History,
    Pairing,
    Present,
    Round,
    propose,
)
from ladder.clubnight.models import ClubNight
from ladder.clubs import access
from ladder.clubs.access import Viewer
from ladder.clubs.formatting import format_rating, format_rd
from ladder.clubs.models import Ladder, Membership
from ladder.matches.errors import FieldErrors, MatchError
from ladder.matches.models import LIVE_STATES, MatchPlayer
from ladder.matches.operations import report_match
from ladder.matches.validation import Report, check_games
from ratings.engine.predict import inflated_rd
from ratings.engine.types import Params, PlayerState
from ratings.models import rating_params, status_of
from ratings.predictions import player_states as current_states

# ---- guests: tonight's players who are not members -------------------------------------------

#: A guest's id in a night's ``present`` and rounds: a username never has a colon
#: (Django's username characters are letters, digits and @.+-_).
GUEST_PREFIX = "guest:"
#: As long as a member's display name may be.
MAX_GUEST_NAME = 60
#: A hall's worth; more is a typo or a script.
MAX_GUESTS = 40


@dataclass(frozen=True)
class Guest:
    """Someone who is not a member, playing tonight: a friend, a visitor, a trial player.

    Unrated: paired as a newcomer (``guest_state``), their games kept with the night and
    never reported as matches, so they reach no rating, leaderboard or player page."""

    id: str
    name: str
    removed: bool = False  # taken off tonight's list; still named in the rounds they were in


def is_guest(player_id: str) -> bool:
    return player_id.startswith(GUEST_PREFIX)


def guests_of(night: ClubNight | None, *, removed: bool = False) -> dict[str, Guest]:
    """Tonight's guests by id, in the order they were added; with ``removed``, also those
    removed since (the rounds they were in still name them)."""
    if night is None:
        return {}
    every = (Guest(g["id"], g["name"], g.get("removed", False)) for g in night.guests)
    return {g.id: g for g in every if removed or not g.removed}


def guest_state(ladder: Ladder) -> PlayerState:
    """How the matchmaking sees a guest, for pairing only: a member who joined without a
    self-assessment (the ladder's starting rating, its wide starting RD)."""
    return PlayerState(ladder.initial_rating, ladder.initial_rd, ladder.initial_volatility)


def checked_guest_name(typed: str, guests: Iterable[Guest]) -> str:
    """The name typed for a guest, spaces tidied; ClubNightError when it is blank, too long,
    has control characters, or reads like the name of anyone with an account here (a guest
    cannot pass for a member: accounts.names, the rule members' own names keep) or of
    another guest tonight."""
    name = " ".join(typed.split())
    if not name:
        raise ClubNightError("Give the guest a name: what everyone will call them tonight.")
    if len(name) > MAX_GUEST_NAME:
        raise ClubNightError(
            f"A guest's name is at most {MAX_GUEST_NAME} characters; this one has {len(name)}."
        )
    if not name.isprintable():
        raise ClubNightError("A guest's name is plain text: letters, spaces and punctuation.")
    if confusable_with(name, [(g.id, g.name) for g in guests]):
        raise ClubNightError(f"There is already a guest called \u201c{name}\u201d tonight.")
    if confusable_with(name, list(User.objects.values_list("username", "display_name"))):
        raise ClubNightError(
            f"\u201c{name}\u201d reads like the name of someone with an account here, and a "
            "guest must not pass for a member: if they are one, tick them; otherwise add a "
            "surname or an initial."
        )
    return name


def add_guest(ladder: Ladder, by: User, typed: str, on: date | None = None) -> Guest:
    """Add a guest to tonight's club night (ticked as present); ClubNightError, changing
    nothing, for a name ``checked_guest_name`` refuses or a hall already full of guests."""
    on = on or timezone.localdate()
    with transaction.atomic():
        night, _ = ClubNight.objects.select_for_update().get_or_create(
            ladder=ladder, date=on, defaults={"created_by": by}
        )
        guests = guests_of(night)
        if len(guests) >= MAX_GUESTS:
            raise ClubNightError(f"A club night has at most {MAX_GUESTS} guests.")
        name = checked_guest_name(typed, guests.values())
        # A removed guest's id is never given again: earlier rounds still name them by it.
        ids = guests_of(night, removed=True)
        number = max((int(g.removeprefix(GUEST_PREFIX)) for g in ids), default=0) + 1
        guest = Guest(f"{GUEST_PREFIX}{number}", name)
        night.guests = [*night.guests, {"id": guest.id, "name": guest.name}]
        night.present = [*night.present, guest.id]
        night.save(update_fields=["guests", "present"])
    return guest


def remove_guest(
    ladder: Ladder, by: RequestUser | None, guest_id: str, on: date | None = None
) -> Guest:
    """Take a guest off tonight's list (and unticked): one added by mistake, or who did not
    play. A guest with a game on the night's record stays (ClubNightError, changing
    nothing: untick them to leave them out of the next rounds), as does the record; a
    court they were proposed for and never played takes no score. Their id is never given
    again, so the rounds they were in still name them.

    Raises ClubNightPermissionError unless ``by`` may run the club night; ClubNightError
    for an id that is no guest on tonight's list.
    """
    _runner(ladder, by)
    on = on or timezone.localdate()
    with transaction.atomic():
        night = ClubNight.objects.select_for_update().filter(ladder=ladder, date=on).first()
        guest = guests_of(night).get(guest_id)
        if night is None or guest is None:
            raise ClubNightError("That guest is not on tonight's list.")
        for number, rnd in enumerate(night.rounds, start=1):
            for court, match in enumerate(rnd["matches"], start=1):
                if "result" in match and guest_id in match["side_a"] + match["side_b"]:
                    raise ClubNightError(
                        f"{guest.name} has a game on tonight's record (round {number}, court "
                        f"{court}: {score_text(match['result']['games'])}), which stays: "
                        "untick them to leave them out of the next rounds."
                    )
        night.guests = [{**g, "removed": True} if g["id"] == guest_id else g for g in night.guests]
        night.present = [p for p in night.present if p != guest_id]
        night.save(update_fields=["guests", "present"])
    return Guest(guest.id, guest.name, removed=True)


def guests_named(night: ClubNight | None, ids: Sequence[str]) -> list[Guest]:
    """Tonight's guests with these ids, in that order; ClubNightError for any other id."""
    guests = guests_of(night)
    unknown = [i for i in ids if i not in guests]
    if unknown:
        raise ClubNightError("That guest is not on tonight's list; add them again.")
    return [guests[i] for i in ids]


# ---- a round ---------------------------------------------------------------------------------


def propose_round(
    ladder: Ladder,
    present_users: Sequence[User],
    previous_rounds: Sequence[Sequence[Pairing]] = (),
    on: date | None = None,
    courts: int | None = None,
    guests: Sequence[Guest] = (),
) -> Round:
    """A round for the ladder's members in the hall (users) and tonight's guests, avoiding
    tonight's earlier rounds (pairings of usernames and guest ids) and the ladder's recent
    matches.

    States are the players' stored ratings (ratings.PlayerRating), else their starting ones
    (the membership's self-assessment, the ladder's initial volatility); their priority is
    their rated matches. A guest is paired as a newcomer (``guest_state``). Raises
    ClubNightError for a player listed twice, a non-member, or too few players for one match.
    """
    on = on or timezone.localdate()
    users = list(present_users)
    _listed_once([u.username for u in users] + [g.id for g in guests])
    states = hall_states(ladder, users)
    strangers = [u.name for u in users if u.pk not in states]
    if strangers:
        verb = "is not a member" if len(strangers) == 1 else "are not members"
        raise ClubNightError(f"{', '.join(strangers)} {verb} of {ladder.name}.")
    size = 2 * ladder.team_size
    count = len(users) + len(guests)
    if count < size:
        kind = {1: "A singles match", 2: "A doubles match"}.get(ladder.team_size, "A match")
        raise ClubNightError(
            f"{kind} needs {size} players; {count} {'is' if count == 1 else 'are'} present."
        )
    present = [Present(u.username, u.name, *states[u.pk]) for u in users]
    present += [Present(g.id, g.name, guest_state(ladder), 0) for g in guests]
    return propose(
        present,
        ladder.team_size,
        rating_params(ladder),
        on=on,
        history=recent_pairings(ladder, users, on),
        previous_rounds=previous_rounds,
        courts=courts,
    )


def members_named(ladder: Ladder, usernames: Sequence[str], viewer: Viewer) -> list[User]:
    """The ladder's members with these usernames, in that order; ClubNightError naming any
    name listed twice, or not of a member listed to ``viewer`` (the access policy: a hidden
    member, a banned one or a deactivated account is answered as an unknown name)."""
    _listed_once(usernames)
    users = access.named(viewer, ladder, usernames, playing=True)
    unknown = [name for name in usernames if name not in users]
    if unknown:
        raise ClubNightError(f"No member of {ladder.name} is called {', '.join(unknown)}.")
    return [users[name] for name in usernames]


def _listed_once(usernames: Sequence[str]) -> None:
    twice = [name for name, count in Counter(usernames).items() if count > 1]
    if twice:
        verb = "is" if len(twice) == 1 else "are"
        raise ClubNightError(f"{', '.join(twice)} {verb} listed twice.")


UNRATED = "unrated"


@dataclass(frozen=True)
class Standing:
    """A member as club night shows them: rating, ± RD grown for inactivity up to the day,
    and status (RATINGS.md §8, ``ratings.models.status_of``; "unrated" before a first match)."""

    rating: float
    rd: float
    status: str

    @property
    def rating_display(self) -> str:
        return format_rating(self.rating)

    @property
    def rd_display(self) -> str:
        return format_rd(self.rd)

    @property
    def provisional(self) -> bool:
        """Shown with "?": not ranked yet, or not rated yet."""
        return self.status in ("provisional", UNRATED)


def standing(ladder: Ladder, state: PlayerState, on: date, params: Params) -> Standing:
    """One member's ``Standing`` on ``on`` from their current state; ``params`` are the
    ladder's ``rating_params``, read once for all the members shown."""

    rd = inflated_rd(state, on, params)
    status = UNRATED if state.last_played is None else status_of(state, ladder, on, params)
    return Standing(state.rating, rd, status)


def hall_states(ladder: Ladder, users: Sequence[User]) -> dict[int, tuple[PlayerState, int]]:
    """Each member's state and rated matches, by user id: the stored rating, else where they
    start. Users who are not members are left out."""

    return {pk: (state, state.matches) for pk, state in current_states(ladder, users).items()}


def recent_pairings(ladder: Ladder, users: Sequence[User], on: date) -> History:
    """Who played with and against whom among ``users`` in the ladder's lookback window
    (matches that stand or may stand: pending, confirmed, disputed, corrected)."""
    since = on - timedelta(days=ladder.lookback_days)
    rows = (
        MatchPlayer.objects.filter(
            match__ladder=ladder,
            match__state__in=LIVE_STATES,
            match__played_on__range=(since, on),
            user__in=users,
        )
        .order_by("match_id", "side", "position")
        .values_list("match_id", "side", "user__username")
    )
    sides: dict[int, tuple[list[str], list[str]]] = {}
    for match_id, side, username in rows:
        sides.setdefault(match_id, ([], []))[0 if side == "a" else 1].append(username)
    return History.from_pairings((tuple(a), tuple(b)) for a, b in sides.values())


# ---- tonight, kept in a ClubNight -----------------------------------------------------------


class CourtResult(TypedDict):
    """A court's score entered on the round's screen (``ClubNight.rounds``): ``match`` is
    the reported match, None for a game with a guest (kept here, never rated)."""

    games: list[list[int]]
    match: int | None
    by: str  # the username of whoever entered it
    corrected_by: NotRequired[str]  # a guest game's score, corrected since


class KeptMatch(TypedDict):
    """A match of a kept round: its sides (usernames and guest ids) and odds."""

    side_a: list[str]
    side_b: list[str]
    quality: float
    win_probability: float
    repeats: NotRequired[list[list[str]]]  # pairs who met earlier tonight
    result: NotRequired[CourtResult]


class KeptRound(TypedDict):
    """A round as the API answers it and ``ClubNight.rounds`` keeps it."""

    matches: list[KeptMatch]
    byes: list[str]
    floor: NotRequired[float]  # rounds kept before the quality floor have none


def round_to_json(rnd: Round) -> KeptRound:
    """A round as the API answers it and a ClubNight stores it."""
    return {
        "matches": [
            {
                "side_a": list(m.side_a),
                "side_b": list(m.side_b),
                "quality": round(m.quality, 4),
                "win_probability": round(m.win_probability, 4),
                "repeats": [list(pair) for pair in m.repeats],
            }
            for m in rnd.matches
        ],
        "byes": list(rnd.byes),
        "floor": rnd.floor,
    }


def pairings_from_json(rounds: Iterable[Mapping[str, Any]]) -> list[list[Pairing]]:
    """The pairings of stored (or posted) rounds, for ``previous_rounds``."""
    return [
        [(tuple(m["side_a"]), tuple(m["side_b"])) for m in r.get("matches", [])] for r in rounds
    ]


def tonight(ladder: Ladder, on: date | None = None) -> ClubNight | None:
    return ClubNight.objects.filter(ladder=ladder, date=on or timezone.localdate()).first()


def last_club_night(ladder: Ladder, before: date | None = None) -> ClubNight | None:
    """The latest club night before ``before`` (today) at which someone was present."""
    return (
        ClubNight.objects.filter(ladder=ladder, date__lt=before or timezone.localdate())
        .exclude(present=[])
        .order_by("-date")
        .first()
    )


def add_round(
    ladder: Ladder,
    by: User,
    present_users: Sequence[User],
    on: date | None = None,
    courts: int | None = None,
    guest_ids: Sequence[str] = (),
) -> tuple[ClubNight, Round]:
    """Propose tonight's next round for the members and guests (ids) ticked, on at most
    ``courts`` courts, and keep it (and who is present, and the courts).

    The night's row is locked while the round is chosen, so two organisers proposing at
    once get two consecutive rounds, never the same one twice. Nothing is saved when the
    round cannot be made (ClubNightError).
    """
    on = on or timezone.localdate()
    with transaction.atomic():
        night, _ = ClubNight.objects.select_for_update().get_or_create(
            ladder=ladder, date=on, defaults={"created_by": by}
        )
        guests = guests_named(night, guest_ids)
        previous = pairings_from_json(night.rounds)
        rnd = propose_round(ladder, present_users, previous, on, courts, guests)
        night.present = sorted(u.username for u in present_users) + [g.id for g in guests]
        night.rounds = [*night.rounds, round_to_json(rnd)]
        night.courts = courts
        night.save(update_fields=["present", "rounds", "courts"])
    return night, rnd


def may_start_over(night: ClubNight | None, user: RequestUser | None) -> bool:
    """Whether ``user`` may forget the night's rounds: a moderator, or the member who
    started the evening (proposed its first round or added its first guest)."""
    if night is None or not isinstance(user, User):
        return False
    return user.is_moderator or (night.created_by_id is not None and night.created_by_id == user.pk)


def start_over(ladder: Ladder, by: RequestUser | None, on: date | None = None) -> None:
    """Forget tonight's rounds (who is present stays ticked).

    Raises ClubNightPermissionError, changing nothing, unless ``by`` is a moderator or
    started the evening; ClubNightError when there is no round to forget.
    """
    on = on or timezone.localdate()
    with transaction.atomic():
        night = ClubNight.objects.select_for_update().filter(ladder=ladder, date=on).first()
        if night is None or not night.rounds:
            raise ClubNightError("There is no round tonight to start over from.")
        if not may_start_over(night, by):
            # The starter is not named: they may be a member hidden from this one.
            raise ClubNightPermissionError(
                "Only a moderator or the member who started tonight's club night can "
                "start it over; propose the next round instead."
            )
        night.rounds = []
        night.save(update_fields=["rounds"])


# ---- a round's scores, entered together ------------------------------------------------------

REPORTED, KEPT, ALREADY, REFUSED = "reported", "kept", "already", "refused"


@dataclass(frozen=True)
class CourtOutcome:
    """What became of one court's score: ``reported`` (a match waiting for confirmation,
    ``match_id``), ``kept`` (a game with a guest, kept with the night), ``already`` (entered
    before with the same score: nothing done again) or ``refused`` (``message`` says why,
    another score for a court entered before included; nothing saved)."""

    court: int
    status: str
    message: str = ""
    match_id: int | None = None


def run_refusal(ladder: Ladder, user: RequestUser | None) -> str | None:
    """Why ``user`` may not run the ladder's club night (enter it, propose a round, enter
    scores, add guests), or None: the ban's reason, or not a member nor a moderator."""
    if isinstance(user, User) and (barred := access.barred(ladder, user)):
        return barred
    if isinstance(user, User) and (
        user.is_moderator or Membership.objects.filter(ladder=ladder, user=user).exists()
    ):
        return None
    return f"Only members of {ladder.name} and moderators run its club nights."


def enter_scores(
    ladder: Ladder,
    by: RequestUser | None,
    number: int,
    scores: Mapping[int, Sequence[tuple[int, int]]],
    on: date | None = None,
) -> dict[int, CourtOutcome]:
    """Enter the scores of tonight's round ``number``, by court (1 is the round's first
    match). Each court on its own: a court of members is reported through
    ``report_match`` (``organiser``: ``by`` need not have played; a player of the match
    confirms it, as any report), a court with a guest is kept with the night and never
    rated; a refused court saves nothing and says why, the others are saved. A court
    entered before is left alone (a double submit reports nothing twice: the night's row
    is locked while the round is entered).

    Raises ClubNightPermissionError unless ``by`` may run the club night; ClubNightError
    when there is no such round tonight.
    """
    by = _runner(ladder, by)
    on = on or timezone.localdate()
    outcomes: dict[int, CourtOutcome] = {}
    with transaction.atomic():
        night = ClubNight.objects.select_for_update().filter(ladder=ladder, date=on).first()
        if night is None or not 1 <= number <= len(night.rounds):
            raise ClubNightError(f"There is no round {number} tonight.")
        matches = night.rounds[number - 1]["matches"]
        removed = {g.id: g for g in guests_of(night, removed=True).values() if g.removed}
        for court, games in sorted(scores.items()):
            if not 1 <= court <= len(matches):
                outcomes[court] = CourtOutcome(
                    court, REFUSED, f"Round {number} has no court {court}."
                )
                continue
            outcomes[court] = _enter_court(
                ladder, by, night.date, matches[court - 1], court, games, removed
            )
        night.save(update_fields=["rounds"])
    return outcomes


def score_text(games: Iterable[Sequence[int]]) -> str:
    """A court's games as the night shows them: "21-15 21-18", side A first."""
    return " ".join(f"{a}-{b}" for a, b in games)


def _runner(ladder: Ladder, by: RequestUser | None) -> User:
    """``by``, who may run the ladder's club night; else ClubNightPermissionError."""
    refusal = run_refusal(ladder, by)
    if refusal is not None or not isinstance(by, User):
        raise ClubNightPermissionError(refusal or "Sign in first.")
    return by


def _checked_guest_games(ladder: Ladder, games: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """A guest game's score, checked as any match's (the ladder's format); ClubNightError
    saying what is wrong."""
    errors = FieldErrors()
    checked = check_games(list(games), ladder, errors)
    if errors:
        raise ClubNightError(" ".join(m for ms in errors.values() for m in ms))
    return checked


def _enter_court(
    ladder: Ladder,
    by: User,
    played_on: date,
    match: KeptMatch,
    court: int,
    games: Sequence[tuple[int, int]],
    removed: Mapping[str, Guest],
) -> CourtOutcome:
    """One court of ``enter_scores``: its outcome, and ``match["result"]`` once saved."""
    if "result" in match:
        entered = match["result"]
        if [tuple(g) for g in entered["games"]] == [tuple(g) for g in games]:
            return CourtOutcome(court, ALREADY, match_id=entered["match"])
        change = (
            "; to change it, its reporter edits the match or a player disputes it"
            if entered["match"]
            else "; whoever entered it, or a moderator, can correct it (“Correct the score”)"
        )
        return CourtOutcome(
            court,
            REFUSED,
            f"Court {court} was entered already: {score_text(entered['games'])}{change}.",
        )
    players = match["side_a"] + match["side_b"]
    if gone := [removed[p].name for p in players if p in removed]:
        verb = "was" if len(gone) == 1 else "were"
        return CourtOutcome(
            court,
            REFUSED,
            f"Court {court} was not played: {' and '.join(gone)} {verb} removed from "
            "tonight's guests.",
        )
    if any(is_guest(p) for p in players):
        try:
            checked = _checked_guest_games(ladder, games)
        except ClubNightError as exc:
            return CourtOutcome(court, REFUSED, str(exc))
        match["result"] = {"games": [list(g) for g in checked], "match": None, "by": by.username}
        return CourtOutcome(court, KEPT)
    users = {u.username: u for u in User.objects.filter(username__in=players)}
    try:
        report = Report(
            ladder=ladder,
            reporter=by,
            played_on=played_on,
            side_a=[users[u] for u in match["side_a"] if u in users],
            side_b=[users[u] for u in match["side_b"] if u in users],
            games=games,
        )
        reported = report_match(report, organiser=True)
    except MatchError as exc:
        return CourtOutcome(court, REFUSED, exc.message)
    match["result"] = {
        "games": [list(g) for g in reported.game_scores],
        "match": reported.pk,
        "by": by.username,
    }
    return CourtOutcome(court, REPORTED, match_id=reported.pk)


# ---- a guest game's score, corrected ----------------------------------------------------------


@dataclass(frozen=True)
class Correction:
    """A guest game's score before and after ``correct_guest_score``."""

    number: int
    court: int
    was: list[tuple[int, int]]
    now: list[tuple[int, int]]


def may_correct(result: CourtResult, viewer: Viewer) -> bool:
    """Whether ``viewer`` may correct a guest game's score: whoever entered it, or a
    moderator (as only a match's reporter edits it)."""
    return viewer.moderator or (viewer.signed_in and result.get("by") == viewer.username)


def correction_refused(court: int) -> str:
    """Why someone may not correct a guest game's score. Who entered it is not named: they
    may be a member hidden from this one."""
    return f"Only whoever entered court {court}'s score, or a moderator, can correct it."


def correct_guest_score(
    ladder: Ladder,
    by: RequestUser | None,
    number: int,
    court: int,
    games: Sequence[tuple[int, int]],
    on: date | None = None,
) -> Correction:
    """Correct the score of a game with a guest, entered tonight on round ``number``'s
    ``court``. Unrated, so only the night's record changes (``result["corrected_by"]``).

    Raises ClubNightPermissionError unless ``by`` runs the club night and entered that
    score or is a moderator; ClubNightError, changing nothing, for a round or court
    tonight does not have, a court of members (its reporter edits the match), one with no
    score yet, or a score the ladder's format refuses.
    """
    by = _runner(ladder, by)
    on = on or timezone.localdate()
    with transaction.atomic():
        night = ClubNight.objects.select_for_update().filter(ladder=ladder, date=on).first()
        if night is None or not 1 <= number <= len(night.rounds):
            raise ClubNightError(f"There is no round {number} tonight.")
        matches = night.rounds[number - 1]["matches"]
        if not 1 <= court <= len(matches):
            raise ClubNightError(f"Round {number} has no court {court}.")
        match = matches[court - 1]
        if not any(is_guest(p) for p in match["side_a"] + match["side_b"]):
            raise ClubNightError(
                f"Court {court} is a match between members: its reporter edits it, or a "
                "player disputes it."
            )
        result = match.get("result")
        if result is None:
            raise ClubNightError(
                f"Court {court} has no score to correct yet: enter it with round {number}'s."
            )
        if not may_correct(result, Viewer.of(by)):
            raise ClubNightPermissionError(correction_refused(court))
        checked = _checked_guest_games(ladder, games)
        was = [(a, b) for a, b in result["games"]]
        if checked != was:
            match["result"] = {
                **result,
                "games": [list(g) for g in checked],
                "corrected_by": by.username,
            }
            night.save(update_fields=["rounds"])
    return Correction(number, court, was, checked)
