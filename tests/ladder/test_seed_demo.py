"""`manage.py seed_demo`: the demo club, idempotent, and `--if-empty`."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from io import StringIO

import pytest
from django.core import mail
from django.core.management import CommandError, call_command

from accounts.models import User
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.services import join_ladder
from ladder.demo import DEMO_PASSWORD, MEMBERS, seed_club
from ladder.matches.models import Match, Notification
from ratings.engine.types import Params
from tests.factories import LadderFactory, MembershipFactory, UserFactory, reported_match


def seed(*args: str) -> str:
    out = StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def debug(settings):
    settings.DEBUG = True


def test_seed_demo_creates_the_club(db, debug):
    output = seed()

    ladders = {ladder.slug: ladder for ladder in Ladder.objects.all()}
    assert set(ladders) == {"singles", "doubles", "team-5v5"}
    singles, doubles, team = ladders["singles"], ladders["doubles"], ladders["team-5v5"]
    assert (singles.name, singles.scoring_format, singles.team_size) == (
        "Singles",
        "badminton_21",
        1,
    )
    assert (doubles.name, doubles.scoring_format, doubles.team_size) == (
        "Doubles",
        "badminton_21",
        2,
    )
    assert (team.name, team.scoring_format, team.team_size) == ("5v5 League", "generic", 5)
    assert (team.best_of, team.points_per_game, team.team_method) == (1, 16, "performance_weighted")
    assert dict(team.params().stat_weights) == {"kills": 1.0, "deaths": -0.7, "adr": 0.02}
    assert team.params().diversity_threshold == 0.05  # five opponents a match
    assert singles.params() == Params()

    mod = User.objects.get(username="mod")
    assert mod.is_moderator and mod.is_staff and not mod.is_superuser
    assert mod.check_password(DEMO_PASSWORD)
    admin = User.objects.get(username="admin")
    assert admin.is_superuser
    assert User.objects.filter(is_superuser=False, is_staff=False).count() == len(MEMBERS) == 20
    assert all(user.display_name for user in User.objects.all())
    assert team.memberships.count() >= 10  # two full sides
    assert doubles.memberships.count() >= 4
    # Some members answered the self-assessment, some skipped it.
    priya = Membership.objects.get(user__username="priya", ladder=singles)
    assert (priya.initial_rating, priya.initial_rd) == (5500, 150)
    jonas = Membership.objects.get(user__username="jonas", ladder=singles)
    assert (jonas.initial_rating, jonas.initial_rd) == (4500, 250)

    assert DEMO_PASSWORD in output and "mod" in output


def test_seed_demo_is_idempotent(db, debug):
    seed()
    counts = (Ladder.objects.count(), User.objects.count(), Membership.objects.count())
    assert "nothing added" in seed()
    assert (Ladder.objects.count(), User.objects.count(), Membership.objects.count()) == counts


def test_seed_demo_fills_in_what_is_missing(db, debug):
    # A ladder with matches cannot be deleted (their audit trail protects them): take the
    # club before its seasons are played.
    seed_club()
    Membership.objects.filter(user__username="priya").delete()
    Ladder.objects.filter(slug="team-5v5").delete()
    seed()
    assert Ladder.objects.filter(slug="team-5v5").exists()
    assert Membership.objects.filter(user__username="priya").count() == 2
    assert Match.objects.filter(ladder__slug="team-5v5").exists()


def test_someone_who_joined_before_the_season_plays_at_their_starting_level(db, debug):
    club = seed_club()
    newcomer = User.objects.create_user(username="newcomer", display_name="New Comer")
    join_ladder(newcomer, club.ladders["team-5v5"], Decimal("4.0"), "regular")
    join_ladder(club.members["priya"], club.ladders["team-5v5"])
    seed()
    assert Match.objects.filter(ladder__slug="team-5v5", players__user=newcomer).exists()


def test_if_empty_does_nothing_when_a_ladder_exists(ladder, debug):
    output = seed("--if-empty")
    assert "no demo data added" in output
    assert list(Ladder.objects.values_list("slug", flat=True)) == ["singles"]
    assert not User.objects.filter(username="mod").exists()


def test_if_empty_seeds_an_empty_database_once(db, debug):
    seed("--if-empty")
    counts = (Ladder.objects.count(), User.objects.count(), Membership.objects.count())
    seed("--if-empty")
    assert counts[0] == 3
    assert (Ladder.objects.count(), User.objects.count(), Membership.objects.count()) == counts


def test_refuses_with_debug_off_unless_forced(db, settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="--force"):
        seed()
    assert not Ladder.objects.exists()
    seed("--force")
    assert Ladder.objects.count() == 3


def test_seeding_leaves_other_ladders_notifications_alone(db):  # type: ignore[no-untyped-def]
    """seed_demo dates and reads only its own club's news, never a site's own members'."""
    ladder = LadderFactory(name="Real club", slug="real")
    ann, bea = UserFactory(username="ann"), UserFactory(username="bea")
    for user in (ann, bea):
        MembershipFactory(ladder=ladder, user=user)
    then = datetime(2020, 1, 7, 12, tzinfo=UTC)
    match = reported_match(ladder, ann, [ann], [bea], played_on=date(2020, 1, 6), now=then)
    real = Notification.objects.get(user=bea, match=match)
    call_command("seed_demo", "--force", stdout=StringIO())
    after = Notification.objects.get(pk=real.pk)
    assert after.read_at is None  # an old match, but not the demo's: still unread
    assert after.created_at == real.created_at  # and not re-dated
    assert Notification.objects.filter(match__ladder__slug="singles").exists()


