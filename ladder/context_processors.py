"""Values every page needs."""

from __future__ import annotations

from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    return {
        "is_moderator": bool(user and user.is_authenticated and user.is_moderator),
    }
