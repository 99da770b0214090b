"""`manage.py generate_season [--players 18] [--weeks 12] [--spread 1.1] [--output FILE] ...`:
a club season of known true levels in the import format (`python -m ratings.engine season`)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ratings.engine.types import EngineError
from ratings.lab.cli import add_season_arguments, format_from_args, run_season


class Command(BaseCommand):
    help = (
        "Generate a weekly club season (players of known true level, paired near their level, "
        "played rally by rally) as a CSV that import_matches reads."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_season_arguments(parser)

    def handle(self, *args: object, **options: Any) -> None:
        namespace = argparse.Namespace(**options)
        try:
            format_from_args(namespace)
            run_season(namespace, cast(TextIO, self.stdout))
        except EngineError as exc:
            raise CommandError(str(exc)) from exc
        except OSError as exc:
            raise CommandError(f"cannot write {exc.filename}: {exc.strerror}") from exc
