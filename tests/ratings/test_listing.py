"""A rating row's listing (who sees it) follows its player's membership: joined, hidden,
left, back again; through rating runs, replays, imports and the migration that filled it."""

from __future__ import annotations

import threading
import time
from datetime import date

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection, connections
from django.db.migrations.executor import MigrationExecutor

from ladder.clubs.access import HIDDEN, LEFT, PUBLIC, Viewer, listing_of
from ladder.clubs.forms import ProfileForm
from ladder.clubs.models import Membership
from ladder.clubs.services import remove_membership
from ratings import pipeline
from ratings.imports import import_matches
from ratings.models import PlayerRating
from ratings.pipeline import rate_ladder, recompute_ladder
from tests.factories import MembershipFactory, hide
from tests.ratings.test_reliability import require_postgres

DAY = date(2024, 5, 1)


def listings(ladder) -> dict[str, str]:  # type: ignore[no-untyped-def]
    rows = PlayerRating.objects.filter(ladder=ladder).select_related("user")
    return {row.user.username: row.listing for row in rows}


def seen_by(ladder, viewer) -> set[str]:  # type: ignore[no-untyped-def]
    rows = PlayerRating.objects.filter(ladder=ladder).listed_for(Viewer.of(viewer))
    return set(rows.values_list("user__username", flat=True))


def test_the_listing_follows_the_membership(club, make_match, mod) -> None:  # type: ignore[no-untyped-def]
    ladder, (p0, p1, p2, *_) = club
    make_match(ladder, [p0], [p1], [(21, 15), (21, 18)], DAY)
    make_match(ladder, [p1], [p2], [(21, 19), (21, 17)], DAY)
    rate_ladder(ladder.pk)
    assert listings(ladder) == {"p0": PUBLIC, "p1": PUBLIC, "p2": PUBLIC}

    hide(user=p1)
    assert listings(ladder)["p1"] == HIDDEN
    assert seen_by(ladder, AnonymousUser()) == {"p0", "p2"}
    assert seen_by(ladder, p0) == {"p0", "p2"}
    assert seen_by(ladder, p1) == {"p0", "p1", "p2"}  # their own hidden row
    assert seen_by(ladder, mod) == {"p0", "p1", "p2"}

    remove_membership(Membership.objects.get(ladder=ladder, user=p2))
    assert listings(ladder)["p2"] == LEFT
    assert seen_by(ladder, mod) == {"p0", "p1"}  # no one sees a player who left
    assert seen_by(ladder, p2) == {"p0"}

    # A replay from scratch writes the rows anew, listed as the memberships are now.
    recompute_ladder(ladder.pk)
    assert listings(ladder) == {"p0": PUBLIC, "p1": HIDDEN, "p2": LEFT}

    MembershipFactory(ladder=ladder, user=p2)  # back on the ladder
    assert listings(ladder)["p2"] == PUBLIC


def test_the_profile_form_hides_and_shows_the_rows(club, make_match) -> None:  # type: ignore[no-untyped-def]
    ladder, (p0, p1, *_) = club
    make_match(ladder, [p0], [p1], [(21, 15), (21, 18)], DAY)
    rate_ladder(ladder.pk)
    form = ProfileForm({"display_name": "Pia", "public_memberships": []}, instance=p0)
    assert form.is_valid(), form.errors
    form.save()
    assert listings(ladder)["p0"] == HIDDEN
    form = ProfileForm(
        {"display_name": "Pia", "public_memberships": [Membership.objects.get(user=p0).pk]},
        instance=p0,
    )
    assert form.is_valid(), form.errors
    form.save()
    assert listings(ladder)["p0"] == PUBLIC


def test_a_new_match_lists_its_players_as_their_memberships_say(club, make_match) -> None:  # type: ignore[no-untyped-def]
    ladder, (p0, p1, p2, *_) = club
    hide(user=p2)
    make_match(ladder, [p0], [p2], [(21, 15), (21, 18)], DAY)
    rate_ladder(ladder.pk)
    assert listings(ladder) == {"p0": PUBLIC, "p2": HIDDEN}


