"""The plumbing every app shares, in the room below them all (docs/ARCHITECTURE.md).

The domain errors (``errors``) and how pages refuse them (``refusals``), the one parser of
times, days and levels (``inputs``), the page cache and its breaker (``cache``) and the
API's support code (``api_support``, ``api_schema``). It imports Django and the
libraries, never an app: ``accounts`` and every app of ``ladder`` build on it.
"""
