"""The API's token endpoint: POST a username and password for a new token, DELETE to end
the token you sent. Tokens themselves live in accounts/tokens.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.contrib.auth.signals import user_logged_in
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from knox.settings import knox_settings
from rest_framework import permissions, serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import ApiToken
from accounts.security import ScopedRateThrottle
from accounts.tokens import TokenAuthentication, issue_token
from core.api_support import InputSerializer

if TYPE_CHECKING:
    from rest_framework.permissions import _SupportsHasPermission  # the stubs' own


class TokenRequestSerializer(InputSerializer, AuthTokenSerializer):
    # Usernames are at most 150 characters (the web login form's limit): a longer one is no
    # account's, and is refused before any password is checked or any attempt written down.
    username = serializers.CharField(
        label="Username",
        max_length=150,
        write_only=True,  # User.username's max_length
    )
    name = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=60,
        help_text='Which device or script the token is for, e.g. "results script"; '
        "shown on your API tokens page.",
    )


class TokenResponseSerializer(serializers.Serializer):
    token = serializers.CharField(
        help_text='The secret: send it as "Authorization: Token <token>". Shown only now.'
    )
    expiry = serializers.DateTimeField(help_text="When it stops working.")
    name = serializers.CharField()


EXAMPLE_TOKEN = "3f9c1e0a7b2d4c8e9f6a5b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e"


class TokenView(APIView):
    """API tokens: one per device or script, expiring, ended by a password change."""

    authentication_classes = [TokenAuthentication]
    permission_classes = [permissions.AllowAny]
    # Password guessing is stopped by the lockout and its caps (django-axes with
    # accounts.security.LoginGuard), which answer 429 themselves; this throttle bounds every
    # request, right or wrong, per client address ("token" in DEFAULT_THROTTLE_RATES).
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "token"

    def get_permissions(self) -> Sequence[_SupportsHasPermission]:
        if self.request.method == "DELETE":
            return [permissions.IsAuthenticated()]
        return super().get_permissions()

    @extend_schema(
        summary="Get an API token",
        description="Exchange your username and password for a new API token. Send it on "
        'every request as "Authorization: Token <token>". Each call makes a new token '
        "(one per device or script); it expires after `expiry` (API_TOKEN_DAYS, 30 days "
        "by default) and when your password changes or is reset. The secret is in this "
        "answer only: the site keeps a hash. See and revoke your tokens under "
        "Profile → API tokens (/accounts/tokens/).",
        request=TokenRequestSerializer,
        responses={
            200: TokenResponseSerializer,
            400: OpenApiResponse(
                description='Wrong username or password: {"non_field_errors": '
                '["Unable to log in with provided credentials."]}'
            ),
            403: OpenApiResponse(description="You hold the most tokens allowed: revoke one."),
        },
        examples=[
            OpenApiExample(
                "Log in",
                request_only=True,
                value={"username": "alice", "password": "correct horse", "name": "laptop"},
            ),
            OpenApiExample(
                "A new token",
                response_only=True,
                value={
                    "token": EXAMPLE_TOKEN,
                    "expiry": "2025-07-01T18:30:00+01:00",
                    "name": "laptop",
                },
            ),
        ],
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = TokenRequestSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        user = data.validated_data["user"]
        limit = self._limit()
        if limit is not None and ApiToken.objects.filter(user=user).live().count() >= limit:
            raise PermissionDenied(
                f"You hold {limit} API tokens, the most allowed: revoke one on your "
                "API tokens page first."
            )
        token, secret = issue_token(user, data.validated_data.get("name", ""))
        user_logged_in.send(sender=user.__class__, request=request, user=user)
        body = {"token": secret, "expiry": token.expiry, "name": token.name}
        return Response(TokenResponseSerializer(body).data)

    @extend_schema(
        summary="Revoke the token you sent",
        description="Ends the token in this request's Authorization header (log out).",
        request=None,
        responses={204: None, 401: OpenApiResponse(description="No valid token sent.")},
    )
    def delete(self, request: Request) -> Response:
        if not isinstance(request.auth, ApiToken):
            raise PermissionDenied("Send the token to revoke in the Authorization header.")
        request.auth.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)

    @staticmethod
    def _limit() -> int | None:
        limit = knox_settings.TOKEN_LIMIT_PER_USER
        return int(limit) if limit is not None else None
