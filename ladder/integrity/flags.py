"""A ladder's flags: the detectors run over its stored matches and ratings, kept as rows.

Computed on demand, when a moderator opens the integrity page or API or runs
``manage.py integrity``, and only when the ladder's ratings changed since the last run
(its ``board_version``, which every rating run bumps): the stored ``Flag`` rows are the
cache, and they carry the moderators' decisions. A finding the detectors make again with
the same evidence keeps its flag's state; a dismissed flag whose evidence changed (new
matches) is open again, with an entry in the trail saying so. A flag the detectors no
longer make stays, marked not current, when someone decided on it; an open one goes.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Count
from django.urls import reverse
from django.utils import timezone

from accounts.models import RequestUser, User
from ladder.clubs.models import Ladder, Membership
from ladder.integrity.bans import require_moderator
from ladder.integrity.detectors import Finding, Member, Played, Thresholds, detect_all, margin_of
from ladder.integrity.errors import ModerationNotFound, ModerationValidationError
from ladder.integrity.models import (
    DISMISSED,
    KEPT,
    OPEN,
    Flag,
    IntegrityEntry,
    IntegritySettings,
)
from ladder.matches.models import RATED_STATES, AuditEntry, Game, Match, MatchPlayer
from ratings.models import PlayerRating, RatingChange

MAX_NOTE_LENGTH = 2000


def settings_of(ladder: Ladder) -> IntegritySettings:
    found, _ = IntegritySettings.objects.get_or_create(ladder=ladder)
    return found


def thresholds_of(ladder: Ladder) -> Thresholds:
    """The ladder's thresholds; a stored override that no longer fits falls back to the
    defaults (the admin validates them on the way in)."""
    try:
        return Thresholds.with_overrides(settings_of(ladder).thresholds)
    except ValueError:
        return Thresholds()


def evidence(ladder: Ladder) -> tuple[list[Played], list[Member]]:
    """The detectors' input for ``ladder``: its rated matches, in (played_on, id) order,
    with each player's rating before and change, and who reported and confirmed when."""
    matches = list(
        Match.objects.filter(ladder=ladder, state__in=RATED_STATES)
        .order_by("played_on", "pk")
        .values_list("pk", "played_on", "reporter_id", "created_at")
    )
    sides: dict[int, dict[str, list[str]]] = defaultdict(lambda: {"a": [], "b": []})
    for match_id, side, user_id in (
        MatchPlayer.objects.filter(match__ladder=ladder, match__state__in=RATED_STATES)
        .order_by("match_id", "side", "position")
        .values_list("match_id", "side", "user_id")
    ):
        sides[match_id][side].append(str(user_id))
    games: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for match_id, a, b in (
        Game.objects.filter(match__ladder=ladder, match__state__in=RATED_STATES)
        .order_by("match_id", "number")
        .values_list("match_id", "a_points", "b_points")
    ):
        games[match_id].append((a, b))
    before: dict[int, dict[str, float]] = defaultdict(dict)
    change: dict[int, dict[str, float]] = defaultdict(dict)
    for match_id, user_id, rating_before, delta in RatingChange.objects.filter(
        ladder=ladder
    ).values_list("match_id", "user_id", "rating_before", "change"):
        before[match_id][str(user_id)] = rating_before
        change[match_id][str(user_id)] = delta
    confirmed: dict[int, tuple[str | None, datetime]] = {}
    for match_id, actor_id, when in (
        AuditEntry.objects.filter(match__ladder=ladder, action="confirm")
        .order_by("at", "pk")
        .values_list("match_id", "actor_id", "at")
    ):
        confirmed.setdefault(match_id, (str(actor_id) if actor_id else None, when))
    reported = set(
        AuditEntry.objects.filter(match__ladder=ladder, action="report").values_list(
            "match_id", flat=True
        )
    )
    played = []
    for pk, played_on, reporter_id, created_at in matches:
        if not games[pk] or not sides[pk]["a"] or not sides[pk]["b"]:
            continue
        winner, margin = margin_of(games[pk])
        on_site = pk in reported  # imported history has no report, and no times to read
        by: str | None = None
        at: datetime | None = None
        if pk in confirmed:
            by, at = confirmed[pk]
        played.append(
            Played(
                id=pk,
                played_on=played_on,
                side_a=tuple(sides[pk]["a"]),
                side_b=tuple(sides[pk]["b"]),
                winner=winner,
                margin=margin,
                before=before[pk],
                change=change[pk],
                reporter=str(reporter_id) if on_site else None,
                reported_at=created_at if on_site else None,
                confirmed_by=by if on_site else None,
                confirmed_at=at if on_site else None,
            )
        )
    ratings = dict(PlayerRating.objects.filter(ladder=ladder).values_list("user_id", "rating"))
    members = [
        Member(
            name=str(user_id),
            display=display or username,
            self_level=float(level) if level is not None else None,
            rating=ratings.get(user_id, initial),
        )
        for user_id, username, display, level, initial in Membership.objects.filter(
            ladder=ladder
        ).values_list(
            "user_id", "user__username", "user__display_name", "self_level", "initial_rating"
        )
    ]
    return played, members


