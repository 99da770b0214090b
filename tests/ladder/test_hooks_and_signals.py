"""Hooks and signals (docs/ARCHITECTURE.md "Hooks and signals", issue 38 item 2): a lower app
asks an app above it through a typed hook registered in ready(), never a signal; a signal is
an event, sent where it happens and forgotten; a save that the ratings follow goes through a
function that says what it causes. The source is read for the first, the pages for the rest.

Behaviour the hooks carry is also pinned where it lives: the report form's prediction
(tests/matches/test_match_pages.py, test_prediction_is_the_domains), where a newcomer starts
(tests/ratings/test_newcomer_start.py), a report refused for its challenge
(tests/play/test_challenges.py), a new starting rating or setting replaying the ladder
(tests/ratings/test_ladder_settings.py), a season's first day
(tests/ratings/test_season_start_raise.py), listings (tests/ratings/test_listing.py).
"""

from __future__ import annotations

import ast
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from ladder.clubs import hooks as club_hooks
from ladder.clubs.access import LEFT, PUBLIC
from ladder.clubs.models import Ladder, Membership
from ladder.matches import hooks as match_hooks
from ladder.matches import operations as matches
from ladder.matches.errors import MatchValidationError
from ladder.matches.models import Match
from ladder.play import services as play
from ladder.play.hooks import PlayAnswers
from ladder.play.models import CANCELLED, Challenge
from ratings.hooks import ClubsAnswers, MatchesAnswers
from ratings.models import PlayerRating, Season
from ratings.predictions import predict_sides
from tests.clubs.test_admin import ladder_form
from tests.factories import UserFactory, reported_match
from tests.play.support import soon

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "core", "ladder", "ratings")
ARCHITECTURE = (ROOT / "docs" / "ARCHITECTURE.md").read_text()

# The custom signals: each an event, sent and forgotten (module, name).
EVENTS = {
    ("ladder/matches/signals.py", "ratings_due"),
    ("ladder/matches/signals.py", "match_state_changed"),
    ("accounts/signals.py", "account_changed"),
}

# Every receiver connected in the apps (module, signal): the custom events above, and
# Django's and the libraries' signals, none of them on another app's model.
RECEIVERS = {
    ("ratings/apps.py", "ratings_due"),
    ("ratings/apps.py", "account_changed"),
    ("ratings/apps.py", "post_migrate"),
    ("ladder/play/apps.py", "match_state_changed"),
    ("ladder/play/apps.py", "account_changed"),
    ("ladder/apps.py", "post_migrate"),
    ("ladder/celery.py", "celeryd_init"),
    ("accounts/apps.py", "user_locked_out"),
    ("accounts/security.py", "user_logged_in"),
    ("accounts/roles.py", "m2m_changed"),
    ("accounts/tokens.py", "post_save"),
    ("accounts/tokens.py", "post_delete"),
}


def sources() -> list[tuple[str, ast.Module]]:
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" in relative or relative.startswith(("ratings/engine", "ratings/lab")):
                continue
            found.append((relative, ast.parse(path.read_text(), relative)))
    return found


def _name(node: ast.expr) -> str:
    """``post_save`` of ``post_save`` or ``signals.post_save``."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def test_every_custom_signal_is_an_event_listed_in_the_architecture() -> None:
    defined = set()
    for module, tree in sources():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and _name(node.value.func) == "Signal"
            ):
                defined |= {(module, _name(target)) for target in node.targets}
    assert defined == EVENTS
    section = ARCHITECTURE.split("## Hooks and signals", 1)[1].split("\n## ", 1)[0]
    for _, name in EVENTS:
        assert f"`{name}" in section, name


def test_no_code_reads_what_a_signal_returns() -> None:
    """A signal is sent as a statement (or from an on_commit lambda, which drops it): its
    receivers' answers are never iterated, kept or returned."""
    signals = {name for _, name in EVENTS} | {"user_logged_in", "post_migrate"}
    for module, tree in sources():
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("send", "send_robust")
                and _name(node.func.value) in signals
            ):
                continue
            parent = parents[node]
            assert isinstance(parent, ast.Expr) or (
                isinstance(parent, ast.Lambda) and _name(parents[parent].func) == "on_commit"  # type: ignore[attr-defined]
            ), f"{module}:{node.lineno} reads what {_name(node.func.value)} returns"


