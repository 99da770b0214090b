"""Template filters for the match pages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django import template

from accounts.models import RequestUser, User
from ladder.matches.models import AuditEntry, Match

register = template.Library()


def _join(names: Sequence[str], word: str) -> str:
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {word} {names[-1]}"


@register.filter
def names_and(users: Iterable[User]) -> str:
    """[Alice, Bob, Charlie] → "Alice, Bob and Charlie"."""
    return _join([u.name for u in users], "and")


@register.filter
def names_or(users: Iterable[User]) -> str:
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


def _side_words(players: Sequence[User], viewer: RequestUser | None) -> str:
    """A side as its players read it: "you and Bob Baker" when the viewer is on it."""
    viewer_id = getattr(viewer, "pk", None) if getattr(viewer, "is_authenticated", False) else None
    others = [u for u in players if u.pk != viewer_id]
    if len(others) == len(players):
        return names_and(players)
    return _join(["you", *(u.name for u in others)], "and")


@register.simple_tag
def result_line(match: Match, viewer: RequestUser | None = None) -> str:
    """Who won, with the score from the winners' side: "Priya Patel beat Daniel Kim 21-15
    21-18", "You and Bob Baker beat Charlie Chen and Dave Dunn …", "Priya Patel beat you …"."""
    side = match.winner_side
    if side is None:
        return ""
    a, b = match.side_a_players, match.side_b_players
    winners, losers = (a, b) if side == "a" else (b, a)
    games = match.game_scores if side == "a" else [(y, x) for x, y in match.game_scores]
    text = f"{_side_words(winners, viewer)} beat {_side_words(losers, viewer)} {games_text(games)}"
    return text[:1].upper() + text[1:]
