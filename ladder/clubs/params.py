"""A ladder's rating settings as the engine names them: the fields that map one to one onto
the engine's ``Params`` (RATINGS.md §2), and the method's settings kept in
``Ladder.method_options`` (RATINGS.md §5) with the site's own (``stat_labels``): what each
must hold, and the problems in words."""

from __future__ import annotations

from ratings.engine.types import Params

DEFAULTS = Params()

# The explicit per-ladder parameter fields (RATINGS.md §2), named as in the engine's Params.
PARAM_FIELDS = (
    "tau",
    "scale_factor",
    "repetition_alpha",
    "diversity_threshold",
    "outcome_model",
    "margin_boost",
    "match_win_bonus",
    "margin_weight",
    "margin_clamp",
    "rating_center",
    "rating_min",
    "rating_max",
    "rd_max",
    "initial_rating",
    "initial_rd",
    "initial_volatility",
    "newcomer_start",
    "lookback_days",
    "rating_period_days",
    "season_start_periods",
    "team_method",
    "composite_rd",
)

# RATINGS.md §5 method settings kept in Ladder.method_options, with the type each must have.
_NUMBER = (int, float)
METHOD_OPTIONS: dict[str, str] = {
    "stat_weights": "an object of stat name → number",
    "perf_alpha": "a number",
    "perf_weight_min": "a number",
    "perf_weight_max": "a number",
    "delta_max": "a positive number, or null for no clamp",
    "g1_scale": "a positive number",
    "g1_rd_max": "a positive number",
    "g1_initial_rd": "a positive number",
    "g1_boost": "true or false",
}
# Method options that are no rating parameter: how the site words the method's settings.
SITE_OPTIONS: dict[str, str] = {
    "stat_labels": "an object of stat name → the label members read (1–40 characters)",
}
# A stat's label is a column heading on a phone: a few words.
STAT_LABEL_MAX = 40


def _is_number(value: object) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def _option_ok(name: str, value: object) -> bool:
    if name == "stat_weights":
        return isinstance(value, dict) and all(
            isinstance(k, str) and k and _is_number(v) for k, v in value.items()
        )
    if name == "g1_boost":
        return isinstance(value, bool)
    if name == "stat_labels":
        return isinstance(value, dict) and all(
            isinstance(k, str) and isinstance(v, str) and 0 < len(v.strip()) <= STAT_LABEL_MAX
            for k, v in value.items()
        )
    if name == "delta_max":
        return value is None or (_is_number(value) and value > 0)  # type: ignore[operator]
    if name in ("perf_alpha", "perf_weight_min", "perf_weight_max"):
        return _is_number(value)
    return _is_number(value) and value > 0  # type: ignore[operator]


def method_option_errors(options: object) -> list[str]:
    """Readable problems with a ladder's method_options (empty when they are fine)."""
    if not isinstance(options, dict):
        return ['Method options must be a JSON object, e.g. {"stat_weights": {"kills": 1}}.']
    errors = []
    for name, value in options.items():
        if name not in METHOD_OPTIONS and name not in SITE_OPTIONS:
            allowed = ", ".join([*METHOD_OPTIONS, *SITE_OPTIONS])
            errors.append(f"Unknown method option {name!r}; allowed: {allowed}.")
        elif not _option_ok(name, value):
            must = METHOD_OPTIONS.get(name) or SITE_OPTIONS[name]
            errors.append(f"Method option {name!r} must be {must}.")
    if not errors:
        unknown = sorted(set(options.get("stat_labels", {})) - set(options.get("stat_weights", {})))
        if unknown:
            errors.append(
                f"Stat labels name stats without a weight: {', '.join(unknown)}; label only the "
                "stats of stat_weights."
            )
        low = options.get("perf_weight_min", DEFAULTS.perf_weight_min)
        high = options.get("perf_weight_max", DEFAULTS.perf_weight_max)
        if not 0 < low <= 1 <= high:
            errors.append("Performance weights need 0 < perf_weight_min ≤ 1 ≤ perf_weight_max.")
    return errors
