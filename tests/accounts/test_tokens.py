"""API tokens (issue 15 #3): hashed, expiring, one per device; a new password ends them all;
the member sees and revokes theirs on a page; the endpoint is in the API docs."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.tokens import issue_token
from tests.factories import PASSWORD, login

TOKEN_URL = "/api/v1/auth/token/"
INBOX = "/api/v1/inbox/"
NEW = "a-fresh-password-for-alice-31"


@pytest.fixture(autouse=True)
def _no_throttle_history():
    cache.clear()


def _get_token(username="alice", password=PASSWORD, **extra):
    return APIClient().post(
        TOKEN_URL, {"username": username, "password": password, **extra}, format="json"
    )


def _as(token):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_a_token_is_made_stored_hashed_and_works(alice):
    response = _get_token(name="laptop")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"token", "expiry", "name"} and body["name"] == "laptop"
    stored = ApiToken.objects.get(user=alice)
    assert body["token"] not in (stored.digest, stored.token_key)  # only a hash is kept
    assert _as(body["token"]).get(INBOX).status_code == 200
    stored.refresh_from_db()
    assert stored.last_used is not None


def test_each_call_makes_another_token_and_each_works(alice):
    first, second = _get_token().json()["token"], _get_token().json()["token"]
    assert first != second
    assert ApiToken.objects.filter(user=alice).count() == 2
    assert _as(first).get(INBOX).status_code == 200
    assert _as(second).get(INBOX).status_code == 200


def test_a_token_expires_after_the_setting(alice, settings):
    made = timezone.now()
    token = _get_token().json()["token"]
    stored = ApiToken.objects.get(user=alice)
    assert abs(stored.expiry - (made + timedelta(days=settings.API_TOKEN_DAYS))) < timedelta(
        minutes=1
    )
    with time_machine.travel(made + timedelta(days=settings.API_TOKEN_DAYS, minutes=1)):
        response = _as(token).get(INBOX)
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid token."}
    assert not ApiToken.objects.filter(user=alice).exists()  # an expired token is deleted


def test_a_wrong_password_gets_no_token(alice):
    response = _get_token(password="nope")
    assert response.status_code == 400
    assert "non_field_errors" in response.json()
    assert not ApiToken.objects.exists()


def test_delete_revokes_the_token_sent(alice):
    keep, drop = _get_token().json()["token"], _get_token().json()["token"]
    assert _as(drop).delete(TOKEN_URL).status_code == 204
    assert _as(drop).get(INBOX).status_code == 401
    assert _as(keep).get(INBOX).status_code == 200
    assert APIClient().delete(TOKEN_URL).status_code == 401


def test_a_member_holds_a_bounded_number_of_tokens(alice, settings):
    settings.REST_KNOX = {**settings.REST_KNOX, "TOKEN_LIMIT_PER_USER": 2}
    _get_token(), _get_token()
    response = _get_token()
    assert response.status_code == 403
    assert "revoke one" in response.json()["detail"]


# ---- rotation: a new password ends every token --------------------------------------------


def test_changing_the_password_ends_every_token(alice, client):
    tokens = [_get_token().json()["token"] for _ in range(2)]
    login(client, alice)
    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW},
    )
    assert response.status_code == 302
    for token in tokens:
        assert _as(token).get(INBOX).status_code == 401
    assert not ApiToken.objects.filter(user=alice).exists()
    assert _get_token(password=NEW).status_code == 200  # a new one with the new password


def test_resetting_the_password_ends_every_token(alice, client):
    token = _get_token().json()["token"]
    client.post(reverse("password_reset"), {"email": alice.email})
    link = re.search(r"https?://[^/\s]+(/accounts/reset/[^\s]+/)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    response = client.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})
    assert response.status_code == 302
    assert _as(token).get(INBOX).status_code == 401


def test_saving_the_user_otherwise_keeps_the_tokens(alice):
    token = _get_token().json()["token"]
    alice.display_name = "Alice A."
    alice.save()
    assert _as(token).get(INBOX).status_code == 200


def test_an_unusable_password_ends_the_tokens_too(alice):
    token = _get_token().json()["token"]
    alice.set_unusable_password()
    alice.save()
    assert _as(token).get(INBOX).status_code == 401


# ---- the page -------------------------------------------------------------------------------


def test_the_tokens_page_lists_mine_without_secrets(alice, bob, client):
    _, mine = issue_token(alice, "results script")
    _, theirs = issue_token(bob, "bob's phone")
    page = login(client, alice).get(reverse("accounts:tokens")).content.decode()
    assert "results script" in page and "never" in page  # not used yet
    assert "bob&#x27;s phone" not in page and "phone" not in page
    assert mine not in page and mine[:15] not in page  # neither the secret nor its key
    assert "Expires" in page


def test_the_tokens_page_needs_a_login(client, db):
    response = client.get(reverse("accounts:tokens"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_making_a_token_on_the_page_shows_its_secret_once(alice, client):
    login(client, alice)
    response = client.post(reverse("accounts:tokens"), {"name": "phone"})
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    secret = re.search(r'<code id="new-token">([^<]+)</code>', response.content.decode()).group(1)
    assert _as(secret).get(INBOX).status_code == 200
    assert secret not in client.get(reverse("accounts:tokens")).content.decode()


def test_revoking_a_token_on_the_page(alice, bob, client):
    token, secret = issue_token(alice, "old laptop")
    other, other_secret = issue_token(bob, "bob")
    login(client, alice)
    # Someone else's token is not yours to revoke.
    client.post(reverse("accounts:tokens"), {"revoke": other.digest})
    assert _as(other_secret).get(INBOX).status_code == 200
    response = client.post(reverse("accounts:tokens"), {"revoke": token.digest}, follow=True)
    assert "Token revoked" in response.content.decode()
    assert _as(secret).get(INBOX).status_code == 401


def test_revoking_all_on_the_page(alice, client):
    secrets = [issue_token(alice, f"t{i}")[1] for i in range(3)]
    login(client, alice)
    response = client.post(reverse("accounts:tokens"), {"revoke_all": "1"}, follow=True)
    assert "Revoked all your API tokens (3)" in response.content.decode()
    assert all(_as(s).get(INBOX).status_code == 401 for s in secrets)


def test_the_page_refuses_a_post_without_csrf(alice):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    token, _ = issue_token(alice)
    assert client.post(reverse("accounts:tokens"), {"revoke": token.digest}).status_code == 403
    assert ApiToken.objects.filter(pk=token.pk).exists()


# ---- documented ---------------------------------------------------------------------------


def test_the_token_endpoint_is_documented_with_an_example(client, db):
    schema = client.get("/api/schema/?format=json").json()
    post = schema["paths"]["/api/v1/auth/token/"]["post"]
    assert "expires" in post["description"]
    examples = post["requestBody"]["content"]["application/json"]["examples"]
    assert any("username" in e["value"] for e in examples.values())
    assert "examples" in post["responses"]["200"]["content"]["application/json"]
    assert "delete" in schema["paths"]["/api/v1/auth/token/"]
    scheme = schema["components"]["securitySchemes"]["tokenAuth"]
    assert scheme["in"] == "header" and "Token" in scheme["description"]
