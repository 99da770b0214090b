"""Sign-up by confirmed e-mail: the answer never says whether an address is taken, and only
the owner of the address chooses the account's password.

The sign-up form takes a username and an address, no password. Every well-formed sign-up
gets the same answer ("check your inbox") after the same work: one look-up of the address,
one write at most, and one e-mail handed to the task queue (accounts.tasks), never sent
while the visitor waits.

- A new address gets an inactive account awaiting confirmation, with no password, and a
  signed link. The link's page asks for the password: whoever chooses it has the mailbox.
  (A password typed at sign-up would be the signer-up's, who may not own the address: the
  pre-account takeover of issue 22.)
- An address awaiting confirmation gets a fresh link, and the account takes the username
  of this latest sign-up: nobody can hold an address they cannot confirm.
- An address with an account gets a note instead, and no second account.
- An account not confirmed within CONFIRM_DAYS is removed (purge_unconfirmed: on every
  sign-up and hourly by Celery beat), which frees its username and address.

Usernames are public on the leaderboard, so a taken username is still refused on the form.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from celery import shared_task
from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from core.errors import DomainError

SALT = "accounts.signup.confirm"
# How long a confirmation link works, and how long an unconfirmed account is kept.
CONFIRM_DAYS = 3
# The e-mails of a sign-up (templates/accounts/email/signup_<kind>.txt).
CONFIRM, TAKEN = "confirm", "taken"


class SignupLinkError(DomainError):
    """A confirmation link that is broken, expired or already used; the message is for people."""


def start_signup(username: str, email: str, next_url: str = "", display_name: str = "") -> None:
    """Make (or renew) the account awaiting confirmation of ``email`` and mail its link, or
    mail the owner of the address a note. Either way the caller answers the same."""
    existing = User.objects.filter(email__iexact=email).first()
    kind = CONFIRM
    try:
        with transaction.atomic():
            if existing is None:
                existing = User(
                    username=username, email=email, display_name=display_name, is_active=False
                )
                existing.awaiting_confirmation = True
                existing.set_unusable_password()
                existing.save()
            elif existing.awaiting_confirmation:
                # One UPDATE, no signals: an unconfirmed account has no tokens, ladders or
                # ratings for them to refresh (and the path costs what the others do).
                # The link's days start again.
                User.objects.filter(pk=existing.pk).update(
                    username=username, display_name=display_name, date_joined=timezone.now()
                )
            else:
                kind = TAKEN
    except IntegrityError:  # the same address or username signed up a moment ago
        return
    pk = existing.pk
    transaction.on_commit(lambda: send_signup_mail.delay(pk, kind, next_url))


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    autoretry_for=(OSError,),
    max_retries=3,
    retry_backoff=True,
)
def send_signup_mail(user_id: int, kind: str, next_url: str = "") -> None:
    """Mail a sign-up's link or note (``mail``); nothing if the account is gone."""
    user = User.objects.filter(pk=user_id).first()
    if user is not None:
        mail(user, kind, next_url)


def mail(user: User, kind: str, next_url: str = "") -> None:
    """Send the sign-up e-mail ``kind`` (CONFIRM or TAKEN) to ``user``."""
    if kind == CONFIRM:
        path = reverse("accounts:signup_confirm", args=[make_token(user, next_url)])
        context = {"link": _url(path), "days": CONFIRM_DAYS}
    else:
        context = {"login_url": _url(reverse("login"))}
    template = f"accounts/email/signup_{kind}.txt"
    subject, _, body = render_to_string(template, {"user": user, **context}).partition("\n")
    send_mail(subject.strip(), body.strip() + "\n", None, [user.email])


def purge_unconfirmed(now: datetime | None = None) -> int:
    """Remove the accounts not confirmed within CONFIRM_DAYS; how many there were."""
    cutoff = (now or timezone.now()) - timedelta(days=CONFIRM_DAYS)
    count, _ = User.objects.filter(awaiting_confirmation=True, date_joined__lt=cutoff).delete()
    return count


def make_token(user: User, next_url: str = "") -> str:
    return signing.dumps({"u": user.pk, "n": next_url}, salt=SALT, compress=True)


def account_for(token: str) -> tuple[User, str]:
    """The account a link confirms and where to go afterwards; SignupLinkError otherwise."""
    try:
        data = signing.loads(token, salt=SALT, max_age=CONFIRM_DAYS * 24 * 3600)
    except signing.SignatureExpired:
        raise SignupLinkError(
            "This link has expired. Sign up again with the same address for a new one."
        ) from None
    except signing.BadSignature:
        raise SignupLinkError(
            "This link is not valid: copy the whole link from the e-mail."
        ) from None
    user = User.objects.filter(pk=data.get("u"), awaiting_confirmation=True).first()
    if user is None:
        raise SignupLinkError("This link was used already: log in with your username and password.")
    return user, str(data.get("n") or "")


def confirm(user: User, password: str) -> None:
    """Activate a confirmed account with the password its owner chose (once: a used link
    finds it confirmed)."""
    user.set_password(password)
    user.is_active = True
    user.awaiting_confirmation = False
    user.save(update_fields=["password", "is_active", "awaiting_confirmation"])


def _url(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path
