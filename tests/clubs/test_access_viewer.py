"""The viewer of a request (ladder.clubs.access.viewer_for): built once per request and user."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from accounts.models import ApiToken
from accounts.tokens import API_AUTHENTICATION
from ladder.clubs.access import VISITOR, Viewer, viewer_for


def test_a_viewer_is_built_once_per_request_and_user(alice, mod) -> None:  # type: ignore[no-untyped-def]
    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    assert viewer_for(request) is VISITOR
    request.user = alice
    first = viewer_for(request)
    assert first == Viewer(user_id=alice.pk, username="alice")
    assert viewer_for(request) is first  # kept on the request
    request.user = mod
    assert viewer_for(request).moderator and viewer_for(request).sees_everyone


def test_a_token_client_is_told_apart(alice) -> None:  # type: ignore[no-untyped-def]
    _, secret = ApiToken.objects.create(user=alice)
    raw = APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Token {secret}")
    request = Request(raw, authenticators=[cls() for cls in API_AUTHENTICATION])
    viewer = viewer_for(request)
    assert viewer.user_id == alice.pk and viewer.token and not viewer.sees_everyone