def _key(finding: Finding) -> str:
    key = "-".join(finding.players)
    pattern = finding.evidence.get("pattern")
    return f"{key}:{pattern}" if pattern else key


def fingerprint(finding: Finding) -> str:
    """A digest of a finding's evidence: its kind, players and matches."""
    text = f"{finding.kind}|{_key(finding)}|{','.join(map(str, finding.matches))}"
    return hashlib.sha256(text.encode()).hexdigest()


def refresh_flags(ladder: Ladder, force: bool = False, now: datetime | None = None) -> bool:
    """Run the detectors on ``ladder`` and store their findings, unless nothing changed
    since the last run (``force``: run anyway). Returns whether it ran."""
    now = now or timezone.now()
    with transaction.atomic():
        stored = IntegritySettings.objects.select_for_update().get(pk=settings_of(ladder).pk)
        version = Ladder.objects.values_list("board_version", flat=True).get(pk=ladder.pk)
        if not force and stored.computed_version == version and stored.computed_at is not None:
            return False
        played, members = evidence(ladder)
        findings = detect_all(played, members, thresholds_of(ladder))
        _store(ladder, findings, now)
        stored.computed_version, stored.computed_at = version, now
        stored.save(update_fields=["computed_version", "computed_at"])
    return True


def _store(ladder: Ladder, findings: Iterable[Finding], now: datetime) -> None:
    existing = {(f.kind, f.key): f for f in Flag.objects.filter(ladder=ladder)}
    seen = set()
    for finding in findings:
        key = (finding.kind, _key(finding))
        seen.add(key)
        digest = fingerprint(finding)
        values: dict[str, Any] = {
            "players": [int(p) for p in finding.players],
            "matches": list(finding.matches),
            "reason": finding.reason,
            "evidence": finding.evidence,
            "current": True,
            "updated_at": now,
        }
        flag = existing.get(key)
        if flag is None:
            Flag.objects.create(
                ladder=ladder,
                kind=finding.kind,
                key=key[1],
                fingerprint=digest,
                created_at=now,
                **values,
            )
            continue
        if flag.fingerprint != digest and flag.state == DISMISSED:
            values["state"] = OPEN
            IntegrityEntry.objects.create(
                ladder=ladder,
                actor=None,
                at=now,
                action="reopen",
                flag=flag,
                text="New evidence: " + finding.reason,
                details={"matches": list(finding.matches)},
            )
        if flag.fingerprint == digest and flag.current:
            continue  # the same finding: nothing to write
        values["fingerprint"] = digest
        Flag.objects.filter(pk=flag.pk).update(**values)
    gone = [f.pk for k, f in existing.items() if k not in seen]
    Flag.objects.filter(pk__in=gone, state=OPEN, entries__isnull=True).delete()
    Flag.objects.filter(pk__in=gone).exclude(state=OPEN, entries__isnull=True).update(
        current=False, updated_at=now
    )