def test_every_receiver_is_one_the_architecture_lists() -> None:
    connected = set()
    for module, tree in sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _name(node.func) == "receiver" and node.args:
                connected.add((module, _name(node.args[0])))
            elif (
                isinstance(node, ast.Attribute)
                and node.attr == "connect"
                and _name(node.value) not in ("", "self")
            ):
                connected.add((module, _name(node.value)))
    assert connected == RECEIVERS
    section = ARCHITECTURE.split("## Hooks and signals", 1)[1].split("\n## ", 1)[0]
    for module, name in RECEIVERS:
        assert f"`{module}`" in section and name in section, (module, name)


def test_no_app_asks_a_question_through_a_signal() -> None:
    """The question-signals are gone, and with them the clubs app's models <-> signals cycle."""
    text = "\n".join(
        path.read_text() for app in APPS for path in (ROOT / app).rglob("*.py") if path.is_file()
    )
    for gone in (
        "lineup_wanted",
        "stakes_wanted",
        "scheduled_lineup_wanted",
        "newcomer_rating_wanted",
        "match_reported",
    ):
        assert not re.search(rf"\b{gone}\b\s*[=.]", text), gone
    assert not (ROOT / "ladder" / "clubs" / "signals.py").exists()


# ---- the hooks are registered ----------------------------------------------------------------


def test_the_apps_above_register_their_answers() -> None:
    assert isinstance(club_hooks.ratings(), ClubsAnswers)
    assert isinstance(match_hooks.ratings(), MatchesAnswers)
    assert isinstance(match_hooks.play(), PlayAnswers)


