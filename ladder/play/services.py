"""The rules of challenges and open games (RULES.md "Challenges and open games"): the only
code that changes them. The pages and the API call these functions and hold no rules.

Each function checks its preconditions and either raises a ``MatchError`` (a message for
people, a status for HTTP; bad input as ``MatchValidationError`` by field) having changed
nothing, or makes the change in one transaction with the row locked and tells the others
(``notifications.py``).

Challenge states::

    open ──accept (a proposed time)──▶ scheduled ──its match confirmed──▶ played
      ├──propose (other times: the other side answers)──▶ open
      ├──decline──▶ declined
      ├──cancel (a player, a moderator)──▶ cancelled      (also from scheduled)
      └──time (expiry_days)──▶ expired
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from typing import TypedDict

from django.db import transaction
from django.db.models import Max, QuerySet
from django.http import Http404
from django.utils import timezone

from accounts.models import User
from core.inputs import BadInput, parse_instant, parse_level
from ladder.clubs import access
from ladder.clubs.formatting import format_day, format_rating, format_rd
from ladder.clubs.models import Ladder, Membership
from ladder.matches.errors import (
    FieldErrors,
    MatchPermissionError,
    MatchRateLimited,
    MatchStateError,
    MatchValidationError,
)
from ladder.matches.models import LIVE_STATES as LIVE_MATCH_STATES
from ladder.matches.models import RATED_STATES, Match, Notification
from ladder.matches.validation import no_member_called
from ladder.play import notifications as tell
from ladder.play.models import (
    CANCELLED,
    DECLINED,
    EXPIRED,
    LIVE,
    MAX_MESSAGE_LENGTH,
    MAX_PLACE_LENGTH,
    MAX_PROPOSED_TIMES,
    OPEN,
    PLACES,
    PLAYED,
    RATING,
    SCHEDULED,
    CalendarFeed,
    Challenge,
    ChallengePlayer,
    OpenGame,
    OpenGamePlayer,
    PlaySettings,
    new_feed_token,
    password_mark,
)
from ratings.models import RANKED, PlayerRating, active_since

# How far ahead a time may be proposed: a season, not a typo's year 2205.
MAX_DAYS_AHEAD = 365


# ---- who may play whom -------------------------------------------------------------------


def _memberships(ladder: Ladder, viewer: User, names: Sequence[str]) -> dict[str, Membership]:
    """The members among ``names`` whom ``viewer`` may see and who may play (the access
    policy: a hidden member is not listed for them, a banned one for no one), by username."""
    rows = access.players(
        access.Viewer.of(viewer),
        Membership.objects.filter(ladder=ladder, user__username__in=list(names)),
    ).select_related("user")
    return {m.user.username: m for m in rows}


def _places(ladder: Ladder, on: date) -> dict[int, int]:
    """Each ranked member's place on the ladder on ``on``: {user id: place}."""
    cutoffs = {ladder.pk: active_since(ladder.lookback_days, on)}
    ranked = (
        PlayerRating.objects.filter(ladder=ladder)
        .of_status(RANKED, cutoffs, on)
        .order_by("-rating", "pk")
        .values_list("user_id", flat=True)
    )
    return {user_id: place for place, user_id in enumerate(ranked, 1)}


def _rating(ladder: Ladder, membership: Membership) -> float:
    row = PlayerRating.objects.filter(ladder=ladder, user_id=membership.user_id).first()
    return row.rating if row else membership.initial_rating


def out_of_range(
    rules: PlaySettings, challenger: Membership, other: Membership, on: date
) -> str | None:
    """Why ``other`` is out of ``challenger``'s range under the ladder's rules, or None.

    A member without a place yet (not ranked) may challenge and be challenged by anyone
    within the rating rule's range: they need games to earn a place."""
    ladder = rules.ladder
    name = other.user.name
    if rules.challenge_scope == PLACES:
        places = _places(ladder, on)
        mine, theirs = places.get(challenger.user_id), places.get(other.user_id)
        if mine and theirs and abs(mine - theirs) > rules.challenge_places:
            return (
                f"{name} is {abs(mine - theirs)} places from you; on {ladder.name} you may "
                f"challenge members within {rules.challenge_places} places."
            )
    if rules.challenge_scope == RATING:
        gap = abs(_rating(ladder, challenger) - _rating(ladder, other))
        if gap > rules.challenge_rating:
            return (
                f"{name}'s rating is {format_rd(gap)} from yours; on {ladder.name} you may "
                f"challenge members within ±{format_rd(rules.challenge_rating)}."
            )
    return None


