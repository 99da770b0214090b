"""python manage.py import_matches FILE --ladder SLUG [--create-ladder] [--create-players]"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from tqdm import tqdm

from ladder.clubs.models import Ladder
from ratings.engine import EngineError, get_format
from ratings.engine.formats import FORMAT_NAMES, ScoringFormat
from ratings.imports import import_matches
from ratings.lab.importfmt import ImportFormatError, parse_matches


class Command(BaseCommand):
    help = "Import a match history (CSV import format) as confirmed matches, then rate them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--ladder", required=True, help="slug of the ladder")
        parser.add_argument(
            "--create-ladder",
            action="store_true",
            help="make the ladder with default settings and the file's team size",
        )
        parser.add_argument(
            "--create-players",
            action="store_true",
            help="make a member account (no usable password) for each unknown name",
        )
        parser.add_argument(
            "--format",
            choices=FORMAT_NAMES,
            default="badminton_21",
            help="scoring format of a ladder made by --create-ladder",
        )
        parser.add_argument(
            "--best-of",
            type=int,
            help="generic format: the longest match, odd; any whole best-of up to it counts",
        )
        parser.add_argument("--points-per-game", type=int, help="points per game (generic format)")

    def handle(self, *args: object, **options: Any) -> None:
        path: Path = options["file"]
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from None
        rows = sum(1 for line in text.splitlines()[1:] if line.strip())
        bar = tqdm(
            total=rows,
            desc="importing",
            unit="match",
            file=sys.stderr,
            disable=options["verbosity"] < 1,
        )
        try:
            # All or nothing, a ladder made by --create-ladder included.
            with transaction.atomic():
                ladder = Ladder.objects.filter(slug=options["ladder"]).first()
                if ladder is None:
                    if not options["create_ladder"]:
                        raise CommandError(
                            f"no ladder {options['ladder']!r} (use --create-ladder to make it)"
                        )
                    ladder = self._new_ladder(text, options)
                result = import_matches(
                    text, ladder, create_players=options["create_players"], progress=bar.update
                )
        except ImportFormatError as exc:
            raise CommandError(f"{path}: nothing imported.\n{exc}") from None
        finally:
            bar.close()
        self.stdout.write(
            f"Imported {result.matches} matches into {ladder.slug} "
            f"({result.players_created} players created, {result.members_added} members added); "
            f"rated {result.rated}."
        )

    def _new_ladder(self, text: str, options: dict[str, Any]) -> Ladder:
        ladder = Ladder(
            name=options["ladder"].replace("-", " ").title(),
            slug=options["ladder"],
            scoring_format=options["format"],
        )
        if options["best_of"]:
            ladder.best_of = options["best_of"]
        if options["points_per_game"]:
            ladder.points_per_game = options["points_per_game"]
        try:
            first = parse_matches(text.splitlines()[:2], _loose_format(options))
        except EngineError as exc:
            raise CommandError(f"nothing imported.\n{exc}") from None
        ladder.team_size = len(first[0].side_a) if first else 1
        try:
            ladder.full_clean()
        except Exception as exc:  # ValidationError: name the bad settings
            raise CommandError(f"cannot make ladder {ladder.slug}: {exc}") from None
        ladder.save()
        return ladder


def _loose_format(options: dict[str, Any]) -> ScoringFormat:

    return get_format(
        options["format"], best_of=options["best_of"], points_per_game=options["points_per_game"]
    )
