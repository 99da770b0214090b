"""The club's members: Django's user with a display name."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models

MODERATORS_GROUP = "Moderators"


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
