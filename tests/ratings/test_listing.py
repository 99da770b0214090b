"""A rating row's listing (who sees it) follows its player's membership: joined, hidden,
left, back again; through rating runs, replays, imports and the migration that filled it."""

from __future__ import annotations

from datetime import date

from django.apps import apps
from django.contrib.auth.models import AnonymousUser

from accounts.forms import ProfileForm
from ladder.models import Membership
from ratings.imports import import_matches
from ratings.models import HIDDEN, LEFT, PUBLIC, PlayerRating
from ratings.pipeline import rate_ladder, recompute_ladder
from tests.factories import MembershipFactory, hide

DAY = date(2024, 5, 1)


def listings(ladder) -> dict[str, str]:  # type: ignore[no-untyped-def]
    rows = PlayerRating.objects.filter(ladder=ladder).select_related("user")
    return {row.user.username: row.listing for row in rows}


def seen_by(ladder, viewer) -> set[str]:  # type: ignore[no-untyped-def]
    rows = PlayerRating.objects.filter(ladder=ladder).listed_for(viewer)
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

    Membership.objects.get(ladder=ladder, user=p2).delete()
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
    Membership.objects.get(ladder=ladder, user=p1).delete()
    assert listings(ladder)["p1"] == LEFT
    # The import makes p1 a member again (bulk, no signals) and rates their new match.
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
    copy_memberships(apps, None)
    assert listings(ladder) == {"p0": PUBLIC, "p1": HIDDEN, "p2": LEFT}