def _not_barred(ladder: Ladder, by: User) -> None:
    """Refuse every action of a member banned from ``ladder``, with the ban's reason (the
    access policy's ``barred``)."""
    barred = access.barred(ladder, by)
    if barred:
        raise MatchPermissionError(barred)


def _check_all_may_play(ladder: Ladder, users: Iterable[User]) -> None:
    """Refuse to schedule a game one of whose players may no longer play on ``ladder`` (a
    closed account, a ban): its match could never be reported. ``withdraw_player`` calls
    such games off; this holds for any it has not reached."""
    ids = [u.pk for u in users]
    able = access.players(
        access.OPERATOR, Membership.objects.filter(ladder=ladder, user_id__in=ids)
    ).count()
    if able != len(set(ids)):
        raise MatchStateError("A player of this game can no longer play on the ladder.")


def _playable(membership: Membership, on: date, role: str) -> str | None:
    user = membership.user
    if not user.is_active:
        return f"{user.name} cannot be {role}: their account is closed."
    until = membership.away_on(on)  # RULES.md "Time away"
    if until is not None:
        return f"{user.name} is away until {format_day(until)} and cannot be {role}."
    return None


# ---- times -------------------------------------------------------------------------------


def parse_time(value: object) -> datetime | None:
    """An ISO 8601 time as an aware datetime (a time without an offset is the club's), or
    None when it is none the one parser of instants takes (``core/inputs.py``)."""
    try:
        return parse_instant(value)
    except BadInput:
        return None


def check_times(
    values: Sequence[object], now: datetime, errors: FieldErrors, key: str = "proposed_times"
) -> list[datetime]:
    """One to three distinct future times, none more than a year ahead."""
    if not isinstance(values, list | tuple) or not values:
        errors.add(key, "Propose at least one time.")
        return []
    if len(values) > MAX_PROPOSED_TIMES:
        errors.add(key, f"Propose at most {MAX_PROPOSED_TIMES} times.")
        return []
    times: list[datetime] = []
    for value in values:
        try:
            moment = parse_instant(value)
        except BadInput as exc:
            errors.add(key, exc.message)
            continue
        if moment <= now:
            errors.add(key, f"{_when(moment)} is in the past: propose a time to come.")
        elif moment > now + timedelta(days=MAX_DAYS_AHEAD):
            errors.add(key, f"{_when(moment)} is more than a year ahead.")
        elif moment in times:
            errors.add(key, f"{_when(moment)} is proposed twice.")
        else:
            times.append(moment)
    return times


def _when(moment: datetime) -> str:
    local = timezone.localtime(moment)
    return f"{local:%a} {local.day} {local:%b %Y %H:%M}"


def _text(value: object, limit: int, key: str, errors: FieldErrors, what: str) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if len(text) > limit:
        errors.add(key, f"{what} is at most {limit} characters.")
    return text


# ---- challenges --------------------------------------------------------------------------


def _lock_challenge(challenge: Challenge | int) -> Challenge:
    pk = challenge if isinstance(challenge, int) else challenge.pk
    try:
        return (
            Challenge.objects.select_for_update(of=("self",))
            .select_related("ladder", "challenger")
            .prefetch_related("players__user")
            .get(pk=pk)
        )
    except Challenge.DoesNotExist:
        raise Http404("No such challenge.") from None


def challenges_for(user: User) -> QuerySet[Challenge]:
    """The challenges ``user`` sees: theirs; every one for moderators."""
    queryset = Challenge.objects.select_related("ladder", "challenger", "match").prefetch_related(
        "players__user"
    )
    if user.is_moderator:
        return queryset
    return queryset.filter(players__user=user).distinct()


def get_challenge_for_user(user: User, pk: int | str) -> Challenge:
    """The one door to a challenge: its players' and the moderators'; 404 for anyone else."""
    found = challenges_for(user).filter(pk=pk).first() if str(pk).isdigit() else None
    if found is None:
        raise Http404("No such challenge.")
    return found