def flags_for(ladder: Ladder, viewer: RequestUser | None) -> list[Flag]:
    """The ladder's flags for a moderator (fresh): current ones first, open before decided."""
    require_moderator(viewer)
    return current_flags(ladder)


def current_flags(ladder: Ladder, force: bool = False) -> list[Flag]:
    """The ladder's flags, refreshed if its ratings changed (or ``force``), each with the
    players' ``usernames``: current ones first, open before kept before dismissed."""
    refresh_flags(ladder, force=force)
    order = {OPEN: 0, KEPT: 1, DISMISSED: 2}
    flags = list(Flag.objects.filter(ladder=ladder).select_related("decided_by"))
    flags.sort(key=lambda f: (not f.current, order[f.state], f.kind, f.pk))
    names = dict(
        User.objects.filter(pk__in={p for f in flags for p in f.players}).values_list(
            "pk", "username"
        )
    )
    for flag in flags:
        flag.usernames = [names.get(p, "") for p in flag.players]  # type: ignore[attr-defined]
    return flags


@dataclass(frozen=True)
class IntegrityLink:
    """A ladder's integrity page as the moderators' menu and pages link it."""

    slug: str
    name: str
    url: str
    open_flags: int


def integrity_links() -> list[IntegrityLink]:
    """Every ladder's integrity page with its count of open flags (current, undecided), the
    flags refreshed first where the ratings changed, so the count is the page's (issue 37.4)."""
    ladders = list(Ladder.objects.order_by("name"))
    for ladder in ladders:
        refresh_flags(ladder)
    counts = dict(
        Flag.objects.filter(state=OPEN, current=True)
        .values("ladder_id")
        .annotate(n=Count("pk"))
        .values_list("ladder_id", "n")
    )
    return [
        IntegrityLink(
            ladder.slug,
            ladder.name,
            reverse("ladder:integrity", args=[ladder.slug]),
            counts.get(ladder.pk, 0),
        )
        for ladder in ladders
    ]


def decide_flag(
    ladder: Ladder,
    flag_id: int | str,
    by: RequestUser | None,
    state: object,
    note: object,
    now: datetime | None = None,
) -> Flag:
    """A moderator keeps or dismisses a flag, with a note; audited."""
    by = require_moderator(by)
    now = now or timezone.now()
    errors: dict[str, list[str]] = {}
    decision = next((s for s in (KEPT, DISMISSED) if s == state), "")
    if not decision:
        errors["state"] = ['Choose "kept" or "dismissed".']
    text = note.strip() if isinstance(note, str) else ""
    if not text:
        errors["note"] = ["Write a note: what you checked and why you decided so."]
    elif len(text) > MAX_NOTE_LENGTH:
        errors["note"] = [f"Keep it to {MAX_NOTE_LENGTH} characters; this is {len(text)}."]
    try:
        pk = int(flag_id)
    except (TypeError, ValueError):
        raise ModerationNotFound("No such flag.") from None
    with transaction.atomic():
        flag = Flag.objects.select_for_update().filter(ladder=ladder, pk=pk).first()
        if flag is None:
            raise ModerationNotFound("No such flag.")
        if errors:
            raise ModerationValidationError(errors)
        flag.state, flag.note, flag.decided_by, flag.decided_at = decision, text, by, now
        flag.updated_at = now
        flag.save(update_fields=["state", "note", "decided_by", "decided_at", "updated_at"])
        IntegrityEntry.objects.create(
            ladder=ladder,
            actor=by,
            at=now,
            action="keep" if state == KEPT else "dismiss",
            flag=flag,
            text=text,
            details={"fingerprint": flag.fingerprint, "matches": flag.matches},
        )
    return flag
