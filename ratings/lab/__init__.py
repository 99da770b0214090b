"""The rating lab: the engine measured and put to work outside the site (RATINGS.md §7, §9).

Evaluation (``evaluate``: log-loss, Brier, calibration on held-out matches), the peers it is
measured against (``peers``: Elo, Glicko-2, TrueSkill, OpenSkill), tuning (``tune``),
synthetic players and club seasons (``simulate``), the import format (``importfmt``) and the
command line (``cli``: ``python -m ratings.lab rate|backtest|tune|simulate|season``; the older
``python -m ratings.engine ...`` runs the same). Pure Python like the engine: no Django.
"""
