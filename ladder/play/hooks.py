"""The play app's answers to the matches app's hooks (ladder/matches/hooks.py ``PlayHooks``),
registered in PlayConfig.ready(): a report that names its challenge or open game is linked to
it here, or refused; the report form's prefill asks for the lineup that was arranged. The
matches app never imports this app."""

from __future__ import annotations

from collections.abc import Mapping

from accounts.models import User
from ladder.clubs.models import Ladder
from ladder.matches.errors import MatchValidationError
from ladder.matches.hooks import ScheduledLineup
from ladder.matches.models import Match
from ladder.play import services
from ladder.play.models import Challenge, OpenGame


class PlayAnswers:
    """``ladder.matches.hooks.PlayHooks``, answered from the play app's rules."""

    def link_reported(self, match: Match, links: Mapping[str, int]) -> None:
        """Link the report (``services.link_reported_match``, which refuses what is not
        the reporter's, not scheduled, or reported already); a game that has not started
        yet cannot have been played."""
        services.link_reported_match(match, dict(links))
        for model in (Challenge, OpenGame):
            item = model.objects.filter(match=match).only("starts_at").first()
            if item is not None and not item.has_started:
                key = "challenge" if model is Challenge else "open_game"
                raise MatchValidationError(
                    {key: ["It has not started yet: report its result once it has been played."]}
                )

    def scheduled_lineup(
        self, ladder: Ladder, user: User, links: Mapping[str, int]
    ) -> ScheduledLineup | None:
        lineup = services.scheduled_lineup(ladder, user, dict(links))
        if lineup is None:
            return None
        return ScheduledLineup(
            side_a=list(lineup["side_a"]),
            side_b=list(lineup["side_b"]),
            played_on=lineup["played_on"],
        )
