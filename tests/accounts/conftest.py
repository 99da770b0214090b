"""The fixed cast (see tests/factories.py)."""

from tests.factories import alice, bob, charlie, ladder, mod, outsider, private_ladder  # noqa: F401
