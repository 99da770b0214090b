"""The fixed cast (see tests/factories.py)."""

from tests.factories import (  # noqa: F401
    alice,
    bob,
    charlie,
    dave,
    doubles,
    ladder,
    mod,
    outsider,
    private_ladder,
)
