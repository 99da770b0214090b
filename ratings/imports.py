"""Importing and exporting match histories in the import format (PRODUCT.md "Import format").

An import is all or nothing: every row is checked (the engine's parser, then the players
against the site) before anything is written, and every problem is reported with its line.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import User
from ladder.models import Game, Ladder, Match, MatchPlayer, Membership
from ratings.bulk import insert_rows, reserve_ids
from ratings.engine import Match as EngineMatch
from ratings.engine import parse_matches, write_matches
from ratings.engine.importfmt import ImportFormatError
from ratings.models import PlayerRating, RatingChange
from ratings.pipeline import rate_ladder

Progress = Callable[[int], None]
INSERT_BATCH = 2000


@dataclass(frozen=True)
class ImportResult:
    matches: int
    players_created: int
    members_added: int
    rated: int


def player_lookup(names: Iterable[str]) -> dict[str, User]:
    """Users for the names of a file: a name is a username, or else a unique display name."""
    wanted = set(names)
    found = {u.username: u for u in User.objects.filter(username__in=wanted)}
    by_display: dict[str, list[User]] = {}
    for user in User.objects.filter(display_name__in=wanted - set(found)):
        by_display.setdefault(user.display_name, []).append(user)
    for name, users in by_display.items():
        if len(users) == 1:
            found[name] = users[0]
    return found


def import_matches(
    text: str,
    ladder: Ladder,
    *,
    create_players: bool = False,
    progress: Progress | None = None,
) -> ImportResult:
    """Import a history as confirmed matches of `ladder`, then rate them.

    Raises ImportFormatError (every bad line) and writes nothing unless every row is valid.
    """
    parsed = parse_matches(text, ladder.scoring(), team_size=ladder.team_size)
    names = sorted({n for m in parsed for n in (*m.side_a, *m.side_b)})
    users = player_lookup(names)
    unknown = {n for n in names if n not in users}
    if unknown and not create_players:
        raise ImportFormatError(
            [
                (m.line or 0, f"{n!r} is not a member of the site (use --create-players)")
                for m in parsed
                for n in (*m.side_a, *m.side_b)
                if n in unknown
            ]
        )
    with transaction.atomic():
        created = _create_players(sorted(unknown), users)
        added = _add_members(ladder, users.values())
        _create_matches(ladder, parsed, users, progress)
    rated = rate_ladder(ladder.pk).rated
    _refresh_statistics()
    return ImportResult(len(parsed), created, added, rated)


def _refresh_statistics() -> None:
    """After a bulk load, let PostgreSQL's planner know the tables' new sizes now rather than
    whenever autovacuum gets to them (until then it plans for empty tables)."""
    if connection.vendor != "postgresql":
        return
    tables = [
        model._meta.db_table
        for model in (Match, MatchPlayer, Game, Membership, User, PlayerRating, RatingChange)
    ]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(connection.ops.quote_name(t) for t in tables))


def _create_players(names: Sequence[str], users: dict[str, User]) -> int:
    """Member accounts with no usable password; the file's name becomes the display name."""
    taken = set(User.objects.values_list("username", flat=True))
    new = []
    for name in names:
        base = (slugify(name).replace("-", "_") or "player")[:140]
        username, n = base, 1
        while username in taken:
            n += 1
            username = f"{base}_{n}"
        taken.add(username)
        user = User(username=username, display_name=name[:60], email=f"{username}@imported.invalid")
        user.set_unusable_password()
        new.append(user)
    User.objects.bulk_create(new, batch_size=INSERT_BATCH)
    # Ids are not returned everywhere (older SQLite); read them back by the unique username.
    ids = dict(
        User.objects.filter(username__in=[u.username for u in new]).values_list("username", "pk")
    )
    for name, user in zip(names, new, strict=True):
        user.pk = ids[user.username]
        users[name] = user
    return len(names)


def _add_members(ladder: Ladder, users: Iterable[User]) -> int:
    members = set(Membership.objects.filter(ladder=ladder).values_list("user_id", flat=True))
    new = [
        Membership(
            ladder=ladder,
            user=u,
            initial_rating=ladder.initial_rating,
            initial_rd=ladder.initial_rd,
        )
        for u in users
        if u.pk not in members
    ]
    Membership.objects.bulk_create(new, batch_size=INSERT_BATCH)
    # bulk_create sends no post_save (ratings.signals): the rating run that follows lists
    # anyone back on the ladder again, as every player of the matches it rates.
    return len(new)


MATCH_FIELDS = (
    "ladder",
    "played_on",
    "reporter",
    "state",
    "created_at",
    "updated_at",
    "decided_at",
    "needs_rating",
)


def _create_matches(
    ladder: Ladder, parsed: Sequence[EngineMatch], users: dict[str, User], progress: Progress | None
) -> None:
    """Insert in the parsed order, so ids keep the file's order within a day."""
    now = timezone.now()
    for start in range(0, len(parsed), INSERT_BATCH):
        chunk = parsed[start : start + INSERT_BATCH]
        values = [
            (ladder.pk, m.played_on, users[m.side_a[0]].pk, "confirmed", now, now, now, True)
            for m in chunk
        ]
        ids = reserve_ids(Match, len(chunk))
        if ids is None:  # no sequence to draw from: let the ORM return the new ids
            made = Match.objects.bulk_create(
                Match(
                    **dict(
                        zip(
                            ("ladder_id", "played_on", "reporter_id", *MATCH_FIELDS[3:]),
                            v,
                            strict=True,
                        )
                    )
                )
                for v in values
            )
            ids = [m.pk for m in made]
        else:
            insert_rows(
                Match, ("id", *MATCH_FIELDS), ((pk, *v) for pk, v in zip(ids, values, strict=True))
            )
        insert_rows(
            MatchPlayer,
            ("match", "user", "side", "position", "stats"),
            (
                (pk, users[name].pk, side, position, (m.stats or {}).get(name))
                for pk, m in zip(ids, chunk, strict=True)
                for side, names in (("a", m.side_a), ("b", m.side_b))
                for position, name in enumerate(names)
            ),
        )
        insert_rows(
            Game,
            ("match", "number", "a_points", "b_points"),
            (
                (pk, number, a, b)
                for pk, m in zip(ids, chunk, strict=True)
                for number, (a, b) in enumerate(m.games, 1)
            ),
        )
        if progress:
            progress(len(chunk))


def export_matches(ladder: Ladder) -> str:
    """The ladder's rated matches in the import format, players by their names."""
    from ratings.pipeline import load_matches

    names = _names(ladder)
    matches = [
        EngineMatch(
            played_on=m.played_on,
            side_a=tuple(names[p] for p in m.side_a),
            side_b=tuple(names[p] for p in m.side_b),
            games=m.games,
            stats={names[p]: s for p, s in m.stats.items()} if m.stats else None,
            id=m.id,
        )
        for m in load_matches(ladder)
    ]
    return write_matches(matches)


def export_ratings(ladder: Ladder) -> str:
    """`player,rating,rd,volatility,matches`: each player's state after their last match."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("player", "rating", "rd", "volatility", "matches"))
    rows = [
        (r.user.name, repr(r.rating), repr(r.rd), repr(r.volatility), r.matches)
        for r in PlayerRating.objects.filter(ladder=ladder).select_related("user")
    ]
    writer.writerows(sorted(rows))
    return out.getvalue()


def _names(ladder: Ladder) -> dict[str, str]:
    return {
        str(pk): display or username
        for pk, username, display in Membership.objects.filter(ladder=ladder).values_list(
            "user_id", "user__username", "user__display_name"
        )
    }
