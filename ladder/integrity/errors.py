"""The integrity operations' errors: the site's error family (``core/errors.py``) under
the integrity app's names."""

from __future__ import annotations

from core import errors


class ModerationError(errors.DomainError):
    """An integrity operation refused; nothing changed."""


class ModerationValidationError(ModerationError, errors.DomainValidationError):
    """Bad input: ``errors`` maps each field to its messages."""


class ModerationPermissionError(ModerationError, errors.DomainPermissionError):
    pass


class ModerationNotFound(ModerationError, errors.DomainNotFound):
    pass


class ModerationStateError(ModerationError, errors.DomainStateError):
    """Not allowed in the current state (already banned, not banned)."""
