"""What a match operation raises when it cannot be done: the site's error family
(``core/errors.py``) under the matches app's names, which its callers and tests use."""

from __future__ import annotations

from core import errors


class MatchError(errors.DomainError):
    """A match operation that cannot be done; ``message`` is for people, ``status`` for HTTP."""


class MatchValidationError(MatchError, errors.DomainValidationError):
    """Bad input: ``errors`` maps a field ("games", "played_on", …, "__all__") to messages."""


class MatchPermissionError(MatchError, errors.DomainPermissionError):
    """This user may not do this to this match."""


class MatchStateError(MatchError, errors.DomainStateError):
    """The state machine refuses the transition (including confirming an expired match)."""


class MatchRateLimited(MatchError, errors.DomainRateLimited):
    """Too soon: the same may be tried again in ``retry_after`` seconds (a 429 with
    ``Retry-After`` in the API; the message says when, for people)."""


class ReportKeyReused(MatchError):
    """A report's key (the API's Idempotency-Key) sent again with a different report."""

    status = 422


class FieldErrors(errors.FieldErrors):
    error = MatchValidationError
