"""`manage.py seed_demo [--if-empty]`: a demo club to try the site with."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test.utils import override_settings

from ladder.clubs.models import Ladder
from ladder.demo import (
    DEMO_PASSWORD,
    read_old_news,
    seed_club,
    seed_matches,
    seed_play,
    seed_seasons,
)
from ladder.matches.models import Match


class Command(BaseCommand):
    help = (
        "Create a demo club: ladders Singles, Doubles and 5v5 League, a moderator, a "
        "superuser and 20 members, and twelve weeks of club nights on each ladder (most "
        "matches confirmed, the last night's pending, one disputed), split into an archived "
        "season and the current one, with a member away. Idempotent; existing data is left "
        "alone."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing when any ladder exists (so `make run` can call it every time).",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="Run even with DEBUG off. The demo accounts share a published password.",
        )

    def handle(
        self, *args: object, if_empty: bool = False, force: bool = False, **options: Any
    ) -> None:
        if if_empty and Ladder.objects.exists():
            self.stdout.write("Ladders exist already; no demo data added.")
            return
        if not settings.DEBUG and not force:
            raise CommandError(
                "seed_demo creates accounts with a published password; with DEBUG off it "
                "needs --force."
            )
        # The demo's reports, confirmations and challenges tell their players as the site
        # does; their e-mails (about 25, printed before the address `make run` serves when
        # the console backend is on) go nowhere: no one made them.
        with override_settings(EMAIL_BACKEND="django.core.mail.backends.dummy.EmailBackend"):
            club = seed_club()
            season = seed_matches(club)
            seed_seasons(club)
            read_old_news(club)  # rated in-process by now, unless a worker does it
            seed_play(club)
        if not club.created:
            self.stdout.write("The demo club is complete already; nothing added.")
            return
        self.stdout.write(
            self.style.SUCCESS(f"Demo club ready ({len(club.created)} things added).")
        )
        self.stdout.write(
            "Ladders: "
            + ", ".join(
                f"{ladder.name} (/ladders/{slug}/)" for slug, ladder in club.ladders.items()
            )
        )
        for slug in season:  # what the ladder holds now: the season and the played challenge
            states = Counter(
                Match.objects.filter(ladder=club.ladders[slug]).values_list("state", flat=True)
            )
            played = ", ".join(f"{count} {state}" for state, count in sorted(states.items()))
            self.stdout.write(f"Season on {club.ladders[slug].name}: {played}.")
        self.stdout.write(
            f"Log in with password {DEMO_PASSWORD!r} as:\n"
            "  mod    - moderator (ladder admin at /admin/)\n"
            "  admin  - superuser\n"
            f"  {', '.join(sorted(club.members))} - members"
        )
