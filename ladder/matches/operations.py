"""The match state machine (RULES.md "Matches"): the only code that changes a match.

The web pages and the API call these operations and hold no rules of their own.
Who may take each step is in ``permissions.py``, what a valid score, date, stats and
reason are in ``validation.py``, and who is told in ``notifications.py``.
Each operation checks its own preconditions and either raises a ``MatchError``
having changed nothing, or, in one transaction with the match row locked, makes
the change, writes exactly one ``AuditEntry`` and, after commit, sends its emails
and (when the match enters or leaves a rated state) enqueues the rating work.

States::

    pending ──confirm──▶ confirmed ──correct──▶ corrected ──correct / void──▶ …
       │                    └──────void──────▶ voided
       ├──dispute──▶ disputed ──resolve: uphold / correct / void──▶ confirmed / corrected / voided
       ├──cancel (reporter)──▶ cancelled
       └──time (confirm_within_hours)──▶ expired

A pending match past its window counts as expired at once, before the periodic
``expire_overdue`` sweep writes it down.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime, timedelta

from django.db import transaction
from django.http import Http404
from django.utils import timezone

from accounts.models import User
from ladder.clubs.models import Ladder
from ladder.matches import hooks
from ladder.matches.errors import FieldErrors, MatchError, MatchStateError, ReportKeyReused
from ladder.matches.models import (
    CANCELLED,
    CONFIRMED,
    CORRECTED,
    DISPUTED,
    EXPIRED,
    PENDING,
    RATED_STATES,
    VOIDED,
    AuditEntry,
    Dispute,
    Game,
    Match,
    MatchPlayer,
    Snapshot,
)
from ladder.matches.notifications import (
    describe,
    notify_cancelled,
    notify_confirmed,
    notify_decided,
    notify_disputed,
    notify_edited,
    notify_reported,
)
from ladder.matches.permissions import (
    check_ban_step,
    check_cancel,
    check_confirm,
    check_correct,
    check_dispute,
    check_edit,
    check_not_barred,
    check_resolve,
    check_void,
)
from ladder.matches.signals import match_state_changed, ratings_due
from ladder.matches.validation import (
    Report,
    check_date,
    check_games,
    check_reason,
    check_report_key,
    checked_report,
)

DECISIONS = ("uphold", "correct", "void")
_DECISION_STATE = {"uphold": CONFIRMED, "correct": CORRECTED, "void": VOIDED}
_DECISION_RESOLUTION = {"uphold": "upheld", "correct": "corrected", "void": "voided"}
_DECIDED_STATES = (CONFIRMED, CORRECTED, VOIDED, CANCELLED, EXPIRED)


# What a report sent again under its key must repeat of the first (its snapshot, bar stats).
SNAPSHOT_REPORT = ("played_on", "side_a", "side_b", "games")


def snapshot_of(
    played_on: date,
    side_a: Iterable[User],
    side_b: Iterable[User],
    games: Iterable[tuple[int, int]],
    stats: Mapping[str, dict[str, float]] | None = None,
) -> Snapshot:
    snap: Snapshot = {
        "played_on": played_on.isoformat(),
        "side_a": [u.username for u in side_a],
        "side_b": [u.username for u in side_b],
        "games": [[a, b] for a, b in games],
    }
    if stats:
        snap["stats"] = dict(stats)
    return snap


def snapshot(match: Match) -> Snapshot:
    """What an audit entry records of a match: date, players, games (and stats if any)."""
    stats = {p.user.username: p.stats for p in match.players.all() if p.stats}
    return snapshot_of(
        match.played_on, match.side_a_players, match.side_b_players, match.game_scores, stats
    )


def _lock(match: Match | int) -> Match:
    pk = match if isinstance(match, int) else match.pk
    try:
        return Match.objects.select_for_update(of=("self",)).with_details().get(pk=pk)
    except Match.DoesNotExist:
        raise Http404("No such match.") from None


def _transition(
    match: Match,
    actor: User | None,
    action: str,
    to_state: str,
    now: datetime,
    *,
    before: Snapshot | None,
    after: Snapshot | None,
    reason: str = "",
    extra_fields: Sequence[str] = (),
) -> None:
    """Move ``match`` to ``to_state`` and write its one audit entry (inside the caller's atomic)."""
    from_state = match.state
    match.state = to_state
    match.updated_at = now
    update = ["state", "updated_at", *extra_fields]
    if to_state in _DECIDED_STATES:
        match.decided_at = now
        update.append("decided_at")
    # The ratings pipeline replays whatever enters or leaves a rated state (RULES.md
    # "Ratings in the site"); a match that never counted and never will needs nothing.
    rate = from_state in RATED_STATES or to_state in RATED_STATES
    if rate:
        match.needs_rating = True
        update.append("needs_rating")
    match.save(update_fields=update)
    match_state_changed.send(sender=Match, match=match, from_state=from_state, to_state=to_state)
    AuditEntry.objects.create(
        match=match,
        actor=actor,
        at=now,
        action=action,
        from_state=from_state,
        to_state=to_state,
        before=before,
        after=after,
        reason=reason,
    )
    if rate:
        ladder_id = match.ladder_id
        # robust: the sweep rates it should this fail; the action has committed regardless.
        transaction.on_commit(
            lambda: ratings_due.send(sender=Match, ladder_id=ladder_id), robust=True
        )


def _replace_games(match: Match, games: Sequence[tuple[int, int]]) -> None:
    match.games.all().delete()
    Game.objects.bulk_create(
        Game(match=match, number=n, a_points=a, b_points=b) for n, (a, b) in enumerate(games, 1)
    )
    # Drop the stale prefetch so the snapshot after the change reads the new games.
    getattr(match, "_prefetched_objects_cache", {}).pop("games", None)


def report_match(
    report: Report,
    *,
    key: str | None = None,
    now: datetime | None = None,
    organiser: bool = False,
    links: Mapping[str, int] | None = None,
) -> Match:
    """Report the match ``report`` gives, which its reporter played; it waits for an
    opponent to confirm it.

    ``organiser``: a club night organiser enters a court's score (``checked_report``); when
    they did not play, a player of either side confirms it.

    ``key``: the client's name for this report (the API's Idempotency-Key). The same report
    sent again under it makes nothing and returns the match the key made, as it is now, with
    ``repeated`` set, even where the rules would now refuse it (a duplicate, the limits); a
    different report under a key used before is refused (``ReportKeyReused``).

    ``links`` names what it was scheduled as ({"challenge": id}): ``hooks.play()`` hands it
    to the app that keeps those (ladder/play/hooks.py), which may refuse the report."""
    ladder, reporter = report.ladder, report.reporter
    now = now or timezone.now()
    if key is not None:
        check_report_key(key)
    with transaction.atomic():
        if (repeat := _reported_with(key, report)) is not None:
            return repeat
        refused: MatchError | None = None
        try:
            checked = checked_report(report, now, lock=True, organiser=organiser)
        except MatchError as error:
            refused = error
        # Asked again under the reporter's lock (checked_report took it): a repeat sent while
        # the first was still being made waited for it and reads now as its duplicate;
        # another report sent under the key at that moment is refused as the key's reuse.
        if (repeat := _reported_with(key, report)) is not None:
            return repeat
        if refused is not None:
            raise refused
        played_on, side_a, side_b = checked.played_on, checked.side_a, checked.side_b
        game_scores, player_stats = checked.games, checked.stats
        players = side_a + side_b
        match = Match.objects.create(
            ladder=ladder,
            played_on=played_on,
            reporter=reporter,
            state=PENDING,
            created_at=now,
            updated_at=now,
            report_key=key or "",
        )
        MatchPlayer.objects.bulk_create(
            MatchPlayer(
                match=match,
                user=user,
                side=side,
                position=position,
                stats=player_stats.get(user.pk),
            )
            for side, members_of_side in (("a", side_a), ("b", side_b))
            for position, user in enumerate(members_of_side)
        )
        Game.objects.bulk_create(
            Game(match=match, number=n, a_points=a, b_points=b)
            for n, (a, b) in enumerate(game_scores, 1)
        )
        stats_by_name = {u.username: player_stats[u.pk] for u in players if u.pk in player_stats}
        AuditEntry.objects.create(
            match=match,
            actor=reporter,
            at=now,
            action="report",
            from_state="",
            to_state=PENDING,
            before=None,
            after=snapshot_of(played_on, side_a, side_b, game_scores, stats_by_name),
        )
        match = Match.objects.with_details().get(pk=match.pk)
        if links:
            # The play app links its challenge or game, or refuses: the report rolls back.
            hooks.play().link_reported(match, dict(links))
        notify_reported(match)
    return match


def _reported_with(key: str | None, report: Report) -> Match | None:
    """The match ``report``'s reporter reported under ``key``, if ``report`` (ladder, date,
    sides, games) is the one it was reported as, before any edit; ``ReportKeyReused`` if not."""
    earlier = (
        Match.objects.filter(reporter=report.reporter, report_key=key).first() if key else None
    )
    if earlier is None:
        return None
    first = AuditEntry.objects.get(match=earlier, action="report").after or {}
    try:
        asked = snapshot_of(
            report.played_on,
            report.side_a,
            report.side_b,
            [(int(a), int(b)) for a, b in report.games],
        )
    except (TypeError, ValueError, AttributeError):  # not a score at all: not that report
        asked = {}
    if earlier.ladder_id != report.ladder.pk or any(
        asked.get(k) != first.get(k) for k in SNAPSHOT_REPORT
    ):
        raise ReportKeyReused(
            f"This Idempotency-Key was sent with another report (match {earlier.pk}, "
            f"{describe(Match.objects.with_details().get(pk=earlier.pk))}); "
            "send each new report with a new key."
        )
    match = Match.objects.with_details().get(pk=earlier.pk)
    match.repeated = True
    return match


def _by_a_player(
    match: Match,
    by: User,
    action: str,
    to_state: str,
    check: Callable[[Match, User, datetime], None],
    now: datetime | None,
    seen: datetime | None = None,
) -> tuple[Match, bool]:
    """A player's transition that changes nothing but the state: confirm, cancel. True if it
    happened now, False if it had already (``_already_done``).

    ``seen``: when the player loaded the version they act on; a report changed since
    (``edit_match``) is refused, so no one confirms a score they have not read."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        if _already_done(match, by, action, to_state):
            return match, False
        check(match, by, now)
        if action == "confirm":
            check_not_barred(match, by)
        if seen is not None and match.updated_at > seen:
            raise MatchStateError(
                f"{match.reporter.name} changed this report since you opened it: it now says "
                f"{describe(match)}. Check the new version, then confirm or dispute it."
            )
        snap = snapshot(match)
        _transition(match, by, action, to_state, now, before=snap, after=snap)
    return match, True


def _already_done(match: Match, by: User, action: str, to_state: str) -> bool:
    """``by`` asks again for what they did last: the match is in the state their ``action``
    led to and nothing happened to it since (a client retrying after an answer it never got,
    issue 29.2). The same success, not a conflict; nothing is written or sent again."""
    if match.state != to_state:
        return False
    last = match.audit.order_by("-at", "-pk").values_list("action", "actor_id").first()
    return last == (action, by.pk)


def confirm_match(
    match: Match, by: User, now: datetime | None = None, seen: datetime | None = None
) -> Match:
    """An opponent confirms the reported score; the match is then rated. ``seen``: when
    they loaded the report (a version changed since is refused)."""
    with transaction.atomic():
        match, now_confirmed = _by_a_player(
            match, by, "confirm", CONFIRMED, check_confirm, now, seen
        )
        if now_confirmed:
            notify_confirmed(match, by)
    return match


def edit_match(
    match: Match,
    by: User,
    games: Sequence[Sequence[int]],
    played_on: date | None = None,
    now: datetime | None = None,
) -> Match:
    """The reporter changes the score (and maybe the date) of their pending report; the
    opponents then confirm the new version. The players stay: to change them, cancel the
    report and report the match again."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        check_edit(match, by, now)
        errors = FieldErrors()
        new_games = check_games(games, match.ladder, errors)
        new_date: date | None = match.played_on
        if played_on is not None:
            new_date = check_date(played_on, errors, now, match.ladder.max_report_age_days)
        if not errors and new_games == match.game_scores and new_date == match.played_on:
            errors.add("games", "That is the score and date already reported; nothing changed.")
        errors.raise_if_any()
        before = snapshot(match)
        told_before = describe(match)
        extra = _apply_correction(match, new_games, new_date)
        _transition(
            match,
            by,
            "edit",
            PENDING,
            now,
            before=before,
            after=snapshot(match),
            extra_fields=extra,
        )
        notify_edited(match, told_before)
    return match


def dispute_match(
    match: Match,
    by: User,
    reason: str,
    proposed_games: Sequence[Sequence[int]] | None = None,
    now: datetime | None = None,
) -> Match:
    """An opponent says the report is wrong (reason required, may propose the right score)."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        if _already_done(match, by, "dispute", DISPUTED):
            return match
        check_dispute(match, by, now)
        check_not_barred(match, by)
        errors = FieldErrors()
        text = check_reason(reason, errors, "Say what is wrong with the reported result.")
        proposed = None
        if proposed_games:
            proposed = check_games(proposed_games, match.ladder, errors)
            if proposed and proposed == match.game_scores:
                errors.add("games", "That is the reported score; confirm the match if it is right.")
        errors.raise_if_any()
        dispute = Dispute.objects.create(
            match=match,
            raised_by=by,
            reason=text,
            proposed_games=[list(g) for g in proposed] if proposed else None,
            created_at=now,
        )
        before = snapshot(match)
        after: Snapshot = {**before, "proposed_games": dispute.proposed_games}
        _transition(match, by, "dispute", DISPUTED, now, before=before, after=after, reason=text)
        notify_disputed(match, dispute)
    return match


def cancel_match(match: Match, by: User, now: datetime | None = None) -> Match:
    """The reporter withdraws a report nobody has confirmed yet; the opponents hear of it
    (once: a retry of a cancel that happened tells no one again)."""
    with transaction.atomic():
        match, now_cancelled = _by_a_player(match, by, "cancel", CANCELLED, check_cancel, now)
        if now_cancelled:
            notify_cancelled(match)
    return match


def _moderator_changes(
    match: Match,
    errors: FieldErrors,
    games: Sequence[Sequence[int]] | None,
    played_on: date | None,
    now: datetime,
) -> tuple[list[tuple[int, int]], date | None]:
    """A moderator's new score (required) and date (optional, not in the future)."""
    new_games: list[tuple[int, int]] = []
    if not games:
        errors.add("games", "Enter the correct score.")
    else:
        new_games = check_games(games, match.ladder, errors)
    if played_on is not None:
        # A moderator may correct a date of any age; only the future is impossible.
        played_on = check_date(played_on, errors, now, max_age_days=None)
    if new_games and new_games == match.game_scores and played_on in (None, match.played_on):
        errors.add("games", "That is the score already recorded; nothing would change.")
    return new_games, played_on


def _apply_correction(
    match: Match, games: Sequence[tuple[int, int]], played_on: date | None
) -> list[str]:
    _replace_games(match, games)
    if played_on is not None and played_on != match.played_on:
        match.played_on = played_on
        return ["played_on"]
    return []


def resolve_dispute(
    match: Match,
    by: User,
    decision: str,
    reason: str,
    games: Sequence[Sequence[int]] | None = None,
    played_on: date | None = None,
    now: datetime | None = None,
) -> Match:
    """A moderator settles a dispute: uphold the report, correct the score, or void the match."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        check_resolve(match, by, now)
        errors = FieldErrors()
        if decision not in DECISIONS:
            errors.add("decision", "Choose uphold, correct or void.")
        text = check_reason(
            reason, errors, "Give the reason for your decision; the players see it."
        )
        new_games: list[tuple[int, int]] = []
        new_date = None
        if decision == "correct":
            new_games, new_date = _moderator_changes(match, errors, games, played_on, now)
        errors.raise_if_any()

        before = snapshot(match)
        extra = _apply_correction(match, new_games, new_date) if decision == "correct" else []
        match.disputes.filter(resolution__isnull=True).update(
            resolution=_DECISION_RESOLUTION[decision],
            resolved_by=by,
            resolution_reason=text,
            resolved_at=now,
        )
        _transition(
            match,
            by,
            f"resolve_{decision}",
            _DECISION_STATE[decision],
            now,
            before=before,
            after=snapshot(match),
            reason=text,
            extra_fields=extra,
        )
        notify_decided(match, by, f"resolve_{decision}", text)
    return match


def correct_match(
    match: Match,
    by: User,
    games: Sequence[Sequence[int]],
    reason: str,
    played_on: date | None = None,
    now: datetime | None = None,
) -> Match:
    """A moderator corrects the score (and maybe the date) of a confirmed match."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        check_correct(match, by, now)
        errors = FieldErrors()
        text = check_reason(
            reason, errors, "Give the reason for the correction; the players see it."
        )
        new_games, new_date = _moderator_changes(match, errors, games, played_on, now)
        errors.raise_if_any()
        before = snapshot(match)
        extra = _apply_correction(match, new_games, new_date)
        _transition(
            match,
            by,
            "correct",
            CORRECTED,
            now,
            before=before,
            after=snapshot(match),
            reason=text,
            extra_fields=extra,
        )
        notify_decided(match, by, "correct", text)
    return match


def void_match(match: Match, by: User, reason: str, now: datetime | None = None) -> Match:
    """A moderator voids a confirmed match: it no longer counts."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        check_void(match, by, now)
        errors = FieldErrors()
        text = check_reason(
            reason, errors, "Give the reason for voiding the match; the players see it."
        )
        errors.raise_if_any()
        snap = snapshot(match)
        _transition(match, by, "void", VOIDED, now, before=snap, after=snap, reason=text)
        notify_decided(match, by, "void", text)
    return match


def cancel_by_moderator(match: Match, by: User, reason: str, now: datetime | None = None) -> Match:
    """A moderator cancels a match waiting for confirmation (a player of it was banned)."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        check_ban_step(match, by, (PENDING,), "cancelled")
        snap = snapshot(match)
        _transition(match, by, "cancel", CANCELLED, now, before=snap, after=snap, reason=reason)
    return match


def withhold_match(match: Match, by: User, reason: str, now: datetime | None = None) -> Match:
    """A ban withholds a rated match: it is voided with the audit action "withhold", which
    only ``restore_match`` undoes (a moderator's own void is "void", and stays)."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        check_ban_step(match, by, RATED_STATES, "withheld")
        snap = snapshot(match)
        _transition(match, by, "withhold", VOIDED, now, before=snap, after=snap, reason=reason)
    return match


def restore_match(
    match: Match,
    state: str,
    rated_at: datetime | None,
    by: User,
    reason: str,
    now: datetime | None = None,
) -> Match:
    """Lifting a ban gives a withheld match back ``state`` (confirmed or corrected) and the
    time it was first rated: it counts again, as the rated match it was."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        check_ban_step(match, by, (VOIDED,), "restored")
        last = match.audit.order_by("-at", "-pk").values_list("action", flat=True).first()
        if last != "withhold" or state not in RATED_STATES:
            raise MatchStateError("Only a match a ban withheld can be restored, to its state.")
        snap = snapshot(match)
        match.rated_at = rated_at
        _transition(
            match,
            by,
            "restore",
            state,
            now,
            before=snap,
            after=snap,
            reason=reason,
            extra_fields=["rated_at"],
        )
    return match


def expire_overdue(now: datetime | None = None) -> int:
    """Mark pending matches past their confirmation window expired; returns how many."""
    now = now or timezone.now()
    expired = 0
    for ladder_id, hours in Ladder.objects.values_list("pk", "confirm_within_hours"):
        overdue = list(
            Match.objects.filter(
                ladder_id=ladder_id, state=PENDING, created_at__lt=now - timedelta(hours=hours)
            ).values_list("pk", flat=True)
        )
        for pk in overdue:
            with transaction.atomic():
                match = _lock(pk)
                if not match.is_expired(now) or match.state != PENDING:
                    continue  # confirmed or cancelled in the meantime
                snap = snapshot(match)
                _transition(match, None, "expire", EXPIRED, now, before=snap, after=snap)
                expired += 1
    return expired
