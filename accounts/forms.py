"""Sign-up and profile forms, and the admin's user forms for the custom user."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import forms as auth_forms

from accounts.models import User


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
    """A username and an e-mail address; the password is chosen on the confirmation page
    (accounts.signup explains why).

    A taken e-mail address is not an error here (that would tell anyone whose address has
    an account): accounts.signup.start_signup handles it by e-mail. A username is public,
    so a taken one is refused, unless it is the one this address is already signing up with."""

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
