from django.apps import AppConfig


class PlayConfig(AppConfig):
    name = "ladder.play"
    label = "play"
    verbose_name = "Challenges, open games and calendars"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """What the play app answers and hears from the apps below it: the matches app's
        ``PlayHooks`` (ladder/play/hooks.py), a match's change of state and an account's."""
        from accounts.signals import account_changed
        from ladder.matches import hooks as match_hooks
        from ladder.matches.signals import match_state_changed
        from ladder.play import receivers
        from ladder.play.hooks import PlayAnswers

        match_hooks.register_play(PlayAnswers())
        match_state_changed.connect(receivers.follow_match, dispatch_uid="play.follow_match")
        account_changed.connect(receivers.account_closed, dispatch_uid="play.account_closed")
