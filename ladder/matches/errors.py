"""What a match operation raises when it cannot be done: a message for people, a status
for HTTP, and for bad input the messages by field."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class MatchError(Exception):
    """A match operation that cannot be done; ``message`` is for people, ``status`` for HTTP."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MatchValidationError(MatchError):
    """Bad input: ``errors`` maps a field ("games", "played_on", …, "__all__") to messages."""

    status = 400

    def __init__(self, errors: Mapping[str, Sequence[str]], message: str | None = None) -> None:
        self.errors: dict[str, list[str]] = {k: list(v) for k, v in errors.items() if v}
        messages = [m for msgs in self.errors.values() for m in msgs]
        super().__init__(message or " ".join(messages) or "The input is not valid.")


class MatchPermissionError(MatchError):
    """This user may not do this to this match."""

    status = 403


class MatchStateError(MatchError):
    """The state machine refuses the transition (including confirming an expired match)."""

    status = 409


class MatchRateLimited(MatchError):
    """Too soon: the same may be tried again in ``retry_after`` seconds (a 429 with
    ``Retry-After`` in the API; the message says when, for people)."""

    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


class ReportKeyReused(MatchError):
    """A report's key (the API's Idempotency-Key) sent again with a different report."""

    status = 422


class FieldErrors(dict[str, list[str]]):
    def add(self, key: str, message: str) -> None:
        self.setdefault(key, []).append(message)

    def raise_if_any(self) -> None:
        if self:
            raise MatchValidationError(self)