def test_before_anything_registers_the_defaults_answer(ladder, alice, bob, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(club_hooks, "_ratings", club_hooks._NoRatings())
    monkeypatch.setattr(match_hooks, "_ratings", match_hooks._NoRatings())
    monkeypatch.setattr(match_hooks, "_play", match_hooks._NoPlay())
    ladder.newcomer_start = "recent_newcomers"
    assert ladder.default_start().rating == ladder.initial_rating
    assert match_hooks.ratings().predict(ladder, [alice], [bob], None) is None
    assert match_hooks.play().scheduled_lineup(ladder, alice, {"challenge": 1}) is None


def test_the_report_forms_prediction_is_the_ratings_apps(ladder, alice, bob) -> None:  # type: ignore[no-untyped-def]
    asked = match_hooks.ratings().predict(ladder, [alice], [bob], None)
    assert asked is not None and isinstance(asked, match_hooks.Prediction)
    assert asked == predict_sides(ladder, [alice], [bob], None)


def test_the_play_app_refuses_a_report_for_a_challenge_not_scheduled(ladder, alice, bob) -> None:  # type: ignore[no-untyped-def]
    challenge = play.create_challenge(
        ladder=ladder, by=alice, opponents=["bob"], proposed_times=[soon(2)]
    )
    before = Match.objects.count()
    with pytest.raises(MatchValidationError, match="not scheduled"):
        reported_match(ladder, alice, [alice], [bob], links={"challenge": challenge.pk})
    assert Match.objects.count() == before  # the report rolled back


# ---- a save says what it causes: the admin's pages -------------------------------------------


@pytest.fixture
def rated(ladder, alice, bob, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=True):
        matches.confirm_match(reported_match(ladder, alice, [alice], [bob]), bob)
    assert PlayerRating.objects.filter(ladder=ladder).count() == 2
    return ladder


@pytest.fixture
def boss(client, db):  # type: ignore[no-untyped-def]
    user = UserFactory(username="boss", is_staff=True, is_superuser=True)
    client.force_login(user)
    return user


def version(ladder: Ladder) -> int:
    return Ladder.objects.get(pk=ladder.pk).board_version


def listing(ladder: Ladder, user: User) -> str:
    return PlayerRating.objects.get(ladder=ladder, user=user).listing


def test_new_rating_settings_in_the_admin_replay_the_ladder(client, mod, rated) -> None:  # type: ignore[no-untyped-def]
    client.force_login(mod)
    url = reverse("admin:clubs_ladder_change", args=[rated.pk])
    data = ladder_form(name="Club Singles", slug="singles", team_size="1")
    for key in [k for k in data if k.startswith("memberships-")]:
        del data[key]
    data.update({"memberships-TOTAL_FORMS": "0", "memberships-INITIAL_FORMS": "0"})
    assert client.post(url, {**data, "description": "Renamed"}).status_code == 302
    assert not Match.objects.filter(ladder=rated, needs_rating=True).exists()  # no rating changes
    assert client.post(url, {**data, "tau": "0.3"}).status_code == 302
    assert Match.objects.filter(ladder=rated, needs_rating=True).exists()  # replayed


def test_a_member_deleted_in_the_admin_is_listed_as_left(client, boss, rated, bob) -> None:  # type: ignore[no-untyped-def]
    membership = Membership.objects.get(ladder=rated, user=bob)
    v = version(rated)
    url = reverse("admin:clubs_membership_delete", args=[membership.pk])
    assert client.post(url, {"post": "yes"}).status_code == 302
    assert listing(rated, bob) == LEFT and version(rated) != v


def test_a_member_deactivated_in_the_admin_leaves_the_boards_and_their_games(  # type: ignore[no-untyped-def]
    client, boss, rated, alice, bob
) -> None:
    asked = play.create_challenge(
        ladder=rated, by=alice, opponents=["bob"], proposed_times=[soon(2)]
    )
    joined = timezone.localtime(alice.date_joined)
    data = {
        "username": "alice",
        "email": alice.email,
        "display_name": "Alice Archer",
        "first_name": "",
        "last_name": "",
        "date_joined_0": joined.date().isoformat(),
        "date_joined_1": joined.time().replace(microsecond=0).isoformat(),
    }
    url = reverse("admin:accounts_user_change", args=[alice.pk])
    response = client.post(url, data)  # "is_active" unticked
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert listing(rated, alice) == LEFT
    assert Challenge.objects.get(pk=asked.pk).state == CANCELLED


def test_a_rename_on_the_profile_page_renews_the_ladders_pages(client, rated, alice) -> None:  # type: ignore[no-untyped-def]
    v = version(rated)
    client.force_login(alice)
    response = client.post(reverse("profile"), {"display_name": "Ally", "public_memberships": []})
    assert response.status_code == 302
    assert version(rated) != v
    assert listing(rated, alice) != PUBLIC  # hidden on the one ladder she unticked


def test_a_season_added_in_the_admin_renews_the_board_and_may_replay(client, boss, rated) -> None:  # type: ignore[no-untyped-def]
    v = version(rated)
    today = timezone.localdate()
    data = {
        "ladder": str(rated.pk),
        "name": "Now",
        "slug": "now",
        "starts_on": (today - timedelta(days=30)).isoformat(),
        "ends_on": (today + timedelta(days=30)).isoformat(),
        "standings-TOTAL_FORMS": "0",
        "standings-INITIAL_FORMS": "0",
        "standings-MIN_NUM_FORMS": "0",
        "standings-MAX_NUM_FORMS": "1000",
    }
    response = client.post(reverse("admin:ratings_season_add"), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert version(rated) != v
    assert not Match.objects.filter(ladder=rated, needs_rating=True).exists()  # no raise
    season = Season.objects.get(ladder=rated)
    Ladder.objects.filter(pk=rated.pk).update(season_start_periods=2)
    url = reverse("admin:ratings_season_delete", args=[season.pk])
    assert client.post(url, {"post": "yes"}).status_code == 302
    assert Match.objects.filter(ladder=rated, needs_rating=True).exists()  # its start raised RDs