def create_challenge(
    *,
    ladder: Ladder,
    by: User,
    opponents: Sequence[str],
    partners: Sequence[str] = (),
    message: str = "",
    proposed_times: Sequence[object],
    place: str = "",
    now: datetime | None = None,
) -> Challenge:
    """``by`` (with ``partners`` in doubles) challenges ``opponents`` (usernames) at one of
    ``proposed_times``; the challenged answer before the ladder's expiry."""
    now = now or timezone.now()
    on = timezone.localdate(now)
    errors = FieldErrors()
    rules = PlaySettings.of(ladder)
    me = Membership.objects.filter(ladder=ladder, user=by).select_related("user").first()
    if me is None:
        raise MatchPermissionError(f"Only members of {ladder.name} challenge its players.")
    _not_barred(ladder, by)
    names = [*opponents, *partners]
    if by.username in names:
        errors.add("opponents", "You cannot challenge yourself.")
    if len(set(names)) != len(names):
        errors.add("opponents", "Name each player once.")
    need = ladder.team_size
    if len(opponents) != need:
        errors.add("opponents", f"Name {need} opponent{'s' if need > 1 else ''} ({ladder.name}).")
    if len(partners) != need - 1:
        errors.add(
            "partners",
            f"Name your partner ({ladder.name} is doubles)."
            if need > 1
            else "Singles: no partner.",
        )
    found = _memberships(ladder, by, names)
    for key, group in (("opponents", opponents), ("partners", partners)):
        for name in group:
            membership = found.get(name)
            if membership is None:
                errors.add(key, no_member_called(ladder, name))
                continue
            role = "challenged" if key == "opponents" else "your partner"
            refusal = _playable(membership, on, role)
            if refusal is None and key == "opponents":
                refusal = out_of_range(rules, me, membership, on)
            if refusal:
                errors.add(key, refusal)
    times = check_times(list(proposed_times), now, errors)
    message = _text(message, MAX_MESSAGE_LENGTH, "message", errors, "A message")
    place = _text(place, MAX_PLACE_LENGTH, "place", errors, "A place")
    errors.raise_if_any()
    side_a = [by, *(found[n].user for n in partners)]
    side_b = [found[n].user for n in opponents]
    with transaction.atomic():
        # One member's challenges at a time: the limit and the cool-down hold under races.
        list(Membership.objects.select_for_update().filter(ladder=ladder, user=by))
        _check_limits(rules, side_a, side_b, now)
        check_notice_cap(by, now)
        challenge = Challenge.objects.create(
            ladder=ladder,
            challenger=by,
            message=message,
            place=place,
            proposed_times=[t.isoformat() for t in times],
            proposed_by="a",
            expires_at=answer_by(now, rules.expiry_days, times),
            created_at=now,
            updated_at=now,
        )
        ChallengePlayer.objects.bulk_create(
            [ChallengePlayer(challenge=challenge, user=u, side="a") for u in side_a]
            + [ChallengePlayer(challenge=challenge, user=u, side="b") for u in side_b]
        )
        challenge = _lock_challenge(challenge)
        tell.challenged(challenge)
    return challenge


#: After a cancelled challenge the same pair waits this long, on every ladder, whatever its
#: cool-down: cancelling is not a way round it (challenge-and-cancel sent a member a dozen
#: e-mails a second).
CANCELLED_WAIT = timedelta(days=1)
#: What one member's actions may send others in a day: notices about challenges and open
#: games (a doubles challenge is two). Past it, challenging, proposing times and joining
#: games wait; answering, leaving and cancelling never do.
DAILY_NOTICES = 30
NOTICE_WINDOW = timedelta(days=1)


def _check_limits(
    rules: PlaySettings, side_a: Sequence[User], side_b: Sequence[User], now: datetime
) -> None:
    """The ladder's limits on a new challenge (RULES.md "Challenges and open games"): the
    challenger's own open challenges and each challenged member's waiting ones, on this
    ladder; one live challenge per pair; the pair's cool-down (a 429 that says when)."""
    errors = FieldErrors()
    limit = rules.max_open_challenges
    on_ladder = Challenge.objects.filter(ladder=rules.ladder, state=OPEN)
    made = on_ladder.filter(challenger=side_a[0]).count()
    if made >= limit:
        errors.add(
            "__all__",
            f"You have {made} open challenges on {rules.ladder.name} already (at most "
            f"{limit}): wait for an answer, or cancel one.",
        )
    for other in side_b:
        waiting = on_ladder.filter(players__user=other, players__side="b").count()
        if waiting >= limit:
            errors.add(
                "opponents",
                f"{other.name} has {waiting} challenges on {rules.ladder.name} waiting for an "
                f"answer already (at most {limit}): challenge someone else for now.",
            )
    until: datetime | None = None
    for other in side_b:
        pair = Challenge.objects.filter(ladder=rules.ladder, players__user=side_a[0]).filter(
            players__user=other
        )
        if pair.filter(state__in=LIVE).exists():
            errors.add("opponents", f"You and {other.name} have a challenge going already.")
            continue
        ended = pair.exclude(decided_at=None)
        last = ended.exclude(state=CANCELLED).aggregate(at=Max("decided_at"))["at"]
        cancelled = ended.filter(state=CANCELLED).aggregate(at=Max("decided_at"))["at"]
        for end in (
            last and last + timedelta(days=rules.cooldown_days),
            cancelled and cancelled + CANCELLED_WAIT,
        ):
            if end and end > now and (until is None or end > until):
                until, blocked = end, other
    errors.raise_if_any()
    if until is not None:
        raise MatchRateLimited(
            f"You and {blocked.name} had a challenge lately: you may challenge them again "
            f"from {_when(until)}. Challenge someone else for now.",
            retry_after=_seconds(until - now),
        )


