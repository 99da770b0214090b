"""A ladder's own history through backtest/tune, and new settings meaning a replay."""

from __future__ import annotations

import io
import json
from datetime import date

import pytest
from django.core.management import call_command

from ladder.clubs.models import Ladder
from ladder.clubs.services import save_membership, save_settings
from ratings.models import RatingChange
from ratings.pipeline import rate_ladder
from tests.ratings.test_pipeline import assert_equals_replay, season

START = date(2026, 6, 1)


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def rated(club, make_match):  # type: ignore[no-untyped-def]
    ladder, users = club
    season(ladder, users, make_match, 40, seed=21, start=START)
    rate_ladder(ladder.pk)
    return ladder


def test_backtest_on_a_ladder_uses_its_rated_matches(rated) -> None:  # type: ignore[no-untyped-def]
    result = json.loads(run("backtest", "--ladder", rated.slug, "--json"))
    assert result["matches"] == 40 and result["evaluated"] == 20
    assert set(result["systems"]) == {"default", "glicko2", "elo", "trueskill", "openskill"}


def test_changing_rating_settings_replays_the_ladder(
    rated, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    before = dict(RatingChange.objects.filter(ladder=rated).values_list("pk", "rating_after"))
    rated.tau = 0.3
    rated.scale_factor = 300
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        save_settings(rated)  # in-process tasks: the replay runs when the save commits
    assert len(callbacks) == 1
    assert_equals_replay(rated)
    after = list(RatingChange.objects.filter(ladder=rated).values_list("rating_after", flat=True))
    assert sorted(after) != sorted(before.values())


def test_renaming_a_ladder_does_not_replay_it(rated, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    ids = set(RatingChange.objects.filter(ladder=rated).values_list("pk", flat=True))
    rated.name = "Renamed"
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        save_settings(rated)
    assert callbacks == []
    assert set(RatingChange.objects.filter(ladder=rated).values_list("pk", flat=True)) == ids


def test_tune_apply_stores_the_settings_and_replays(rated) -> None:  # type: ignore[no-untyped-def]
    text = run("tune", "--ladder", rated.slug, "--budget", "8", "--workers", "1", "--apply")
    tuned = json.loads(text[: text.rindex("}") + 1])["params"]
    ladder = Ladder.objects.get(pk=rated.pk)
    for name, value in tuned.items():
        stored = getattr(ladder, name, ladder.method_options.get(name))
        assert stored == (value if isinstance(value, str) else pytest.approx(value))
    assert f"Applied the tuned settings to {ladder.slug}" in text
    assert_equals_replay(ladder)


def test_tune_a_file_and_apply_it_to_a_ladder(rated, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "history.csv"
    path.write_text(run("export_matches", "--ladder", rated.slug), encoding="utf-8")
    text = run("tune", str(path), "--budget", "6", "--workers", "1", "--apply", rated.slug)
    tuned = json.loads(text[: text.rindex("}") + 1])["params"]
    ladder = Ladder.objects.get(pk=rated.pk)
    assert ladder.outcome_model == tuned["outcome_model"]
    assert_equals_replay(ladder)


def fake_tune(params):  # type: ignore[no-untyped-def]
    """A tune() that returns `params` without searching (settings this ladder model has today)."""

    def tune(matches, base, scoring_format, **kwargs):  # type: ignore[no-untyped-def]
        return {"params": params, "floor": True, "models": {}, "test": {}}

    return tune


def test_apply_slug_sets_the_ladder_and_rerates_it(rated, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from ratings.lab import tune as tune_module

    before = sorted(
        RatingChange.objects.filter(ladder=rated).values_list("rating_after", flat=True)
    )
    setting = {"scale_factor": 260.0, "initial_rd": 400.0, "tau": 0.7}
    monkeypatch.setattr(tune_module, "tune", fake_tune(setting))
    path = tmp_path / "history.csv"
    path.write_text(run("export_matches", "--ladder", rated.slug), encoding="utf-8")
    text = run("tune", str(path), "--apply", rated.slug)
    ladder = Ladder.objects.get(pk=rated.pk)
    assert (ladder.scale_factor, ladder.initial_rd, ladder.tau) == (260.0, 400.0, 0.7)
    assert f"Applied the tuned settings to {ladder.slug}" in text
    assert_equals_replay(ladder)
    after = sorted(
        RatingChange.objects.filter(ladder=ladder).values_list("rating_after", flat=True)
    )
    assert after != before


@pytest.mark.parametrize(
    "setting,message",
    [
        ({"scale_factor": -5.0}, "do not fit"),  # the model's validators
        ({"team_method": "performance_weighted"}, "stat weights"),  # the engine's validation
        ({"no_such_setting": 1.0}, "has no setting no_such_setting"),
    ],
)
def test_apply_refuses_settings_the_ladder_does_not_take(
    rated, tmp_path, monkeypatch, setting, message
) -> None:  # type: ignore[no-untyped-def]
    from django.core.management.base import CommandError

    from ratings.lab import tune as tune_module

    monkeypatch.setattr(tune_module, "tune", fake_tune(setting))
    path = tmp_path / "history.csv"
    path.write_text(run("export_matches", "--ladder", rated.slug), encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        run("tune", str(path), "--apply", rated.slug)
    assert Ladder.objects.get(pk=rated.pk).scale_factor == rated.scale_factor


def test_apply_without_a_slug_needs_a_ladder(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--apply LADDER_SLUG"):
        run("tune", str(tmp_path / "x.csv"), "--apply")


def test_a_new_starting_rating_replays_the_ladder(
    rated, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    from ladder.clubs.models import Membership

    membership = Membership.objects.filter(ladder=rated).first()
    membership.initial_rating, membership.initial_rd = 6000.0, 150.0
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        save_membership(membership)
    assert len(callbacks) == 1
    assert_equals_replay(rated)
    first = (
        RatingChange.objects.filter(ladder=rated, user=membership.user)
        .order_by("played_on", "match_id")
        .first()
    )
    assert (first.rating_before, first.rd_before) == (6000.0, 150.0)


def test_a_new_starting_rating_of_an_unrated_member_replays_nothing(
    rated, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    from ladder.clubs.models import Membership
    from tests.factories import MembershipFactory, UserFactory

    newcomer = MembershipFactory(ladder=rated, user=UserFactory(username="newcomer"))
    newcomer = Membership.objects.get(pk=newcomer.pk)
    newcomer.initial_rating = 5000.0
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        save_membership(newcomer)
    assert callbacks == []
