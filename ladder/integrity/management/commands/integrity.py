"""python manage.py integrity LADDER [--json] [--refresh]"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ladder.clubs.models import Ladder
from ladder.integrity.flags import current_flags


class Command(BaseCommand):
    help = (
        "Print a ladder's integrity flags (win trading, farming, closed pools, sandbagging, "
        "report patterns) with their reasons, as moderators see them on the ladder's "
        "integrity page; for a club that imports its history."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ladder", help="slug of the ladder")
        parser.add_argument("--json", action="store_true", help="one JSON object, as the API")
        parser.add_argument(
            "--refresh", action="store_true", help="run the detectors even if nothing changed"
        )

    def handle(self, *args: object, **options: Any) -> None:
        ladder = Ladder.objects.filter(slug=options["ladder"]).first()
        if ladder is None:
            raise CommandError(f"no ladder {options['ladder']!r}")
        flags = current_flags(ladder, force=options["refresh"])
        if options["json"]:
            shown = [
                {
                    "id": f.pk,
                    "kind": f.kind,
                    "players": f.usernames,  # type: ignore[attr-defined]
                    "matches": f.matches,
                    "reason": f.reason,
                    "state": f.state,
                }
                for f in flags
            ]
            self.stdout.write(json.dumps({"flags": shown}, indent=2))
            return
        if not flags:
            self.stdout.write(f"{ladder.name}: no flags.")
            return
        self.stdout.write(f"{ladder.name}: {len(flags)} flag(s)")
        for f in flags:
            gone = "" if f.current else ", no longer found"
            self.stdout.write(
                f"\n#{f.pk} {f.get_kind_display()} [{f.state}{gone}]: {', '.join(f.usernames)}"  # type: ignore[attr-defined]
            )
            self.stdout.write(f"  {f.reason}")
            self.stdout.write(f"  matches: {' '.join(map(str, f.matches))}")
            if f.note:
                self.stdout.write(f"  note: {f.note}")