def _seconds(wait: timedelta) -> int:
    return max(1, int(wait.total_seconds() + 0.999))


def check_notice_cap(by: User, now: datetime) -> None:
    """Refuse (a 429 that says when) what would tell others more than :data:`DAILY_NOTICES`
    in a day of ``by``'s actions on challenges and open games."""
    recent = (
        Notification.objects.filter(
            sender=by, kind__in=("challenge", "open_game"), created_at__gt=now - NOTICE_WINDOW
        )
        .exclude(user=by)
        .order_by("-created_at")
    )
    sent = list(recent.values_list("created_at", flat=True)[:DAILY_NOTICES])
    if len(sent) >= DAILY_NOTICES:
        # Once the oldest of the last DAILY_NOTICES leaves the day, one more may go.
        free_at = sent[-1] + NOTICE_WINDOW
        raise MatchRateLimited(
            f"You have sent other members {DAILY_NOTICES} notices about challenges and games "
            f"today, the most a day: try again from {_when(free_at)}.",
            retry_after=_seconds(free_at - now),
        )


def _check_answering(challenge: Challenge, by: User, now: datetime) -> None:
    if challenge.state != OPEN or challenge.expires_at <= now:
        state = EXPIRED if challenge.state == OPEN else challenge.state
        raise MatchStateError(f"This challenge is {dict(_STATE_WORDS)[state]}: nothing to answer.")
    if challenge.side_of(by) != challenge.answering_side:
        raise MatchPermissionError(
            "The other side answers these times."
            if challenge.side_of(by)
            else "Only the challenged players answer a challenge."
        )


_STATE_WORDS = (
    (OPEN, "open"),
    (SCHEDULED, "scheduled"),
    (PLAYED, "played"),
    (DECLINED, "declined"),
    (CANCELLED, "cancelled"),
    (EXPIRED, "expired"),
)


def accept_challenge(
    challenge: Challenge | int,
    by: User,
    time: object,
    place: str | None = None,
    now: datetime | None = None,
) -> Challenge:
    """The answering side takes one of the proposed times: the challenge is scheduled."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _lock_challenge(challenge)
        _not_barred(challenge.ladder, by)
        _check_answering(challenge, by, now)
        proposed = [parse_time(t) for t in challenge.proposed_times]
        try:
            moment = parse_instant(time)
        except BadInput as exc:
            raise MatchValidationError({"time": [exc.message]}) from None
        errors = FieldErrors()
        if moment not in proposed:
            offered = ", ".join(_when(t) for t in proposed if t)
            errors.add("time", f"Pick one of the proposed times ({offered}), or propose others.")
        elif moment <= now:
            errors.add("time", f"{_when(moment)} has passed: propose another time.")
        if place is not None:
            place = _text(place, MAX_PLACE_LENGTH, "place", errors, "A place")
        errors.raise_if_any()
        _check_all_may_play(challenge.ladder, challenge.players_list)
        challenge.state = SCHEDULED
        challenge.starts_at = moment
        if place:
            challenge.place = place
        _save(challenge, now, "state", "starts_at", "place", decided=True)
        tell.challenge_scheduled(challenge, by)
    return challenge


def answer_by(now: datetime, days: int, times: Sequence[datetime]) -> datetime:
    """When a challenge expires unanswered: the ladder's expiry days, but never after the
    last time proposed, which can no longer be accepted then (issue 37: "answer by 14 Dec"
    for times on the 9th and 10th)."""
    return min(now + timedelta(days=days), max(times))


def propose_times(
    challenge: Challenge | int, by: User, times: Sequence[object], now: datetime | None = None
) -> Challenge:
    """The answering side proposes other times; now the other side answers, and the
    challenge waits the ladder's expiry days again."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _lock_challenge(challenge)
        _not_barred(challenge.ladder, by)
        _check_answering(challenge, by, now)
        errors = FieldErrors()
        moments = check_times(list(times), now, errors)
        errors.raise_if_any()
        check_notice_cap(by, now)
        challenge.proposed_times = [t.isoformat() for t in moments]
        challenge.proposed_by = challenge.answering_side
        days = PlaySettings.of(challenge.ladder).expiry_days
        challenge.expires_at = answer_by(now, days, moments)
        _save(challenge, now, "proposed_times", "proposed_by", "expires_at")
        tell.times_proposed(challenge, by)
    return challenge


