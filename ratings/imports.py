"""Importing and exporting match histories in the import format (RULES.md "Import format").

An import is all or nothing: every row is checked (the engine's parser, then the players
against the site) before anything is written, and every problem is reported with its line.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import User
from ladder.clubs.models import Ladder, Membership
from ladder.matches.models import Game, Match, MatchPlayer
from ladder.matches.validation import EARLIEST_MATCH, MAX_POINTS
from ratings.bulk import insert_rows, reserve_ids
from ratings.engine import MatchResult
from ratings.lab.importfmt import (
    PLAYER_SEPARATOR,
    ImportFormatError,
    Limits,
    parse_matches,
    spreadsheet_safe,
    write_matches,
)
from ratings.models import PlayerRating, RatingChange
from ratings.pipeline import load_matches, rate_ladder

Progress = Callable[[int], None]
INSERT_BATCH = 2000


DISPLAY_NAME_LENGTH = User._meta.get_field("display_name").max_length or 60
USERNAME_LENGTH = User._meta.get_field("username").max_length or 150


def limits() -> Limits:
    """What the site stores: points as report_match allows them, dates from 1900 to today,
    names no longer than a username (a name is looked up as one)."""
    return Limits(
        max_name_length=USERNAME_LENGTH,
        max_points=MAX_POINTS,
        earliest=EARLIEST_MATCH,
        latest=timezone.localdate(),
    )


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
    parsed = parse_matches(text, ladder.scoring(), team_size=ladder.team_size, limits=limits())
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
    # A new player's name becomes their display name: one too long for it is refused, never
    # cut (two long names that share a beginning would become one player).
    too_long = {n for n in unknown if len(n) > DISPLAY_NAME_LENGTH}
    if too_long:
        raise ImportFormatError(
            [
                (
                    m.line or 0,
                    f"player name {n[:20]!r}… has {len(n)} characters; a new player's name "
                    f"has at most {DISPLAY_NAME_LENGTH}",
                )
                for m in parsed
                for n in dict.fromkeys((*m.side_a, *m.side_b))
                if n in too_long
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
        user = User(username=username, display_name=name, email=f"{username}@imported.invalid")
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
    # Not through ladder.clubs.services.save_membership, one by one: the rating run that
    # follows lists anyone back on the ladder again, as every player of the matches it rates.
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
    ladder: Ladder, parsed: Sequence[MatchResult], users: dict[str, User], progress: Progress | None
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
    """The ladder's rated matches in the import format, players by their names.

    Everyone who played is named, members or not any more (an admin may have removed one).
    """

    loaded = load_matches(ladder)
    names = export_names({int(p) for m in loaded for p in (*m.side_a, *m.side_b)})
    matches = [
        MatchResult(
            played_on=m.played_on,
            side_a=tuple(names[int(p)] for p in m.side_a),
            side_b=tuple(names[int(p)] for p in m.side_b),
            games=m.games,
            stats={names[int(p)]: s for p, s in m.stats.items()} if m.stats else None,
            id=m.id,
        )
        for m in loaded
    ]
    return write_matches(matches)


def export_ratings(ladder: Ladder) -> str:
    """`player,rating,rd,volatility,matches`: each player's state after their last match."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("player", "rating", "rd", "volatility", "matches"))
    ratings = list(PlayerRating.objects.filter(ladder=ladder))
    names = export_names({r.user_id for r in ratings})
    rows = [
        (
            spreadsheet_safe(names[r.user_id]),
            repr(r.rating),
            repr(r.rd),
            repr(r.volatility),
            r.matches,
        )
        for r in ratings
    ]
    writer.writerows(sorted(rows))
    return out.getvalue()


def export_names(user_ids: Iterable[int]) -> dict[int, str]:
    """Each user's name in an export: the display name, as an import names players, unless
    the import (``player_lookup``) could not carry it back to the same person: a `;`, spaces
    around it, a display name someone else has too or that is someone's username. Then the
    username, which it always can."""
    users = list(
        User.objects.filter(pk__in=set(user_ids)).values_list("pk", "username", "display_name")
    )
    wanted = {display for _, _, display in users if display}
    taken = set(User.objects.filter(username__in=wanted).values_list("username", flat=True))
    shared = Counter(
        User.objects.filter(display_name__in=wanted).values_list("display_name", flat=True)
    )
    names = {}
    for pk, username, display in users:
        usable = (
            display
            and display == display.strip()
            and PLAYER_SEPARATOR not in display
            and shared[display] == 1
            and (display == username or display not in taken)
        )
        names[pk] = display if usable else username
    return names
