"""The integrity operations' errors: a message a person can read, and what kind it is."""

from __future__ import annotations


class ModerationError(Exception):
    """An integrity operation refused; nothing changed."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ModerationValidationError(ModerationError):
    """Bad input: ``errors`` maps each field to its messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        super().__init__(" ".join(m for messages in errors.values() for m in messages))


class ModerationPermissionError(ModerationError):
    status = 403


class ModerationNotFound(ModerationError):
    status = 404


class ModerationStateError(ModerationError):
    """Not allowed in the current state (already banned, not banned)."""

    status = 409
