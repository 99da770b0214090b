from django.apps import AppConfig
from django.db.models.signals import post_migrate


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"

    def ready(self) -> None:
        """Everything the ratings app answers and hears from the apps below it: the hooks of
        the clubs and matches apps (ratings/hooks.py), and three events (ratings/upkeep.py):
        a match changed what counts, a member's name or active state changed, ``migrate``."""
        from accounts.signals import account_changed
        from ladder.clubs import hooks as club_hooks
        from ladder.matches import hooks as match_hooks
        from ladder.matches.signals import ratings_due
        from ratings import upkeep
        from ratings.hooks import ClubsAnswers, MatchesAnswers

        club_hooks.register(ClubsAnswers())
        match_hooks.register_ratings(MatchesAnswers())
        ratings_due.connect(upkeep.rate_when_due, dispatch_uid="ratings.rate_when_due")
        account_changed.connect(upkeep.account_changed, dispatch_uid="ratings.account_changed")
        post_migrate.connect(upkeep.replay_after_migrate, sender=self)
