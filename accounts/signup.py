"""Sign-up by confirmed e-mail: the answer never says whether an address is taken.

Every well-formed sign-up gets the same answer ("check your inbox"). A new address gets
an inactive account and a signed link that activates it; an address that already has an
account gets a note instead (a fresh link if that account was never confirmed), and no
second account. Usernames are public on the leaderboard, so a taken username is still
refused on the form.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse

from accounts.models import User

SALT = "accounts.signup.confirm"
# How long a confirmation link works.
CONFIRM_DAYS = 3


class SignupLinkError(Exception):
    """A confirmation link that is broken, expired or already used; the message is for people."""


def start_signup(form: Any, next_url: str = "") -> None:
    """Create the inactive account of a valid SignUpForm and mail its link, or mail the
    owner of the address. Either way the caller answers the same."""
    email = form.cleaned_data["email"]
    existing = User.objects.filter(email__iexact=email).first()
    if existing is None:
        user = form.save(commit=False)
        user.is_active = False
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:  # the same address signed up a moment ago
            existing = User.objects.filter(email__iexact=email).first()
        else:
            _mail_link(user, next_url, "accounts/email/signup_confirm.txt")
            return
    if existing is None:
        return
    if _awaits_confirmation(existing):
        _mail_link(existing, next_url, "accounts/email/signup_again.txt")
    else:
        _mail(existing, "accounts/email/signup_taken.txt", {"login_url": _url(reverse("login"))})


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
    user = User.objects.filter(pk=data.get("u")).first()
    if user is None or not _awaits_confirmation(user):
        raise SignupLinkError("This link was used already: log in with your username and password.")
    return user, str(data.get("n") or "")


def confirm(user: User) -> None:
    """Activate a confirmed account (once: a used link finds it active)."""
    user.is_active = True
    user.save(update_fields=["is_active"])


def _awaits_confirmation(user: User) -> bool:
    # Never logged in and inactive: signed up, not confirmed. An account a moderator
    # switched off has logged in before, so an old link cannot switch it back on.
    return not user.is_active and user.last_login is None


# The login form says why such an account cannot log in yet.
awaits_confirmation = _awaits_confirmation


def _url(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def _mail_link(user: User, next_url: str, template: str) -> None:
    link = _url(reverse("accounts:signup_confirm", args=[make_token(user, next_url)]))
    _mail(user, template, {"link": link, "days": CONFIRM_DAYS})


def _mail(user: User, template: str, context: dict[str, Any]) -> None:
    subject, _, body = render_to_string(template, {"user": user, **context}).partition("\n")
    send_mail(subject.strip(), body.strip() + "\n", None, [user.email])
