"""API tokens: django-rest-knox's hashed, expiring tokens, one per device or script.

A token is sent as ``Authorization: Token <secret>``. It expires ``API_TOKEN_DAYS`` after it
was made (settings), and a new password ends every token of its member (User.save). The
member sees theirs, and revokes them, on the tokens page (accounts.views.tokens).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.settings import knox_settings
from rest_framework.authentication import SessionAuthentication

from accounts.models import ApiToken, User

# Writing last_used on every request would turn each API read into a write; a minute's
# precision is all the tokens page shows.
LAST_USED_PRECISION = timedelta(minutes=1)


def issue_token(user: User, name: str = "") -> tuple[ApiToken, str]:
    """A new token for ``user``: the stored row and the secret, which is never seen again."""
    return ApiToken.objects.create(user=user, expiry=token_ttl(), name=name.strip()[:60])


def token_ttl() -> timedelta:
    return timedelta(days=settings.API_TOKEN_DAYS)


def revoke_all(user: User) -> int:
    """End every API token of ``user``; how many there were."""
    count, _ = ApiToken.objects.filter(user=user).delete()
    return count


class TokenAuthentication(KnoxTokenAuthentication):
    """knox's token check (hash, expiry, active user), noting when each token was last used."""

    def _cleanup_token(self, auth_token: Any) -> bool:
        """knox's clean-up, which reads every token of the member on each request to delete
        the expired ones: this token's own expiry is checked every time, the others only
        when its last use is written down (at most once a minute), the one write an API read
        makes anyway."""
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            return bool(super()._cleanup_token(auth_token))
        last = auth_token.last_used
        if last is None or timezone.now() - last >= LAST_USED_PRECISION:
            return bool(super()._cleanup_token(auth_token))
        return False

    def validate_user(self, auth_token: Any) -> tuple[Any, Any]:
        user, token = super().validate_user(auth_token)
        now = timezone.now()
        if token.last_used is None or now - token.last_used >= LAST_USED_PRECISION:
            ApiToken.objects.filter(pk=token.pk).update(last_used=now)
            token.last_used = now
        return user, token


class TokenScheme(OpenApiAuthenticationExtension):
    """The API docs' name and description of the token scheme."""

    target_class = TokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
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
