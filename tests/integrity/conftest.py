"""The integrity tests' club (tests/integrity/support.py)."""

from tests.integrity.support import club  # noqa: F401
