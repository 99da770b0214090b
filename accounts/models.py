"""The club's members: Django's user with a display name, and their API tokens."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractUser, AnonymousUser
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from knox.models import AbstractAuthToken, AuthTokenManager

from accounts.names import confusable_with

MODERATORS_GROUP = "Moderators"
# A search by name is a few words; more would only make a slower query.
MAX_SEARCH_WORDS = 4


def name_contains(text: str, path: str = "") -> Q:
    """Users (at ``path``: "user__" from a membership) whose username or display name
    contains each word of ``text``, ignoring case and a leading "@"; no condition for blank
    text. Word by word, so "chloe d" finds @chloe, Chloé Dubois: "chloe" in her username,
    "d" in her name. The trigram indexes of migration 0002 serve it."""
    words = text.strip().lstrip("@").split()
    condition = Q()
    for word in words[:MAX_SEARCH_WORDS]:
        condition &= Q(**{f"{path}username__icontains": word}) | Q(
            **{f"{path}display_name__icontains": word}
        )
    return condition


class User(AbstractUser):  # type: ignore[django-manager-missing]  # knox is untyped
    email = models.EmailField("email address", unique=True)
    display_name = models.CharField(
        max_length=60, blank=True, help_text="Shown on the ladder instead of your username."
    )
    # Signed up, address not confirmed yet: inactive, no password (it is chosen on the
    # confirmation page), removed after CONFIRM_DAYS (accounts.signup).
    awaiting_confirmation = models.BooleanField(default=False, db_default=False, editable=False)

    class Meta:
        ordering = ["username"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """Besides Django's checks: the name shown for this member (the display name, else
        the username) reads like no other member's (accounts.names), on every form that
        saves a user (sign-up, the profile, the admin)."""
        super().clean()
        others = User.objects.exclude(pk=self.pk).values_list("username", "display_name")
        if self.name and confusable_with(self.name, list(others)):
            # The display name is on the profile and admin forms; a sign-up names the username.
            field = "display_name" if self.display_name else NON_FIELD_ERRORS
            raise ValidationError(
                {
                    field: f"Another member is already shown as “{self.name}”, or as a name "
                    "that looks the same: choose another, so that no one mistakes one of "
                    "you for the other."
                }
            )

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Django keeps the new raw password in ``_password`` until the save that stores it:
        # set_password (password change and reset, the admin, manage.py changepassword).
        password_changed = self._password is not None and self.pk is not None
        super().save(*args, **kwargs)
        if password_changed:
            # Rotation: a new password ends every API token; the member asks for a new one.
            ApiToken.objects.filter(user=self).delete()

    def set_unusable_password(self) -> None:
        super().set_unusable_password()
        self._password = ""  # a password change too: the save above revokes the tokens

    @property
    def name(self) -> str:
        return self.display_name or self.username

    @property
    def is_moderator(self) -> bool:
        """Moderators are the Moderators group, plus superusers."""
        if self.is_superuser:
            return True
        cached = getattr(self, "_is_moderator", None)
        if cached is None:
            cached = self.groups.filter(name=MODERATORS_GROUP).exists()
            self._is_moderator = cached
        return cached


# Whoever a request comes from: a member, or the anonymous visitor (``request.user``).
RequestUser = User | AnonymousUser


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def live(self) -> ApiTokenQuerySet:
        """Tokens that still work (not expired)."""
        return self.filter(Q(expiry__isnull=True) | Q(expiry__gt=timezone.now()))


class ApiToken(AbstractAuthToken):
    """An API token (django-rest-knox's, stored as a hash): one per device or script, with a
    name the member chose, an expiry, and when it was last used. The secret is shown once,
    when the token is made; only its first characters (``token_key``) are kept in clear,
    to find the row."""

    # Annotated: knox is untyped, so django-stubs cannot tell these fields' types alone.
    name: models.CharField[str, str] = models.CharField(
        max_length=60, blank=True, help_text="Which device or script."
    )
    last_used: models.DateTimeField[datetime | None, datetime | None] = models.DateTimeField(
        null=True, blank=True
    )

    # knox's manager: create(user, expiry) returns (token row, secret).
    objects = AuthTokenManager.from_queryset(ApiTokenQuerySet)()

    class Meta:
        ordering = ["-created"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.name or 'API token'} of {self.user}"