def decline_challenge(
    challenge: Challenge | int, by: User, now: datetime | None = None
) -> Challenge:
    """The answering side says no."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _lock_challenge(challenge)
        _check_answering(challenge, by, now)
        challenge.state = DECLINED
        _save(challenge, now, "state", decided=True)
        tell.challenge_ended(challenge, by, "declined")
    return challenge


def cancel_challenge(
    challenge: Challenge | int, by: User, now: datetime | None = None
) -> Challenge:
    """A player (either side) or a moderator calls it off while open or scheduled."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _lock_challenge(challenge)
        if challenge.side_of(by) is None and not by.is_moderator:
            raise MatchPermissionError("Only its players or a moderator cancel a challenge.")
        if challenge.state not in LIVE:
            raise MatchStateError(
                f"This challenge is {dict(_STATE_WORDS)[challenge.state]}: nothing to cancel."
            )
        if challenge.match is not None and challenge.match.state in LIVE_MATCH_STATES:
            raise MatchStateError("Its match is reported: cancel or dispute the match instead.")
        challenge.state = CANCELLED
        _save(challenge, now, "state", decided=True)
        tell.challenge_ended(challenge, by, "cancelled")
    return challenge


def expire_challenges(now: datetime | None = None) -> int:
    """Open challenges past their expiry: expired, both sides told. Returns how many."""
    now = now or timezone.now()
    expired = 0
    due = Challenge.objects.filter(state=OPEN, expires_at__lte=now).values_list("pk", flat=True)
    for pk in list(due):
        with transaction.atomic():
            challenge = _lock_challenge(pk)
            if challenge.state != OPEN or challenge.expires_at > now:
                continue  # answered in the meantime
            challenge.state = EXPIRED
            _save(challenge, now, "state", decided=True)
            tell.challenge_ended(challenge, None, "expired")
            expired += 1
    return expired


def _save(item: Challenge | OpenGame, now: datetime, *fields: str, decided: bool = False) -> None:
    item.updated_at = now
    item.sequence += 1
    update = [*fields, "updated_at", "sequence"]
    if decided and isinstance(item, Challenge):
        item.decided_at = now
        update.append("decided_at")
    item.save(update_fields=update)


# ---- matches reported from what was scheduled (ladder/play/hooks.py) ---------------------


def _scheduled_item(links: dict[str, int]) -> tuple[type[Challenge] | type[OpenGame], str] | None:
    if "challenge" in links:
        return Challenge, "challenge"
    if "open_game" in links:
        return OpenGame, "open_game"
    return None


def link_reported_match(match: Match, links: dict[str, int]) -> None:
    """A report names its challenge or open game: check it is that game and not reported
    already, and link them (inside the report's transaction: a refusal undoes the report)."""
    kind = _scheduled_item(links)
    if kind is None:
        return
    model, key = kind
    what = "challenge" if key == "challenge" else "open game"
    item = (
        model.objects.select_for_update(of=("self",))
        .select_related("match")
        .filter(pk=links[key], ladder=match.ladder)
        .first()
    )
    players = {p.user_id for p in match.players.all()}
    if item is None or match.reporter_id not in {p.user_id for p in item.players.all()}:
        raise MatchValidationError({key: [f"No {what} of yours has number {links[key]}."]})
    if item.match is not None and item.match.state in LIVE_MATCH_STATES:
        raise MatchValidationError(
            {key: [f"This {what} is reported already (match {item.match_id})."]}
        )
    if item.state != SCHEDULED:
        raise MatchValidationError(
            {key: [f"This {what} is {dict(_STATE_WORDS)[item.state]}, not scheduled."]}
        )
    if players != {p.user_id for p in item.players.all()}:
        raise MatchValidationError({key: [f"The players are not those of this {what}."]})
    item.match = match
    item.save(update_fields=["match"])


def match_state_changed(match: Match, to_state: str) -> None:
    """A linked challenge or game is played once its match counts; a voided, cancelled or
    expired report lets go of it, so the game can be reported again."""
    for model in (Challenge, OpenGame):
        for item in model.objects.select_for_update().filter(match=match):
            now = timezone.now()
            if to_state in RATED_STATES and item.state == SCHEDULED:
                item.state = PLAYED
                _save(item, now, "state", decided=True)
            elif to_state not in LIVE_MATCH_STATES and item.state in (SCHEDULED, PLAYED):
                item.state = SCHEDULED
                item.match = None
                _save(item, now, "state", "match")


