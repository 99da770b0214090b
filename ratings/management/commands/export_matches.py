"""python manage.py export_matches --ladder SLUG [--output FILE]"""

from __future__ import annotations

from ratings.imports import export_matches
from ratings.management.commands._export import ExportCommand


class Command(ExportCommand):
    help = "Write a ladder's rated matches in the import format."
    export = staticmethod(export_matches)
