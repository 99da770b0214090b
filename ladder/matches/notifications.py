"""Who is told what about a match: the site's notifications, written in the operation's
transaction, and the e-mails, sent after it commits."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import User
from ladder.matches.models import (
    TO_CONFIRM,
    Dispute,
    MailSettings,
    Match,
    Notification,
)
from ladder.matches.moderators import everyone_moderating, moderators

log = logging.getLogger(__name__)

# Which of the member's e-mail settings (models.MAIL_EVENTS) each e-mail belongs to.
MAIL_EVENT_OF = {
    "match_reported": "to_confirm",
    "match_edited": "to_confirm",
    "match_partner": "partner",
    "match_confirmed": "confirmed",
    "match_disputed": "disputed",
    "dispute_for_moderators": "disputed",
    "match_decided": "decided",
    "match_cancelled": "cancelled",
    "member_notice": "moderation",
}


def _site_url(path: str) -> str:
    return getattr(settings, "SITE_URL", "http://127.0.0.1:8000").rstrip("/") + path


def _send(template: str, recipients: Iterable[User], **context: object) -> None:
    """One plain-text email per recipient with an address; a mail failure is logged, not raised.

    It runs after commit: the match has changed whatever the mail server says. A member
    who turned this kind of e-mail off (MailSettings) gets none; the site still tells them.
    """
    people = {u.pk: u for u in recipients}
    event = MAIL_EVENT_OF[template]
    muted = {
        user_id
        for user_id, off in MailSettings.objects.filter(user_id__in=people).values_list(
            "user_id", "muted"
        )
        if event in off
    }
    for user in people.values():
        if not user.email or user.pk in muted:
            continue
        ctx = {**context, "recipient": user}
        subject = " ".join(render_to_string(f"matches/email/{template}_subject.txt", ctx).split())
        body = render_to_string(f"matches/email/{template}.txt", ctx)
        try:
            send_mail(subject, body, None, [user.email])
        except Exception:
            log.exception("Could not send %s email to %s", template, user.username)


def _context(match: Match) -> dict[str, object]:
    return {"match": match, "ladder": match.ladder, "url": _site_url(match.get_absolute_url())}


def _tell(kind: str, users: Iterable[User], match: Match, text: str) -> None:
    """The site's notifications (each user once), written in the caller's transaction."""
    Notification.objects.bulk_create(
        Notification(user=user, kind=kind, match=match, text=text[:300])
        for user in {u.pk: u for u in users}.values()
    )


def tell_member(user: User, text: str, link: str, kind: str = "moderation") -> None:
    """A notification about no one match (a moderation decision about a member: a ban, its
    lifting, a rating recalculated after one), leading to ``link``; written in the caller's
    transaction, and the same words e-mailed after it commits (the notification settings'
    "moderation" choice)."""
    Notification.objects.create(user=user, kind=kind, match=None, link=link, text=text[:300])
    _mail_after_commit(
        "member_notice", [user], text=text, subject=_headline(text), url=_site_url(link)
    )


def _headline(text: str) -> str:
    """A notice's subject: its first clause ("A moderator banned you from Singles")."""
    return re.split(r"[:;]\s|\.\s|\.$", text, maxsplit=1)[0].strip()[:150]


def _mail_after_commit(template: str, recipients: Iterable[User], **context: object) -> None:
    recipients = list(recipients)
    # robust: a failure after the commit (the database gone while the mail is written) is
    # logged; it must not turn the committed action's answer into a 5xx (issue 29.2).
    transaction.on_commit(lambda: _send(template, recipients, **context), robust=True)


def describe(match: Match) -> str:
    """ "Ann and Bo v Cy and Di on 3 Mar (Doubles), 21–15 21–18": a match in one line."""
    sides = " v ".join(
        " and ".join(u.name for u in side) for side in (match.side_a_players, match.side_b_players)
    )
    games = " ".join(f"{a}\u2013{b}" for a, b in match.game_scores)
    day = match.played_on
    return f"{sides} on {day.day} {day:%b} ({match.ladder.name}), {games}"


def reported_by(match: Match) -> str:
    """Who put the match on the site, and how: "Mei Lin reported", or for a club night's
    court entered by someone who did not play, "Mei Lin entered the club night score of"
    (issue 37: not "reported a match against you" from someone who was not in it)."""
    if match.reporter_side is None:
        return f"{match.reporter.name} entered the club night score of"
    return f"{match.reporter.name} reported"


