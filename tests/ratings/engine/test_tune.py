"""Tuning: the report's shape, determinism, and no look-ahead into the held-out half."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from ratings.engine import tune as tune_module
from ratings.engine.evaluate import METRICS
from ratings.engine.formats import get_format
from ratings.engine.importfmt import parse_matches
from ratings.engine.tune import (
    SEARCH_SPACE,
    Dimension,
    keep_wins_above_half,
    search,
    train_split,
    tune,
)
from ratings.engine.types import Match, Params

DATA = Path(__file__).resolve().parents[2] / "data"
BADMINTON = get_format("badminton_21")


@pytest.fixture(scope="module")
def history() -> list[Match]:
    text = (DATA / "bwf_mens_singles_2018_2021.csv").read_text(encoding="utf-8")
    return parse_matches(text, BADMINTON)[:240]


def flipped(m: Match) -> Match:
    """The same match with the other side winning every game."""
    return dataclasses.replace(m, games=tuple((b, a) for a, b in m.games))


def test_tune_report_shape(history):
    result = tune(history, Params(), BADMINTON, budget=6, workers=1)
    assert set(result) == {"params", "test"}
    assert set(result["params"]) == set(SEARCH_SPACE)
    Params().with_overrides(**result["params"])  # real parameter names and values
    assert list(result["test"]) == ["tuned", "default", "glicko2", "elo", "trueskill", "openskill"]
    for scores in result["test"].values():
        assert list(scores) == list(METRICS)
    json.dumps(result)


def test_tune_never_looks_at_the_second_half(history):
    half = len(train_split(history))
    changed = history[:half] + [flipped(m) for m in history[half:]]
    one = tune(history, Params(), BADMINTON, budget=8, workers=1)
    two = tune(changed, Params(), BADMINTON, budget=8, workers=1)
    assert one["params"] == two["params"]
    # ...while the held-out report does see the change
    assert one["test"]["tuned"] != two["test"]["tuned"]


def test_tune_does_depend_on_the_first_half(history):
    half = len(train_split(history))
    # Flipping every match would mirror all ratings and leave the loss as it is.
    changed = [flipped(m) if i % 2 else m for i, m in enumerate(history[:half])] + history[half:]
    scores = [
        tune_module.train_score(train_split(h), Params(), BADMINTON) for h in (history, changed)
    ]
    assert scores[0] != scores[1]


def test_tune_is_the_same_on_one_or_two_processes(history):
    one = tune(history, Params(), BADMINTON, budget=6, workers=1)
    two = tune(history, Params(), BADMINTON, budget=6, workers=2)
    assert one == two


def test_the_tuned_setting_is_no_worse_than_the_defaults_in_training(history):
    result = tune(history, Params(), BADMINTON, budget=10, workers=1)
    train = train_split(history)
    tuned = tune_module.train_score(train, Params().with_overrides(**result["params"]), BADMINTON)
    assert tuned <= tune_module.train_score(train, Params(), BADMINTON)


def test_search_minimises_and_respects_the_budget(monkeypatch):
    monkeypatch.setattr(
        tune_module,
        "SEARCH_SPACE",
        {"x": Dimension(-10.0, 10.0, 3), "y": Dimension(0.0, 5.0, 3)},
    )
    calls: list[int] = []

    def score(batch):
        calls.append(len(batch))
        return [(o["x"] - 3.0) ** 2 + (o["y"] - 1.0) ** 2 for o in batch]

    best, value, tried = search(score, {"x": 0.0, "y": 0.0}, budget=80, seed=3)
    assert tried == sum(calls) <= 80
    assert value == pytest.approx(0.0, abs=0.05)
    assert best["x"] == pytest.approx(3.0, abs=0.2)
    assert search(score, {"x": 0.0, "y": 0.0}, budget=80, seed=3) == (best, value, tried)


def test_dimensions_round_and_clip():
    assert SEARCH_SPACE["rating_period_days"].clip(7.4) == 7
    assert isinstance(SEARCH_SPACE["rating_period_days"].clip(7.4), int)
    assert SEARCH_SPACE["tau"].clip(99) == SEARCH_SPACE["tau"].high
    assert SEARCH_SPACE["tau"].clip(0.345678) == 0.346


@pytest.mark.parametrize(
    "weight,clamp,bonus", [(1.1, 0.4, 0.01), (2.0, 1.0, 0.3), (0.25, 0.25, 0.4), (0.0, 0.5, 0.0)]
)
def test_win_floor_projection(weight, clamp, bonus):
    o = keep_wins_above_half(
        {"margin_weight": weight, "margin_clamp": clamp, "match_win_bonus": bonus}
    )
    assert o["match_win_bonus"] <= 0.5
    assert o["match_win_bonus"] >= o["margin_weight"] * o["margin_clamp"] - 1e-12
    assert o["margin_weight"] == weight


def test_tune_with_win_floor_keeps_wins_above_half(history):
    result = tune(history, Params(), BADMINTON, budget=8, workers=1, win_floor=True)
    p = result["params"]
    assert p["match_win_bonus"] >= p["margin_weight"] * p["margin_clamp"] - 1e-12


def test_cli_tune_json(tmp_path, capsys):
    from ratings.engine.__main__ import main

    lines = (DATA / "bwf_mens_singles_2018_2021.csv").read_text(encoding="utf-8").splitlines()
    small = tmp_path / "small.csv"
    small.write_text("\n".join(lines[:81]) + "\n", encoding="utf-8")
    assert main(["tune", str(small), "--budget", "3", "--workers", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"params", "test"}
    assert main(["tune", str(small), "--budget", "0"]) == 1
    assert "--budget" in capsys.readouterr().err


def test_tune_validates_every_score_up_front(history):
    from ratings.engine.types import EngineError

    bad = history[:-1] + [dataclasses.replace(history[-1], games=((21, 25),))]
    with pytest.raises(EngineError):
        tune(bad, Params(), BADMINTON, budget=2, workers=1)
