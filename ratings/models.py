"""Ratings as the site stores them: each player's current state per ladder, and one
change row per match and player. Both are outputs of the engine's replay (ratings.pipeline);
nothing else writes them."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class PlayerRating(models.Model):
    """A player's state on a ladder right after their last rated match (not inflated to today)."""

    ladder = models.ForeignKey("ladder.Ladder", on_delete=models.CASCADE, related_name="ratings")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    rating = models.FloatField()
    rd = models.FloatField("RD")
    volatility = models.FloatField()
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    last_played = models.DateField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ladder", "user"], name="one_rating_per_ladder_player")
        ]
        indexes = [models.Index(fields=["ladder", "-rating"], name="rating_ladder_rank")]

    def __str__(self) -> str:
        return f"{self.user} on {self.ladder}: {self.rating / 1000:.2f}"


class RatingChange(models.Model):
    """What one rated match did to one player, with everything needed to explain it."""

    match = models.ForeignKey(
        "ladder.Match", on_delete=models.CASCADE, related_name="rating_changes"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    # Copied from the match so histories sort and filter without a join.
    ladder = models.ForeignKey("ladder.Ladder", on_delete=models.CASCADE, related_name="+")
    played_on = models.DateField()
    side = models.CharField(max_length=1, choices=[("a", "A"), ("b", "B")])
    rating_before = models.FloatField()
    rd_before = models.FloatField()
    volatility_before = models.FloatField()
    rating_after = models.FloatField()
    rd_after = models.FloatField()
    volatility_after = models.FloatField()
    expected = models.FloatField(help_text="Expected score before the match (0–1).")
    outcome = models.FloatField(help_text="Score from the result and margin (0–1).")
    repetition_weight = models.FloatField()
    diversity_ratio = models.FloatField()
    gate_open = models.BooleanField(help_text="Whether RD was allowed to shrink.")
    performance_weight = models.FloatField(default=1.0)
    change = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "user"], name="one_change_per_match_player")
        ]
        indexes = [
            models.Index(fields=["ladder", "played_on", "match"], name="change_ladder_order"),
            models.Index(fields=["user", "ladder", "played_on"], name="change_player_history"),
        ]
        ordering = ["played_on", "match_id"]

    def __str__(self) -> str:
        return f"{self.user} {self.change:+.0f} in match {self.match_id}"

    @property
    def won(self) -> bool:
        return self.outcome > 0.5
