"""python manage.py recompute_ratings --ladder SLUG"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ladder.clubs.models import Ladder
from ratings.pipeline import recompute_ladder


class Command(BaseCommand):
    help = "Replay a ladder's rated matches from scratch; running it twice changes nothing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--ladder", required=True, help="slug of the ladder")

    def handle(self, *args: object, **options: Any) -> None:
        ladder = Ladder.objects.filter(slug=options["ladder"]).first()
        if ladder is None:
            raise CommandError(f"no ladder {options['ladder']!r}")
        count = recompute_ladder(ladder.pk)
        self.stdout.write(f"Recomputed {ladder.slug}: {count} rated matches replayed.")
