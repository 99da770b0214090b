"""The shared shape of the export commands: --ladder SLUG [--output FILE]."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ladder.clubs.models import Ladder


class ExportCommand(BaseCommand):
    export: Callable[[Ladder], str]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--ladder", required=True, help="slug of the ladder")
        parser.add_argument("--output", type=Path, help="file to write (default: standard output)")

    def handle(self, *args: object, **options: Any) -> None:
        ladder = Ladder.objects.filter(slug=options["ladder"]).first()
        if ladder is None:
            raise CommandError(f"no ladder {options['ladder']!r}")
        text = type(self).export(ladder)
        if options["output"]:
            options["output"].write_text(text, encoding="utf-8")
        else:
            self.stdout.write(text, ending="")
