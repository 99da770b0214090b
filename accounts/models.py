"""The club's members: Django's user with a display name."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q

MODERATORS_GROUP = "Moderators"


def name_contains(text: str, path: str = "") -> Q:
    """Users (at ``path``: "user__" from a membership) whose username or display name
    contains ``text``, ignoring case and a leading "@"; no condition for blank text.
    The trigram indexes of migration 0002 serve it."""
    text = text.strip().lstrip("@")
    if not text:
        return Q()
    return Q(**{f"{path}username__icontains": text}) | Q(**{f"{path}display_name__icontains": text})


class User(AbstractUser):
    email = models.EmailField("email address", unique=True)
    display_name = models.CharField(
        max_length=60, blank=True, help_text="Shown on the ladder instead of your username."
    )

    class Meta:
        ordering = ["username"]

    def __str__(self) -> str:
        return self.name

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
