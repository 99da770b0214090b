"""Template filters for the match pages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from django import template

from ladder.matches.models import AuditEntry
from ladder.matches.visibility import ShownMatch, ShownPlayer

register = template.Library()


class Named(Protocol):
    """Anyone with a name to show: a ``User``, or a player as the viewer may see them
    (``access.Person``, ``visibility.ShownPlayer``)."""

    @property
    def name(self) -> str: ...


def _join(names: Sequence[str], word: str) -> str:
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {word} {names[-1]}"


@register.filter
def names_and(users: Iterable[Named]) -> str:
    """[Alice, Bob, Charlie] → "Alice, Bob and Charlie"."""
    return _join([u.name for u in users], "and")


@register.filter
def names_or(users: Iterable[Named]) -> str:
    """[Bob, Charlie] → "Bob or Charlie"."""
    return _join([u.name for u in users], "or")


@register.filter
def bar_width(probability: float | None) -> str:
    """0.634 → "w-63": a bar's width as a class of site.css (the CSP allows no inline style)."""
    if probability is None:
        return "w-0"
    return f"w-{min(100, max(0, round(probability * 100)))}"


@register.filter
def games_text(games: Iterable[Sequence[int]] | None) -> str:
    """[[21, 15], [19, 21]] → "21-15 19-21"."""
    return " ".join(f"{a}-{b}" for a, b in games or [])


def _snap_games(snap: object) -> str:
    return games_text(snap.get("games")) if isinstance(snap, dict) else ""


@register.filter
def audit_score(entry: AuditEntry) -> str:
    """The score an audit entry records: "21-15 21-18", or "21-15 21-18 → 21-15 18-21"
    when it changed, with a changed date and a dispute's proposal said too."""
    before, after = entry.before, entry.after
    old, new = _snap_games(before), _snap_games(after)
    text = f"{old} → {new}" if old and new and old != new else (new or old)
    if (
        isinstance(before, dict)
        and isinstance(after, dict)
        and before.get("played_on")
        and before.get("played_on") != after.get("played_on")
    ):
        text += f"; date {before['played_on']} → {after.get('played_on')}"
    if isinstance(after, dict) and after.get("proposed_games"):
        text += f"; proposed {games_text(after['proposed_games'])}"
    return text


def _side_words(players: Sequence[ShownPlayer]) -> str:
    """A side as its players read it: "you and Bob Baker" when the viewer is on it."""
    others = [p for p in players if not p.you]
    if len(others) == len(players):
        return names_and(players)
    return _join(["you", *(p.name for p in others)], "and")


@register.simple_tag
def result_line(shown: ShownMatch) -> str:
    """Who won, with the score from the winners' side, as the viewer sees the match: "Priya
    Patel beat Daniel Kim 21-15 21-18", "You and Bob Baker beat Charlie Chen and Dave Dunn
    …", "Priya Patel beat you …"."""
    match = shown.match
    side = match.winner_side
    if side is None:
        return ""
    winners, losers = (shown.side_a, shown.side_b) if side == "a" else (shown.side_b, shown.side_a)
    games = match.game_scores if side == "a" else [(y, x) for x, y in match.game_scores]
    text = f"{_side_words(winners)} beat {_side_words(losers)} {games_text(games)}"
    return text[:1].upper() + text[1:]
