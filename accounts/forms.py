"""Sign-up and profile forms, and the admin's user forms for the custom user."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib.auth import forms as auth_forms

from accounts.models import User
from ladder.models import Membership


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
    """Username, email and a password that passes Django's validators.

    A taken email address is not an error here (that would tell anyone whose address has
    an account): accounts.signup.start_signup handles it by e-mail."""

    error_messages = {
        **auth_forms.UserCreationForm.error_messages,
        "password_mismatch": "The two passwords do not match.",
    }

    class Meta:
        model = User
        fields = ("username", "email")
        field_classes = {"username": auth_forms.UsernameField}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
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


class LadderChoiceField(forms.ModelMultipleChoiceField):
    """Memberships, each labelled with its ladder's name."""

    def label_from_instance(self, obj: Membership) -> str:
        return obj.ladder.name


class ProfileForm(forms.ModelForm):
    """Your display name and which of your ladders you appear on publicly."""

    public_memberships = LadderChoiceField(
        queryset=Membership.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Show me publicly on",
        help_text="Unticked: you stay a member and can play, but only you and moderators "
        "see you on that ladder.",
    )

    class Meta:
        model = User
        fields = ("display_name",)
        help_texts = {
            "display_name": "Shown on ladders and match pages instead of your username. "
            "Leave blank to use your username."
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Only this user's memberships are choices: anyone else's id is an invalid choice.
        self.memberships = list(
            Membership.objects.filter(user=self.instance)
            .select_related("ladder")
            .order_by("ladder__name")
        )
        if not self.memberships:
            del self.fields["public_memberships"]
            return
        field = cast(LadderChoiceField, self.fields["public_memberships"])
        field.queryset = Membership.objects.filter(
            pk__in=[m.pk for m in self.memberships]
        ).order_by("ladder__name")
        field.initial = [m.pk for m in self.memberships if m.is_public]

    def save(self, commit: bool = True) -> User:
        user = super().save(commit=commit)
        if commit and "public_memberships" in self.fields:
            chosen = {m.pk for m in self.cleaned_data["public_memberships"]}
            for membership in self.memberships:
                wanted = membership.pk in chosen
                if membership.is_public != wanted:
                    membership.is_public = wanted
                    membership.save(update_fields=["is_public"])
        return user


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
