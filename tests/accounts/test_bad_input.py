"""Requests a visitor can send that once answered 500 (issue 22, item 5): each is a clear
4xx and changes nothing."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.models import ApiToken, User
from tests.factories import PASSWORD

TOKEN_URL = "/api/v1/auth/token/"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/ladders/", "/api/v1/matches/", TOKEN_URL])
def test_a_token_that_is_not_text_is_refused_with_401(client, path):
    response = client.get(path, HTTP_AUTHORIZATION=b"Token \xff\xfe".decode("latin-1"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")


@pytest.mark.django_db
def test_a_revoked_token_is_refused_with_401_and_a_challenge(client, alice):
    _, secret = ApiToken.objects.create(user=alice)
    ApiToken.objects.filter(user=alice).delete()
    response = client.get("/api/v1/ladders/", HTTP_AUTHORIZATION=f"Token {secret}")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")


@pytest.mark.django_db
@pytest.mark.parametrize("length", [151, 256, 5000])
def test_a_long_username_to_the_token_endpoint_is_a_400(client, alice, length):
    response = client.post(
        TOKEN_URL, {"username": "u" * length, "password": "x"}, content_type="application/json"
    )
    assert response.status_code == 400
    assert "username" in response.json()
    assert not AccessAttempt.objects.exists()
    assert not ApiToken.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [reverse("login"), reverse("accounts:signup"), reverse("password_reset")],
)
def test_a_nul_byte_in_a_multipart_field_is_a_400(client, alice, path):
    users = User.objects.count()
    data = {"username": "eve\x00", "email": "eve\x00@example.org", "password": "x\x00"}
    response = client.post(path, data)  # the test client sends multipart/form-data
    assert response.status_code == 400
    assert b"NUL" in response.content
    assert User.objects.count() == users
    assert not AccessAttempt.objects.exists()


# ---- one body limit for every content type (issue 22, item 8) ---------------------------------

LIMIT = 256 * 1024


@pytest.mark.django_db
def test_a_large_multipart_upload_is_refused_before_it_is_read(client, alice):
    upload = SimpleUploadedFile("big.bin", b"x" * (LIMIT + 1))
    response = client.post(
        reverse("login"), {"username": "alice", "password": PASSWORD, "file": upload}
    )
    assert response.status_code == 413
    assert b"larger than 256 KB" in response.content
    assert "_auth_user_id" not in client.session  # the view never ran


@pytest.mark.django_db
@pytest.mark.parametrize(
    "content_type", ["multipart/form-data; boundary=x", "application/json", "text/plain"]
)
def test_the_declared_length_decides_for_every_content_type(client, content_type):
    # 200 MB announced, a few bytes sent: refused from the header alone.
    response = client.generic(
        "POST", reverse("login"), b"--x--", content_type=content_type, CONTENT_LENGTH="209715200"
    )
    assert response.status_code == 413


@pytest.mark.django_db
def test_a_body_without_a_length_is_refused(client):
    response = client.generic(
        "POST",
        "/api/v1/auth/token/",
        b"",
        content_type="application/json",
        HTTP_TRANSFER_ENCODING="chunked",
    )
    assert response.status_code == 411
    assert "Content-Length" in response.json()["detail"]


@pytest.mark.django_db
def test_a_form_under_the_limit_still_works(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)