class Lineup(TypedDict):
    """A scheduled game's sides, as usernames, and the club's date it is arranged for (the
    report form's prefill)."""

    side_a: list[str]
    side_b: list[str]
    played_on: date


def scheduled_lineup(ladder: Ladder, user: User, links: dict[str, int]) -> Lineup | None:
    """The sides of ``user``'s scheduled challenge or game named by ``links`` (usernames),
    for the report form's prefill; None when it is not theirs or not scheduled."""
    if "challenge" in links:
        challenge = (
            Challenge.objects.filter(pk=links["challenge"], ladder=ladder, state=SCHEDULED)
            .filter(players__user=user)
            .prefetch_related("players__user")
            .first()
        )
        if challenge:
            return {
                "side_a": [u.username for u in challenge.side_a],
                "side_b": [u.username for u in challenge.side_b],
                "played_on": challenge.day,
            }
    if "open_game" in links:
        game = (
            OpenGame.objects.filter(pk=links["open_game"], ladder=ladder, state=SCHEDULED)
            .filter(players__user=user)
            .prefetch_related("players__user")
            .first()
        )
        if game:
            names = [u.username for u in game.players_list]
            half = game.team_size
            return {"side_a": names[:half], "side_b": names[half:], "played_on": game.day}
    return None


# ---- open games --------------------------------------------------------------------------


def _lock_game(game: OpenGame | int) -> OpenGame:
    pk = game if isinstance(game, int) else game.pk
    try:
        return (
            OpenGame.objects.select_for_update(of=("self",))
            .select_related("ladder", "host")
            .prefetch_related("players__user")
            .get(pk=pk)
        )
    except OpenGame.DoesNotExist:
        raise Http404("No such game.") from None


def _level_refusal(game: OpenGame, membership: Membership) -> str | None:
    rating = _rating(game.ladder, membership)
    low, high = game.level_min, game.level_max
    if (low is not None and rating < low) or (high is not None and rating > high):
        span = f"{format_rating(low) if low is not None else 'any'}–" + (
            format_rating(high) if high is not None else "any"
        )
        return (
            f"This game is for ratings {span}; yours is {format_rating(rating)}. "
            "Look for a game at your level, or post one."
        )
    return None


def join_refusals(ladder: Ladder, user: User, games: Sequence[OpenGame]) -> dict[int, str]:
    """Why ``user`` could not join each of ``games`` (open ones they are not in) by the
    rules ``join_open_game`` applies to the joiner: their rating out of the game's range,
    their time away. The page shows the reason instead of a Join button that would refuse."""
    membership = (
        Membership.objects.filter(ladder=ladder, user=user).select_related("user", "ladder").first()
    )
    if membership is None:
        return {}
    on = timezone.localdate()
    refusals = {}
    for game in games:
        refusal = _level_refusal(game, membership) or _playable(membership, on, "invited")
        if refusal:
            refusals[game.pk] = refusal
    return refusals


GAME_TEAM_SIZES = (1, 2)


def _scale(ladder: Ladder) -> tuple[float, float]:
    """The ladder's rating scale in points (2000–9000 by default): where a level may be."""
    return ladder.rating_min, ladder.rating_max


def post_open_game(
    *,
    ladder: Ladder,
    by: User,
    starts_at: object,
    place: str = "",
    level_min: object = None,
    level_max: object = None,
    team_size: object = None,
    now: datetime | None = None,
) -> OpenGame:
    """``by`` posts a game for members in a rating range to join; they are its first player.
    The game is of the ladder's team size (``team_size`` may say so, nothing else)."""
    now = now or timezone.now()
    me = Membership.objects.filter(ladder=ladder, user=by).select_related("user").first()
    if me is None:
        raise MatchPermissionError(f"Only members of {ladder.name} post its games.")
    _not_barred(ladder, by)
    errors = FieldErrors()
    times = check_times([starts_at], now, errors, key="starts_at")
    place = _text(place, MAX_PLACE_LENGTH, "place", errors, "A place")
    if not place:
        errors.add("place", "Say where the game is played.")
    if ladder.team_size not in GAME_TEAM_SIZES:
        errors.add("team_size", f"Open games are singles or doubles; {ladder.name} is not.")
    elif team_size is not None and team_size != ladder.team_size:
        kind = "singles (1)" if ladder.team_size == 1 else "doubles (2)"
        errors.add("team_size", f"A game on {ladder.name} is {kind}, as the ladder plays.")
    levels: dict[str, int | None] = {}
    for key, value in (("level_min", level_min), ("level_max", level_max)):
        try:
            levels[key] = None if value is None else parse_level(value, *_scale(ladder))
        except BadInput as exc:
            errors.add(key, exc.message)
    low, high = levels.get("level_min"), levels.get("level_max")
    if low is not None and high is not None and low > high:
        errors.add("level_max", "The highest level is below the lowest.")
    errors.raise_if_any()
    with transaction.atomic():
        game = OpenGame(
            ladder=ladder,
            host=by,
            starts_at=times[0],
            place=place,
            level_min=low,
            level_max=high,
            team_size=ladder.team_size,
            created_at=now,
            updated_at=now,
        )
        refusal = _level_refusal(game, me)
        if refusal:
            mine = format_rating(_rating(ladder, me))
            raise MatchValidationError(
                {
                    "level_min": [
                        f"Your own rating ({mine}) is outside the range: post a game you can play."
                    ]
                }
            )
        game.save()
        OpenGamePlayer.objects.create(game=game, user=by, joined_at=now)
    return _lock_game_readonly(game.pk)


