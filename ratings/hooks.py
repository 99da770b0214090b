"""The ratings app's answers to the hooks of the apps below it, registered in
RatingsConfig.ready(): ``ladder.clubs.hooks.RatingsHooks`` (where a newcomer starts; what a
saved ladder or membership means for the ratings) and ``ladder.matches.hooks.RatingsHooks``
(the report form's prediction and points at stake). Those apps never import this one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from accounts.models import User
from ladder.clubs.models import Ladder, Membership
from ratings import services, upkeep
from ratings.predictions import Prediction, predict_sides
from ratings.stakes import Stakes, stakes_for_lineup


class ClubsAnswers:
    """``ladder.clubs.hooks.RatingsHooks``."""

    def newcomer_rating(self, ladder: Ladder) -> float | None:
        """RATINGS.md §4 recent_newcomers (``services.newcomer_rating``)."""
        return services.newcomer_rating(ladder)

    def settings_changed(self, ladder: Ladder, before: Ladder) -> None:
        upkeep.settings_changed(ladder, before)

    def membership_changed(self, membership: Membership, restarted: bool) -> None:
        upkeep.membership_changed(membership, restarted)

    def membership_left(self, membership: Membership) -> None:
        upkeep.membership_left(membership)


class MatchesAnswers:
    """``ladder.matches.hooks.RatingsHooks``."""

    def predict(
        self, ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None
    ) -> Prediction | None:
        """The §6 prediction of a lineup (``predictions.predict_sides``)."""
        return predict_sides(ladder, side_a, side_b, on)

    def stakes(
        self, ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None
    ) -> Stakes | None:
        """The §6 points at stake of a lineup (``stakes.stakes_for_lineup``)."""
        return stakes_for_lineup(ladder, side_a, side_b, on)