@pytest.mark.services
def test_seed_demo_hands_its_matches_to_the_worker_before_it_exits(  # type: ignore[no-untyped-def]
    celery_worker_process, celery_broker, worker_database_url
):
    """Issue 29.3: the command (a process of its own, as an operator runs it) publishes the
    rating work before it exits; a worker rates every seeded match with no sweep running."""
    import os
    import subprocess
    import sys
    import time

    from tests.support.services import ROOT

    env = {
        **os.environ,
        "CELERY_BROKER_URL": celery_broker,
        "DATABASE_URL": worker_database_url,
        "DJANGO_SETTINGS_MODULE": "ladder.settings",
        "DEBUG": "1",
    }
    subprocess.run(
        [sys.executable, "manage.py", "seed_demo"], cwd=ROOT, env=env, check=True, timeout=120
    )
    deadline = time.monotonic() + 30  # the sweep (beat, not running here) would come at 60 s
    while Match.objects.filter(needs_rating=True).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert Match.objects.count() > 100
    assert not Match.objects.filter(needs_rating=True).exists()
    assert "Task ratings.rate_ladder" in celery_worker_process.output()


def test_the_demo_shows_challenges_and_open_games(db, debug):
    from ladder.play.models import Challenge, OpenGame

    seed()
    states = sorted(
        (c.challenger.username, c.side_b[0].username, c.state)
        for c in Challenge.objects.prefetch_related("players__user").select_related("challenger")
    )
    assert states == [
        ("aisha", "mei", "played"),
        ("daniel", "priya", "open"),
        ("mei", "daniel", "open"),
        ("sofia", "daniel", "scheduled"),
    ]
    played = Challenge.objects.get(state="played")
    assert played.match is not None and played.match.state == "confirmed"
    games = sorted((g.ladder.slug, g.state, g.players.count()) for g in OpenGame.objects.all())
    assert games == [("doubles", "scheduled", 4), ("singles", "open", 1)]
    seed()  # again: nothing more
    assert Challenge.objects.count() == 4 and OpenGame.objects.count() == 2


def test_seeding_sends_no_e_mail(transactional_db, debug) -> None:  # type: ignore[no-untyped-def]
    """Issue 37.6: `make run` printed about 25 demo e-mails before its address (real commits
    here, so the e-mails after them are sent as `make run` sends them)."""
    seed()
    assert Notification.objects.exists()  # the players are told on the site, as ever
    assert mail.outbox == []