def _lock_game_readonly(pk: int) -> OpenGame:
    return (
        OpenGame.objects.select_related("ladder", "host")
        .prefetch_related("players__user")
        .get(pk=pk)
    )


def join_open_game(game: OpenGame | int, by: User, now: datetime | None = None) -> OpenGame:
    """A member in range takes a place; the last place makes the game scheduled."""
    now = now or timezone.now()
    with transaction.atomic():
        # The row lock makes two members racing for the last place take turns: the
        # second finds the game full.
        game = _lock_game(game)
        membership = (
            Membership.objects.filter(ladder=game.ladder, user=by).select_related("user").first()
        )
        if membership is None:
            raise MatchPermissionError(f"Only members of {game.ladder.name} join its games.")
        _not_barred(game.ladder, by)
        if game.state != OPEN:
            word = "full" if game.state == SCHEDULED else dict(_STATE_WORDS)[game.state]
            raise MatchStateError(f"This game is {word}.")
        if game.starts_at and game.starts_at <= now:
            raise MatchStateError("This game has started.")
        if by.pk in {u.pk for u in game.players_list}:
            raise MatchStateError("You are in this game already.")
        _check_all_may_play(game.ladder, [*game.players_list, by])
        refusal = _level_refusal(game, membership) or _playable(
            membership, timezone.localdate(now), "invited"
        )
        if refusal:
            raise MatchValidationError({"__all__": [refusal]})
        check_notice_cap(by, now)
        OpenGamePlayer.objects.create(game=game, user=by, joined_at=now)
        game = _lock_game(game)
        if game.places_left == 0:
            game.state = SCHEDULED
            _save(game, now, "state")
            tell.game_full(game, by)
        else:
            _save(game, now)
            tell.game_changed(game, by, "joined")
    return game


def leave_open_game(game: OpenGame | int, by: User, now: datetime | None = None) -> OpenGame:
    """A player leaves; a full game opens again. The host cancels instead."""
    now = now or timezone.now()
    with transaction.atomic():
        game = _lock_game(game)
        if by.pk not in {u.pk for u in game.players_list}:
            raise MatchStateError("You are not in this game.")
        if by.pk == game.host_id:
            raise MatchStateError("You posted this game: cancel it instead.")
        if game.state not in LIVE or game.match_id:
            raise MatchStateError(f"This game is {dict(_STATE_WORDS)[game.state]}.")
        OpenGamePlayer.objects.filter(game=game, user=by).delete()
        game.state = OPEN
        _save(game, now, "state")
        game = _lock_game(game)
        tell.game_changed(game, by, "left")
    return game


def cancel_open_game(game: OpenGame | int, by: User, now: datetime | None = None) -> OpenGame:
    """The host or a moderator calls the game off; its players are told."""
    now = now or timezone.now()
    with transaction.atomic():
        game = _lock_game(game)
        if by.pk != game.host_id and not by.is_moderator:
            raise MatchPermissionError("Only the member who posted it or a moderator cancels it.")
        if game.state not in LIVE or game.match_id:
            raise MatchStateError(f"This game is {dict(_STATE_WORDS)[game.state]}.")
        game.state = CANCELLED
        _save(game, now, "state")
        tell.game_changed(game, by, "cancelled")
    return game


