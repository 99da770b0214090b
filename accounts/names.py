"""Names people read: two members' shown names (the display name, else the username) may
not be confusable (issue 22: a member renamed themself "Daniel Kim").

Two names are confusable when their keys are equal: the key ignores case, accents, runs of
spaces, and the look-alike characters of Unicode's confusables list (UTS #39, as the
``confusable-homoglyphs`` package ships it: Cyrillic "а" for Latin "a", "0" for "O", "rn"
for "m", mathematical letters, ...). With case ignored, "I" and "l" are one letter.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from importlib import resources

# Characters that read alike once case is ignored: a capital I is a small l on most screens.
_CASELESS_ALIKE = str.maketrans({"l": "i"})


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype (UTS #39: the character it is mistaken for).
    The package's table lists, for a character mistaken for another, that one alone; for a
    prototype, everything mistaken for it. A pair that names only each other goes to the
    plainer one (ASCII first)."""
    table = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text()
    )

    def glyph(entry: dict[str, str]) -> str:
        return entry["c"].replace("\u200e", "")  # the table's left-to-right marks

    def plain(text: str) -> tuple[bool, int, str]:
        return (not text.isascii(), len(text), text)

    prototypes: dict[str, str] = {}
    for char, alike in table.items():
        if len(char) != 1 or len(alike) != 1:
            continue
        prototype = glyph(alike[0])
        back = [glyph(entry) for entry in table.get(prototype, [])]
        if back == [char] and plain(char) < plain(prototype):
            continue  # a pair: ``char`` is the plainer one, the other maps to it
        prototypes[char] = prototype
    return prototypes


def _skeleton(text: str) -> str:
    prototypes = _prototypes()
    return "".join(prototypes.get(char, char) for char in text)


def _without_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def name_key(name: str) -> str:
    """What a name looks like, for comparing: equal keys, confusable names."""
    text = _skeleton(_without_accents(name))
    text = _without_accents(_skeleton(text.casefold())).translate(_CASELESS_ALIKE)
    return " ".join(text.split())


def confusable_with(name: str, others: list[tuple[str, str]]) -> bool:
    """Whether ``name`` reads like any of ``others``' shown names ((username, display name)
    pairs: the display name, else the username)."""
    key = name_key(name)
    return any(name_key(display or username) == key for username, display in others)
