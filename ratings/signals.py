"""Keep ratings equal to a replay when a ladder's rating settings change (admin, `tune --apply`)."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from ladder.models import Ladder


@receiver(pre_save, sender=Ladder)
def remember_settings(sender: type[Ladder], instance: Ladder, **kwargs: Any) -> None:
    old = Ladder.objects.filter(pk=instance.pk).first() if instance.pk else None
    instance._settings_before = (old.params(), old.scoring()) if old else None  # type: ignore[attr-defined]


@receiver(post_save, sender=Ladder)
def replay_on_new_settings(
    sender: type[Ladder], instance: Ladder, created: bool, **kwargs: Any
) -> None:
    before = getattr(instance, "_settings_before", None)
    if before is not None and before != (instance.params(), instance.scoring()):
        from ratings.services import replay_later

        replay_later(instance)
