"""The site's one family of domain errors: what an operation raises when it cannot be done.

Each carries a ``message`` a person can read and the HTTP ``status`` it answers with; its
kind says how a surface shows it, and each surface translates them in one place (the API in
``core/api_support.py:exception_handler``, the pages in
``core/refusals.py:DomainErrorPages``):

- ``DomainValidationError`` (400): bad input; ``errors`` maps a field ("games",
  "played_on", …, ``ALL`` for the input as a whole) to its messages.
- ``DomainPermissionError`` (403): this person may not do this.
- ``DomainStateError`` (409): the thing is not in a state that allows it now.
- ``DomainNotFound`` (404): no such thing, or not one this person may see.
- ``DomainRateLimited`` (429): too soon; may be tried again in ``retry_after`` seconds.

An app raises its own subclasses (``MatchPermissionError(MatchError,
DomainPermissionError)``, ``ModerationNotFound`` …), so its callers can catch the app's
family or the kind. Plain Python, no Django: the pure matchmaking search raises its refusals
from here too (``ladder/clubnight/matchmaking.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: The key of the errors about the input as a whole (Django's NON_FIELD_ERRORS).
ALL = "__all__"


class DomainError(Exception):
    """An operation that cannot be done; ``message`` is for people, ``status`` for HTTP."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DomainValidationError(DomainError):
    """Bad input: ``errors`` maps a field (``ALL``: the input as a whole) to its messages.
    Given a message alone, it is the input's as a whole."""

    status = 400

    def __init__(
        self, errors: Mapping[str, Sequence[str]] | str, message: str | None = None
    ) -> None:
        if isinstance(errors, str):
            errors = {ALL: [errors]}
        self.errors: dict[str, list[str]] = {k: list(v) for k, v in errors.items() if v}
        messages = [m for msgs in self.errors.values() for m in msgs]
        super().__init__(message or " ".join(messages) or "The input is not valid.")


class DomainPermissionError(DomainError):
    """This person may not do this."""

    status = 403


class DomainStateError(DomainError):
    """Not allowed in the current state (a match already confirmed, a member already banned)."""

    status = 409


class DomainNotFound(DomainError):
    """No such thing, or not one this person may see."""

    status = 404


class DomainRateLimited(DomainError):
    """Too soon: the same may be tried again in ``retry_after`` seconds (a 429 with
    ``Retry-After``; the message says when, for people)."""

    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


class FieldErrors(dict[str, list[str]]):
    """Messages gathered by field while checking an input, raised together at the end."""

    #: What ``raise_if_any`` raises (an app's own validation error, where it has one).
    error: type[DomainValidationError] = DomainValidationError

    def add(self, key: str, message: str) -> None:
        self.setdefault(key, []).append(message)

    def raise_if_any(self) -> None:
        if self:
            raise self.error(self)
