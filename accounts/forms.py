"""Sign-up and profile forms, and the admin's user forms for the custom user."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import forms as auth_forms

from accounts.models import User
from accounts.names import confusable_with


class LoginForm(auth_forms.AuthenticationForm):
    """Django's login form, saying why an account that is not confirmed yet cannot log in.

    Django refuses an inactive account with the same words as a wrong password. An account
    that waits for its e-mail's link hears that, with a hint of the address, only when the
    password typed is its own: only its owner learns it. A sign-up has no password until
    its link is followed (the password is chosen there), so no password typed is right and
    every failed log-in reads the same, naming the link for everyone (issue 22: the hint
    shown for any password told a stranger who signed up and did not confirm)."""

    error_messages = {
        **auth_forms.AuthenticationForm.error_messages,
        "invalid_login": "That username and password do not match an account. Both are "
        "case-sensitive. Signed up but not confirmed yet? Follow the link we e-mailed you "
        "first: you choose your password there.",
        "unconfirmed": "Your account is not confirmed yet: follow the link we e-mailed to "
        "%(email)s when you signed up. No e-mail? Sign up again with the same address for a "
        "new link.",
    }

    def clean(self) -> dict[str, Any]:
        try:
            return super().clean()
        except forms.ValidationError as error:
            waiting = self._awaiting_confirmation()
            if error.code != "invalid_login" or waiting is None:
                raise
            raise forms.ValidationError(
                self.error_messages["unconfirmed"],
                code="unconfirmed",
                params={"email": _masked(waiting.email)},
            ) from None

    def _awaiting_confirmation(self) -> User | None:
        username = self.cleaned_data.get("username") or ""
        password = self.cleaned_data.get("password") or ""
        user = User.objects.filter(username=username).first()
        if user is None or not user.awaiting_confirmation:
            return None  # no such account, or one that works (or was switched off)
        if not (user.has_usable_password() and user.check_password(password)):
            return None
        return user


def _masked(email: str) -> str:
    """An address as a hint to its owner: "a•••@example.org"."""
    local, _, domain = email.partition("@")
    return f"{local[:1]}•••@{domain}" if domain else "your address"


class UniqueEmailMixin:
    """Email addresses are unique regardless of case (Bob@x.org is bob@x.org)."""

    cleaned_data: dict[str, Any]
    instance: User

    def clean_email(self) -> str:
        email = User.objects.normalize_email(self.cleaned_data.get("email") or "")
        taken = User.objects.filter(email__iexact=email)
        if self.instance.pk:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise forms.ValidationError(
                "An account with this email address already exists. "
                "If it is yours, log in or reset your password.",
                code="email_taken",
            )
        return email


class SignUpForm(forms.Form):
    """Your name, a username and an e-mail address; the password is chosen on the
    confirmation page (accounts.signup explains why).

    A taken e-mail address is not an error here (that would tell anyone whose address has
    an account): accounts.signup.start_signup handles it by e-mail. A username is public,
    so a taken one is refused, unless it is the one this address is already signing up with;
    so is a name that reads like another member's (User.clean's rule, accounts.names)."""

    # Issue 23: members were "newbie" until they found the profile page.
    display_name = forms.CharField(
        label="Your name",
        max_length=User._meta.get_field("display_name").max_length,
        help_text="As the ladder shows you, like Priya Patel; you can change it later.",
    )
    username = auth_forms.UsernameField(
        max_length=User._meta.get_field("username").max_length,
        validators=User._meta.get_field("username").validators,
        help_text=User._meta.get_field("username").help_text,
    )
    email = forms.EmailField(
        label="Email address",
        max_length=User._meta.get_field("email").max_length,
        help_text="We send a link to confirm it and choose your password; also for password "
        "resets and match notifications.",
    )

    def clean_email(self) -> str:
        return User.objects.normalize_email(self.cleaned_data.get("email") or "")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        username, email = cleaned.get("username"), cleaned.get("email")
        if username:
            taken = User.objects.filter(username__iexact=username)
            if email:
                taken = taken.exclude(awaiting_confirmation=True, email__iexact=email)
            if taken.exists():
                self.add_error("username", "A user with that username already exists.")
        name = cleaned.get("display_name")
        if name:
            others = User.objects.all()
            if email:
                others = others.exclude(awaiting_confirmation=True, email__iexact=email)
            if confusable_with(name, list(others.values_list("username", "display_name"))):
                self.add_error(
                    "display_name",
                    f"Another member is already shown as “{name}”, or as a name that looks "
                    "the same: choose another, so that no one mistakes one of you for the other.",
                )
        return cleaned


class ConfirmSignupForm(auth_forms.SetPasswordForm):
    """The confirmation page: the owner of the address chooses the password."""

    error_messages = {
        **auth_forms.SetPasswordForm.error_messages,
        "password_mismatch": "The two passwords do not match.",
    }


class AdminUserCreationForm(UniqueEmailMixin, auth_forms.AdminUserCreationForm):
    class Meta:
        model = User
        fields = ("username", "email", "display_name")
        field_classes = {"username": auth_forms.UsernameField}


class AdminUserChangeForm(UniqueEmailMixin, auth_forms.UserChangeForm):
    class Meta:
        model = User
        fields = "__all__"
        field_classes = {"username": auth_forms.UsernameField}
