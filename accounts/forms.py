"""Sign-up and profile forms, and the admin's user forms for the custom user."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import forms as auth_forms

from accounts.models import User
from accounts.signup import awaits_confirmation


class LoginForm(auth_forms.AuthenticationForm):
    """Django's login form, saying why an account that is not confirmed yet cannot log in.

    Django refuses an inactive account with the same words as a wrong password. An account
    signed up and never confirmed hears that instead, when the password is right (or the
    account has none yet): only its owner learns that it waits for the e-mail's link."""

    error_messages = {
        **auth_forms.AuthenticationForm.error_messages,
        "invalid_login": "That username and password do not match an account. Both are "
        "case-sensitive.",
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
        if user is None or not awaits_confirmation(user):
            return None  # no such account, or one that works (or was switched off)
        if user.has_usable_password() and not user.check_password(password):
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


class SignUpForm(auth_forms.UserCreationForm):
    """Your name, a username, email and a password that passes Django's validators.

    A taken email address is not an error here (that would tell anyone whose address has
    an account): accounts.signup.start_signup handles it by e-mail."""

    error_messages = {
        **auth_forms.UserCreationForm.error_messages,
        "password_mismatch": "The two passwords do not match.",
    }

    class Meta:
        model = User
        fields = ("display_name", "username", "email")
        field_classes = {"username": auth_forms.UsernameField}
        labels = {"display_name": "Your name"}
        help_texts = {
            "display_name": "As the ladder shows you, like Priya Patel; you can change it later."
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Issue 23: members were "newbie" until they found the profile page.
        self.fields["display_name"].required = True
        self.fields["email"].required = True
        self.fields[
            "email"
        ].help_text = (
            "We send a link to confirm it; also for password resets and match notifications."
        )

    def clean_email(self) -> str:
        return User.objects.normalize_email(self.cleaned_data.get("email") or "")

    def _get_validation_exclusions(self) -> set[str]:
        # The model's unique check on email would say "already exists": leave it to
        # start_signup, which answers the same either way.
        return {*super()._get_validation_exclusions(), "email"}  # type: ignore[misc]


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
