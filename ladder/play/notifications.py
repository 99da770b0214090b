"""Who is told what about challenges and open games: a notification on the site, written in
the change's transaction, and the same words by e-mail after it commits (the matches app's
notifications, which point at the challenge or game instead of a match)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import User
from ladder.matches.models import MailSettings, Notification
from ladder.play.models import CANCELLED, Challenge, OpenGame

log = logging.getLogger(__name__)


def _site_url(path: str) -> str:
    return getattr(settings, "SITE_URL", "http://127.0.0.1:8000").rstrip("/") + path


def _mail(kind: str, recipients: list[User], subject: str, text: str, link: str) -> None:
    """The e-mails, to those who have not turned this kind off (matches.MailSettings: the
    notification settings' "Challenges" and "Open games"); the site still tells them."""
    settings_of = MailSettings.objects.filter(user_id__in=[u.pk for u in recipients])
    muted = {user_id for user_id, off in settings_of.values_list("user_id", "muted") if kind in off}
    for user in recipients:
        if not user.email or user.pk in muted:
            continue
        context = {"recipient": user, "text": text, "url": _site_url(link)}
        body = render_to_string("play/email/notice.txt", context)
        try:
            send_mail(subject, body, None, [user.email])
        except Exception:
            log.exception("Could not send %r to %s", subject, user.username)


def _tell(kind: str, users: Iterable[User | None], text: str, link: str, subject: str) -> None:
    """Each user once: a notification now, an e-mail after commit."""
    recipients = list({u.pk: u for u in users if u is not None}.values())
    Notification.objects.bulk_create(
        Notification(user=user, kind=kind, link=link, text=text[:300]) for user in recipients
    )
    transaction.on_commit(lambda: _mail(kind, recipients, subject, text, link), robust=True)


def _when(moment: datetime | None) -> str:
    if moment is None:
        return "a time to be agreed"
    local = timezone.localtime(moment)
    return f"{local:%a} {local.day} {local:%b} at {local:%H:%M}"


def _names(users: Iterable[User]) -> str:
    names = [u.name for u in users]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def challenged(challenge: Challenge) -> None:
    times = "; ".join(
        _when(moment) for moment in challenge.proposed_datetimes if moment is not None
    )
    text = (
        f"{_names(challenge.side_a)} challenged you on {challenge.ladder.name}: {times}. "
        f"Accept a time, propose another or decline by {_when(challenge.expires_at)}."
    )
    if challenge.message:
        text += f" “{challenge.message}”"
    _tell("challenge", challenge.side_b, text, challenge.get_absolute_url(), "You are challenged")


def times_proposed(challenge: Challenge, by: User) -> None:
    times = "; ".join(_when(m) for m in challenge.proposed_datetimes if m is not None)
    answering = challenge.side(challenge.answering_side)
    text = f"{by.name} proposed other times for your {challenge.ladder.name} challenge: {times}."
    _tell("challenge", answering, text, challenge.get_absolute_url(), "Other times proposed")


def challenge_scheduled(challenge: Challenge, by: User) -> None:
    others = [u for u in challenge.players_list if u.pk != by.pk]
    where = f" at {challenge.place}" if challenge.place else ""
    text = (
        f"{by.name} accepted: {_names(challenge.side_a)} v {_names(challenge.side_b)} on "
        f"{challenge.ladder.name}, {_when(challenge.starts_at)}{where}."
    )
    _tell("challenge", others, text, challenge.get_absolute_url(), "Challenge accepted")


def challenge_ended(challenge: Challenge, by: User | None, how: str) -> None:
    """Declined, cancelled (by a player or a moderator) or expired: everyone else is told."""
    others = [u for u in challenge.players_list if by is None or u.pk != by.pk]
    who = by.name if by else "No one answered:"
    verb = {"declined": "declined", "cancelled": "cancelled", "expired": "it expired"}[how]
    lineup = f"{_names(challenge.side_a)} v {_names(challenge.side_b)}"
    if by is None:
        text = f"The {challenge.ladder.name} challenge {lineup} expired unanswered."
    else:
        text = f"{who} {verb} the {challenge.ladder.name} challenge {lineup}."
    _tell("challenge", others, text, challenge.get_absolute_url(), f"Challenge {how}")


def game_full(game: OpenGame) -> None:
    text = (
        f"Your {game.ladder.name} game on {_when(game.starts_at)} at {game.place} is full: "
        f"{_names(game.players_list)}."
    )
    _tell("open_game", game.players_list, text, game.get_absolute_url(), "Your game is full")


def game_changed(game: OpenGame, by: User, how: str) -> None:
    """Someone joined, left or cancelled: the game's other players (and a host's moderator
    cancellation) are told."""
    others = [u for u in game.players_list if u.pk != by.pk]
    if how == "cancelled" and by.pk != game.host_id:
        others = [*others, game.host]
    text = f"{by.name} {how} the {game.ladder.name} game on {_when(game.starts_at)}."
    if how != "cancelled":
        text += f" {game.places_left} place{'s' if game.places_left != 1 else ''} left."
    _tell("open_game", others, text, game.get_absolute_url(), f"A game: {by.name} {how}")


def withdrawn(user: User, items: list[Challenge | OpenGame]) -> None:
    """One notice to ``user`` for every challenge and game of theirs that changed because a
    player in it may no longer play (a ban, a closed account): the ban itself shows nowhere."""

    def said(item: Challenge | OpenGame) -> str:
        if isinstance(item, Challenge):
            lineup = f"{_names(item.side_a)} v {_names(item.side_b)}"
            return f"the {item.ladder.name} challenge {lineup} is cancelled"
        game = f"the {item.ladder.name} game on {_when(item.starts_at)} at {item.place}"
        return f"{game} is cancelled" if item.state == CANCELLED else f"{game} has a place free"

    text = "; ".join(said(item) for item in items)
    text = f"{text[0].upper()}{text[1:]}: a player in it can no longer play on the ladder."
    link = items[0].get_absolute_url()
    _tell("challenge", [user], text, link, "A game of yours was called off")
