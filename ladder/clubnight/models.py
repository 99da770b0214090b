"""Club night: one evening's hall and rounds, shared by everyone running it.

The table kept its name (``ladder_clubnight``) when the model moved here from ``ladder.models``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from ladder.clubs.models import Ladder


class ClubNight(models.Model):
    """One evening of a ladder's club night: who is in the hall and the rounds proposed so far.

    Shared by everyone running it that evening (one per ladder and date), so a reload, a
    second organiser's phone and "everyone from the last club night" all see the same.
    ``present`` is a list of usernames; ``rounds`` a list of
    ``{"matches": [{"side_a": [...], "side_b": [...], "quality": q, "win_probability": p}],
    "byes": [...], "floor": f}`` in the order they were proposed (ladder/clubnight/matchmaking.py;
    rounds kept before the quality floor have no "floor"); a match whose score was entered
    on the round's screen has ``"result": {"games": [[a, b], ...], "match": id or None,
    "by": username}`` (``match`` None: a game with a guest, kept here and never rated; its
    score corrected since adds ``"corrected_by": username``).
    ``guests`` are tonight's players who are not members, ``[{"id": "guest:1", "name": ...}]``;
    their ids can be ``present`` and in rounds beside usernames (a username has no colon). A
    guest removed since stays, with ``"removed": true``, for the rounds that name them.
    ``created_by`` started the evening (its first round or guest): with the moderators,
    the only one who may start it over.
    """

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="club_nights")
    date = models.DateField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)
    present = models.JSONField(default=list, blank=True, help_text="Usernames.")
    rounds = models.JSONField(default=list, blank=True)
    guests = models.JSONField(
        default=list, blank=True, help_text='Players who are not members: {"id", "name"}.'
    )
    courts = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Courts in the hall: at most this many matches a round (blank: no limit).",
    )

    class Meta:
        db_table = "ladder_clubnight"  # its name from before the move
        ordering = ["-date"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "date"], name="clubnight_one_per_ladder_day")
        ]

    def __str__(self) -> str:
        return f"Club night of {self.ladder} on {self.date:%d %b %Y}"
