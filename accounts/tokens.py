"""API tokens: django-rest-knox's hashed, expiring tokens, one per device or script.

A token is sent as ``Authorization: Token <secret>``. It expires ``API_TOKEN_DAYS`` after it
was made (settings), and a new password ends every token of its member (User.save). The
member sees theirs, and revokes them, on the tokens page (accounts.views.tokens).

Every way a token ends deletes its row (revoking, logging out, a new password, expiry, the
member deleted). Answers ``ladder.pagecache`` keeps for a token go with each deletion and
each change to its member (``core.cache.pages_changed``).
"""

from __future__ import annotations

import binascii
import copy
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.crypto import hash_token
from knox.settings import knox_settings
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication, get_authorization_header

from accounts.models import ApiToken, User
from core.cache import pages_changed

if TYPE_CHECKING:
    from drf_spectacular.openapi import AutoSchema

# Writing last_used on every request would turn each API read into a write; a minute's
# precision is all the tokens page shows.
LAST_USED_PRECISION = timedelta(minutes=1)


def issue_token(user: User, name: str = "") -> tuple[ApiToken, str]:
    """A new token for ``user``: the stored row and the secret, which is never seen again."""
    made: tuple[ApiToken, str] = ApiToken.objects.create(
        user=user, expiry=token_ttl(), name=name.strip()[:60]
    )
    return made


def token_ttl() -> timedelta:
    return timedelta(days=settings.API_TOKEN_DAYS)


def revoke_all(user: User) -> int:
    """End every API token of ``user``; how many there were."""
    count: int = ApiToken.objects.filter(user=user).delete()[0]
    return count


@receiver(post_delete, sender=ApiToken)
def _token_deleted(sender: type, instance: ApiToken, **kwargs: object) -> None:
    pages_changed()


@receiver(post_save, sender=User)
def _member_changed(
    sender: type, instance: User, update_fields: frozenset[str] | None = None, **kwargs: object
) -> None:
    """A kept token carries its member as they were (a login's last_login changes nothing)."""
    if update_fields is not None and set(update_fields) <= {"last_login"}:
        return
    if ApiToken.objects.filter(user=instance).exists():
        pages_changed()


class TokenAuthentication(KnoxTokenAuthentication):
    """knox's token check (hash, expiry, active user), noting when each token was last used."""

    def authenticate_credentials(self, token: bytes) -> tuple[User, ApiToken]:
        try:
            token.decode("utf-8")
        except UnicodeDecodeError:  # knox would fail with a 500: no token of ours is like this
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        member, auth_token = super().authenticate_credentials(token)
        return member, auth_token

    def vouched(self, kept: object, digest: str) -> tuple[User, ApiToken] | None:
        """The member and token of ``kept``, a token the database vouched for a moment ago
        (kept with an answer: ``ladder.pagecache``), if it is the
        token of ``digest``, not expired, and its member active (knox's ``validate_user``,
        AuthenticationFailed otherwise). None: ask the database."""
        if isinstance(kept, ApiToken) and kept.digest == digest and not self._expired(kept):
            return self.validate_user(kept)
        return None

    @staticmethod
    def digest_of(request: Any) -> str | None:  # an HttpRequest; the stubs ask for DRF's
        """The digest of the token in a plain ``Authorization: Token <secret>`` header; None
        for any other header (knox's ``authenticate`` decides what that is worth)."""
        words = get_authorization_header(request).split()
        if len(words) != 2 or words[0].lower() != knox_settings.AUTH_HEADER_PREFIX.lower().encode():
            return None
        try:
            return str(hash_token(words[1].decode("utf-8")))
        except (TypeError, ValueError, binascii.Error):
            return None

    @staticmethod
    def last_use_due(auth_token: ApiToken) -> bool:
        """Whether the token's last use is to be written down (once a minute at most)."""
        last = auth_token.last_used
        return last is None or timezone.now() - last >= LAST_USED_PRECISION

    @staticmethod
    def _expired(auth_token: ApiToken) -> bool:
        return auth_token.expiry is not None and auth_token.expiry < timezone.now()

    @staticmethod
    def snapshot(auth_token: ApiToken) -> ApiToken:
        """A copy of the token and its member to keep on a cache: without the member's
        password hash (a deferred field: read from the database if asked for, left alone by a
        save) nor what was worked out about them on the way (moderator or not)."""
        kept = copy.copy(auth_token)
        member = copy.copy(auth_token.user)
        for name in ("password", "_password", "_is_moderator"):
            member.__dict__.pop(name, None)
        kept._state = copy.copy(auth_token._state)
        kept._state.fields_cache = {"user": member}
        return kept

    def _cleanup_token(self, auth_token: ApiToken) -> bool:
        """knox's clean-up, which reads every token of the member on each request to delete
        the expired ones: this token's own expiry is checked every time, the others only
        when its last use is written down (at most once a minute), the one write an API read
        makes anyway."""
        if self._expired(auth_token) or self.last_use_due(auth_token):
            return bool(super()._cleanup_token(auth_token))
        return False

    def validate_user(self, auth_token: ApiToken) -> tuple[User, ApiToken]:
        user: User
        token: ApiToken
        user, token = super().validate_user(auth_token)
        if self.last_use_due(token):
            now = timezone.now()
            ApiToken.objects.filter(pk=token.pk).update(last_used=now)
            token.last_used = now
        return user, token


class TokenScheme(OpenApiAuthenticationExtension):
    """The API docs' name and description of the token scheme."""

    target_class = TokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, str]:
        prefix = knox_settings.AUTH_HEADER_PREFIX
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": f'Send "Authorization: {prefix} <token>". Get a token from '
            "POST /api/v1/auth/token/ or on your account's API tokens page; it expires after "
            f"{settings.API_TOKEN_DAYS} days and when your password changes.",
        }


# The authentication of every API view. Token first: an anonymous request that needs a user gets 401 with
# "WWW-Authenticate: Token" (session-first would answer 403). Both work either way.
API_AUTHENTICATION = [TokenAuthentication, SessionAuthentication]