def tell_reported(match: Match) -> None:
    """The opponents' notification of a match waiting for their confirmation."""
    text = f"{reported_by(match)} {describe(match)}: confirm it or say what is wrong."
    _tell(TO_CONFIRM, match.opponents, match, text)


def tell_disputed(match: Match, dispute: Dispute) -> None:
    """The reporter's and every moderator's notification of a dispute."""
    by = dispute.raised_by.name
    _tell("disputed", [match.reporter], match, f"{by} disputed {describe(match)}: {dispute.reason}")
    _tell(
        "to_settle",
        everyone_moderating(),
        match,
        f"A dispute to settle: {by} disputed {describe(match)}: {dispute.reason}",
    )


def _partners(match: Match) -> list[User]:
    """The reporter's partners: on the report, without a say in it (none when the reporter,
    a club night organiser, did not play)."""
    if match.reporter_side is None:
        return []
    side = match.side_a_players if match.reporter_side == "a" else match.side_b_players
    return [u for u in side if u.pk != match.reporter_id]


def _told_to_confirm_read(match: Match) -> None:
    """The opponents' "to confirm" notices of ``match`` are done with: no longer "New"."""
    Notification.objects.filter(match=match, kind=TO_CONFIRM, read_at__isnull=True).update(
        read_at=timezone.now()
    )


def notify_reported(match: Match) -> None:
    """Tell the opponents a match against them waits for their confirmation, and the
    reporter's partners that a match naming them was reported."""
    tell_reported(match)
    _mail_after_commit(
        "match_reported",
        match.opponents,
        inbox_url=_site_url("/inbox/"),
        expires_at=match.expires_at,
        **_context(match),
    )
    partners = _partners(match)
    if partners:
        others = " or ".join(u.name for u in match.opponents)
        _tell(
            "partner",
            partners,
            match,
            f"{match.reporter.name} reported {describe(match)}, with you on their side; "
            f"{others} can confirm it.",
        )
        _mail_after_commit("match_partner", partners, **_context(match))


def notify_edited(match: Match, before: str) -> None:
    """The reporter changed a pending report: the opponents confirm the new version (their
    notice of the old one is done with); the partners hear of it too."""
    _told_to_confirm_read(match)
    text = (
        f"{match.reporter.name} changed their report ({before}): now {describe(match)}. "
        "Confirm the new score or say what is wrong."
    )
    _tell("edited", [*match.opponents, *_partners(match)], match, text)
    _mail_after_commit(
        "match_edited",
        match.opponents,
        before=before,
        inbox_url=_site_url("/inbox/"),
        expires_at=match.expires_at,
        **_context(match),
    )


def notify_cancelled(match: Match) -> None:
    """The reporter withdrew a pending report: nothing waits for the opponents any more."""
    _told_to_confirm_read(match)
    text = f"{match.reporter.name} cancelled their report of {describe(match)}: nothing to confirm."
    _tell("cancelled", [*match.opponents, *_partners(match)], match, text)
    _mail_after_commit("match_cancelled", match.opponents, **_context(match))


def notify_confirmed(match: Match, by: User) -> None:
    _tell("confirmed", [match.reporter], match, f"{by.name} confirmed {describe(match)}.")
    _mail_after_commit("match_confirmed", [match.reporter], by=by, **_context(match))


def notify_disputed(match: Match, dispute: Dispute) -> None:
    """The reporter learns of the dispute; moderators get it to settle."""
    ctx = {"dispute": dispute, "by": dispute.raised_by, **_context(match)}
    tell_disputed(match, dispute)
    _mail_after_commit("match_disputed", [match.reporter], **ctx)
    _mail_after_commit(
        "dispute_for_moderators",
        moderators(),
        moderation_url=_site_url("/moderation/"),
        **ctx,
    )


_TOLD_OF_DECISION = {
    "resolve_uphold": ("resolved", "upheld the report of"),
    "resolve_correct": ("corrected", "corrected the score of"),
    "resolve_void": ("voided", "voided"),
    "correct": ("corrected", "corrected"),
    "void": ("voided", "voided"),
}


def notify_decided(match: Match, by: User, action: str, reason: str) -> None:
    """Every player hears a moderator's decision on their match, with the reason."""
    players = [*match.side_a_players, *match.side_b_players]
    kind, verb = _TOLD_OF_DECISION[action]
    _tell(kind, players, match, f"{by.name} {verb} {describe(match)}: {reason}")
    _mail_after_commit(
        "match_decided", players, by=by, action=action, reason=reason, **_context(match)
    )
