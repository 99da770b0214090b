"""Club night on the site: a ladder's players and their ratings into the pure search of
``matchmaking.py``, and tonight's rounds kept in a ``ClubNight``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

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
from ladder.clubs.models import Ladder
from ladder.matches.models import LIVE_STATES, MatchPlayer
from ratings.engine.predict import inflated_rd
from ratings.engine.types import PlayerState
from ratings.models import status_of
from ratings.predictions import player_states as current_states


def propose_round(
    ladder: Ladder,
    present_users: Sequence[Any],
    previous_rounds: Sequence[Sequence[Pairing]] = (),
    on: date | None = None,
    courts: int | None = None,
) -> Round:
    """A round for the ladder's members in the hall (users), avoiding tonight's earlier rounds
    (pairings of usernames) and the ladder's recent matches.

    States are the players' stored ratings (ratings.PlayerRating), else their starting ones
    (the membership's self-assessment, the ladder's initial volatility); their priority is
    their rated matches. Raises ClubNightError for a player listed twice, a non-member, or
    too few players for one match.
    """
    on = on or timezone.localdate()
    users = list(present_users)
    _listed_once([u.username for u in users])
    states = hall_states(ladder, users)
    strangers = [u.name for u in users if u.pk not in states]
    if strangers:
        verb = "is not a member" if len(strangers) == 1 else "are not members"
        raise ClubNightError(f"{', '.join(strangers)} {verb} of {ladder.name}.")
    size = 2 * ladder.team_size
    if len(users) < size:
        kind = {1: "A singles match", 2: "A doubles match"}.get(ladder.team_size, "A match")
        raise ClubNightError(
            f"{kind} needs {size} players; "
            f"{len(users)} {'is' if len(users) == 1 else 'are'} present."
        )
    present = [Present(u.username, u.name, *states[u.pk]) for u in users]
    return propose(
        present,
        ladder.team_size,
        ladder.params(),
        on=on,
        history=recent_pairings(ladder, users, on),
        previous_rounds=previous_rounds,
        courts=courts,
    )


def members_named(ladder: Ladder, usernames: Sequence[str], viewer: Viewer) -> list[Any]:
    """The ladder's members with these usernames, in that order; ClubNightError naming any
    name listed twice, or not of a member listed to ``viewer`` (the access policy: a hidden
    member or a deactivated account is answered as an unknown name)."""
    _listed_once(usernames)
    users = access.named(viewer, ladder, usernames)
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


def standing(ladder: Ladder, state: PlayerState, on: date) -> Standing:
    """One member's ``Standing`` on ``on`` from their current state."""

    rd = inflated_rd(state, on, ladder.params())
    status = UNRATED if state.last_played is None else status_of(state, ladder, on)
    return Standing(state.rating, rd, status)


def hall_states(ladder: Ladder, users: Sequence[Any]) -> dict[int, tuple[PlayerState, int]]:
    """Each member's state and rated matches, by user id: the stored rating, else where they
    start. Users who are not members are left out."""

    return {pk: (state, state.matches) for pk, state in current_states(ladder, users).items()}


def recent_pairings(ladder: Ladder, users: Sequence[Any], on: date) -> History:
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


def round_to_json(rnd: Round) -> dict[str, Any]:
    """A round as the API answers it and a ClubNight stores it."""
    return {
        "matches": [
            {
                "side_a": list(m.side_a),
                "side_b": list(m.side_b),
                "quality": round(m.quality, 4),
                "win_probability": round(m.win_probability, 4),
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
    by: Any,
    present_users: Sequence[Any],
    on: date | None = None,
    courts: int | None = None,
) -> tuple[ClubNight, Round]:
    """Propose tonight's next round for the players ticked, on at most ``courts`` courts,
    and keep it (and who is present, and the courts).

    The night's row is locked while the round is chosen, so two organisers proposing at
    once get two consecutive rounds, never the same one twice. Nothing is saved when the
    round cannot be made (ClubNightError).
    """
    on = on or timezone.localdate()
    with transaction.atomic():
        night, _ = ClubNight.objects.select_for_update().get_or_create(
            ladder=ladder, date=on, defaults={"created_by": by}
        )
        rnd = propose_round(ladder, present_users, pairings_from_json(night.rounds), on, courts)
        night.present = sorted(u.username for u in present_users)
        night.rounds = [*night.rounds, round_to_json(rnd)]
        night.courts = courts
        night.save(update_fields=["present", "rounds", "courts"])
    return night, rnd


def may_start_over(night: ClubNight | None, user: Any) -> bool:
    """Whether ``user`` may forget the night's rounds: a moderator, or the member who
    started the evening (proposed its first round)."""
    if night is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_moderator) or (
        night.created_by_id is not None and night.created_by_id == user.pk
    )


def start_over(ladder: Ladder, by: Any, on: date | None = None) -> None:
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