def open_games(ladder: Ladder, now: datetime | None = None) -> QuerySet[OpenGame]:
    """A ladder's games to come (open and full), soonest first; never one whose host may no
    longer play (a withdrawn player's games are cancelled: ``withdraw_player``)."""
    now = now or timezone.now()
    return (
        OpenGame.objects.filter(ladder=ladder, state__in=LIVE, starts_at__gt=now)
        .filter(host__is_active=True)
        .exclude(host__memberships__ladder=ladder, host__memberships__banned_at__isnull=False)
        .select_related("ladder", "host")
        .prefetch_related("players__user")
        .order_by("starts_at", "pk")
    )


#: How long after its start a full game the viewer played in waits on the page to be reported.
REPORT_WITHIN = timedelta(days=30)


def games_to_report(ladder: Ladder, user: User, now: datetime | None = None) -> QuerySet[OpenGame]:
    """``user``'s full games on ``ladder`` that have started, in the last
    :data:`REPORT_WITHIN`, and are not played yet: once started a game leaves the list of
    games to come, and its result (``?open_game=<id>``) is reported from here. One reported
    and not yet confirmed shows its match. Newest first."""
    now = now or timezone.now()
    return (
        OpenGame.objects.filter(
            ladder=ladder,
            state=SCHEDULED,
            starts_at__lte=now,
            starts_at__gt=now - REPORT_WITHIN,
            players__user=user,
        )
        .select_related("ladder", "host")
        .prefetch_related("players__user")
        .order_by("-starts_at", "-pk")
    )


def get_game(pk: int | str, viewer: User) -> OpenGame:
    game = (
        OpenGame.objects.filter(ladder__in=access.ladders(access.Viewer.of(viewer)).values("pk"))
        .filter(pk=pk)
        .first()
        if str(pk).isdigit()
        else None
    )
    if game is None:
        raise Http404("No such game.")
    return game


# ---- a player who may no longer play -------------------------------------------------------


def withdraw_player(
    user: User, ladder: Ladder | None = None, now: datetime | None = None
) -> list[Challenge | OpenGame]:
    """Call off what ``user`` arranged on ``ladder`` (on every ladder: None) once they may no
    longer play there (a ban, ladder.integrity.bans; a deactivated account,
    ``receivers.account_closed``): their open and scheduled challenges whose match is not
    reported are cancelled, the games they host cancelled, and they leave the games others
    host (which open again). Every other player is told once, however many of their games
    it touched. Returns what changed."""
    now = now or timezone.now()
    challenges = Challenge.objects.filter(state__in=LIVE, players__user=user)
    games = OpenGame.objects.filter(state__in=LIVE, players__user=user, match__isnull=True)
    if ladder is not None:
        challenges, games = challenges.filter(ladder=ladder), games.filter(ladder=ladder)
    changed: list[Challenge | OpenGame] = []
    others: dict[int, tuple[User, list[Challenge | OpenGame]]] = {}

    def touched(item: Challenge | OpenGame, players: Iterable[User]) -> None:
        changed.append(item)
        for other in players:
            if other.pk != user.pk:
                others.setdefault(other.pk, (other, []))[1].append(item)

    with transaction.atomic():
        for pk in list(challenges.values_list("pk", flat=True).distinct()):
            challenge = _lock_challenge(pk)
            if challenge.state not in LIVE or (
                challenge.match is not None and challenge.match.state in LIVE_MATCH_STATES
            ):
                continue
            challenge.state = CANCELLED
            _save(challenge, now, "state", decided=True)
            touched(challenge, challenge.players_list)
        for pk in list(games.values_list("pk", flat=True).distinct()):
            game = _lock_game(pk)
            if game.state not in LIVE or game.match_id:
                continue
            players = game.players_list
            if game.host_id == user.pk:
                game.state = CANCELLED
                _save(game, now, "state")
            else:
                OpenGamePlayer.objects.filter(game=game, user=user).delete()
                game.state = OPEN
                _save(game, now, "state")
            touched(game, players)
        for other, items in others.values():
            tell.withdrawn(other, items)
    return changed


# ---- calendar feeds ----------------------------------------------------------------------


def renew_feed(user: User) -> CalendarFeed:
    """A new secret for ``user``'s calendar address: the old address stops answering."""
    feed, created = CalendarFeed.objects.get_or_create(
        user=user, defaults={"password_mark": password_mark(user)}
    )
    if not created:
        feed.token = new_feed_token()
        feed.created_at = timezone.now()
        feed.password_mark = password_mark(user)
        feed.save(update_fields=["token", "created_at", "password_mark"])
    return feed


def feed_of(user: User) -> CalendarFeed:
    """``user``'s calendar address: made at the first ask, and made anew after a password
    change (the address from before it no longer answers)."""
    feed = CalendarFeed.objects.filter(user=user).select_related("user").first()
    if feed is None or not feed.is_current:
        feed = renew_feed(user)
    return feed