def test_an_import_lists_a_player_back_on_the_ladder(club, make_match) -> None:  # type: ignore[no-untyped-def]
    ladder, (p0, p1, *_) = club
    make_match(ladder, [p0], [p1], [(21, 15), (21, 18)], DAY)
    rate_ladder(ladder.pk)
    remove_membership(Membership.objects.get(ladder=ladder, user=p1))
    assert listings(ladder)["p1"] == LEFT
    # The import makes p1 a member again (in bulk, telling no one) and rates their new match.
    import_matches("played_on,side_a,side_b,score,stats\n2024-05-02,p0,p1,21-10 21-12,\n", ladder)
    assert Membership.objects.filter(ladder=ladder, user=p1).exists()
    assert listings(ladder) == {"p0": PUBLIC, "p1": PUBLIC}


def test_the_migration_copies_the_memberships(club, make_match) -> None:  # type: ignore[no-untyped-def]
    from importlib import import_module

    copy_memberships = import_module(
        "ratings.migrations.0002_playerrating_listing"
    ).copy_memberships
    ladder, (p0, p1, p2, *_) = club
    make_match(ladder, [p0], [p1], [(21, 15), (21, 18)], DAY)
    make_match(ladder, [p1], [p2], [(21, 19), (21, 17)], DAY)
    rate_ladder(ladder.pk)
    hide(user=p1)
    Membership.objects.get(ladder=ladder, user=p2).delete()
    PlayerRating.objects.update(listing=PUBLIC)  # the column as AddField leaves it
    # The migration's own view of the models (Membership was the ladder app's then).
    state = MigrationExecutor(connection).loader.project_state(
        ("ratings", "0002_playerrating_listing")
    )
    copy_memberships(state.apps, None)
    assert listings(ladder) == {"p0": PUBLIC, "p1": HIDDEN, "p2": LEFT}


@pytest.mark.django_db(transaction=True)
def test_hiding_during_a_rating_run_that_read_the_membership_before_stays_hidden(  # type: ignore[no-untyped-def]
    club, make_match, monkeypatch
) -> None:
    """The run reads p1's membership (public), p1 hides themselves, then the run writes
    p1's row: the row must end hidden. The hiding waits for the run's ladder lock, then
    lists the row again; listed before the lock, the run's stale "public" would win."""
    require_postgres()
    ladder, (p0, p1, *_) = club
    make_match(ladder, [p0], [p1], [(21, 15), (21, 18)], DAY)
    rate_ladder(ladder.pk)
    make_match(ladder, [p0], [p1], [(21, 12), (21, 10)], DAY)
    read, go = threading.Event(), threading.Event()

    def paused_listing_of(membership):  # type: ignore[no-untyped-def]
        read.set()  # the run has read the memberships, holding the ladder lock
        go.wait(10)
        return listing_of(membership)

    monkeypatch.setattr(pipeline, "listing_of", paused_listing_of)
    errors: list[BaseException] = []

    def in_thread(work) -> None:  # type: ignore[no-untyped-def]
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    run = threading.Thread(target=in_thread, args=(lambda: rate_ladder(ladder.pk),))
    hiding = threading.Thread(target=in_thread, args=(lambda: hide(user=p1),))
    run.start()
    assert read.wait(10)
    hiding.start()
    time.sleep(0.5)  # the hiding is saved and waits for the ladder lock
    assert Membership.objects.get(user=p1).is_public is False
    go.set()
    run.join(20)
    hiding.join(20)
    assert not errors, errors
    assert PlayerRating.objects.get(ladder=ladder, user=p1).matches == 2  # the run wrote
    assert listings(ladder) == {"p0": PUBLIC, "p1": HIDDEN}
