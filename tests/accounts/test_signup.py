"""Sign-up: an account is created and signed in, or nothing is created and the error is clear."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import User

URL = reverse("accounts:signup")
GOOD = {
    "username": "dana",
    "email": "dana@example.org",
    "password1": "a-long-and-unusual-pass-42",
    "password2": "a-long-and-unusual-pass-42",
}


@pytest.mark.django_db
def test_form_page(client):
    response = client.get(URL)
    assert response.status_code == 200
    assert b"Create account" in response.content


@pytest.mark.django_db
def test_signup_creates_the_account_and_signs_in(client):
    response = client.post(URL, GOOD)

    assert response.status_code == 302
    assert response["Location"] == reverse("ladder:list")
    user = User.objects.get(username="dana")
    assert user.email == "dana@example.org"
    assert user.check_password(GOOD["password1"])
    assert not user.is_staff
    assert client.session["_auth_user_id"] == str(user.pk)
    assert client.get(reverse("accounts:profile")).status_code == 200


@pytest.mark.django_db
def test_signup_follows_a_safe_next_only(client):
    join = reverse("ladder:join", args=["singles"])
    response = client.post(f"{URL}?next={join}", {**GOOD, "next": join})
    assert response["Location"] == join

    client.logout()
    response = client.post(
        URL,
        {**GOOD, "username": "eve", "email": "eve@example.org", "next": "https://evil.example/"},
    )
    assert response["Location"] == reverse("ladder:list")


def _assert_refused(client, data, field, message):
    before = User.objects.count()
    response = client.post(URL, data)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert field in errors, errors
    assert message in " ".join(errors[field])
    assert message in response.content.decode()
    assert User.objects.count() == before
    assert "_auth_user_id" not in client.session


def test_taken_username_is_refused(client, alice):
    _assert_refused(
        client,
        {**GOOD, "username": "alice"},
        "username",
        "A user with that username already exists.",
    )


def test_username_differing_only_in_case_is_refused(client, alice):
    _assert_refused(
        client,
        {**GOOD, "username": "Alice"},
        "username",
        "A user with that username already exists.",
    )


def test_taken_email_in_another_case_is_refused(client, alice):
    _assert_refused(
        client,
        {**GOOD, "email": "ALICE@Example.ORG"},
        "email",
        "An account with this email address already exists.",
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("short1", "This password is too short."),
        ("password123", "This password is too common."),
        ("83749201937465", "This password is entirely numeric."),
        ("dana@example.org", "The password is too similar to the email address."),
    ],
)
def test_weak_password_is_refused(client, password, message):
    _assert_refused(
        client, {**GOOD, "password1": password, "password2": password}, "password2", message
    )


@pytest.mark.django_db
def test_mismatched_passwords_are_refused(client):
    _assert_refused(
        client,
        {**GOOD, "password2": GOOD["password1"] + "x"},
        "password2",
        "The two passwords do not match.",
    )


@pytest.mark.django_db
@pytest.mark.parametrize("missing", ["username", "email", "password1", "password2"])
def test_every_field_is_required(client, missing):
    _assert_refused(client, {**GOOD, missing: ""}, missing, "This field is required.")


@pytest.mark.django_db
def test_signed_in_members_are_sent_to_the_ladders(client, outsider):
    client.force_login(outsider)
    assert client.get(URL)["Location"] == reverse("ladder:list")


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_wrong_methods_are_refused(client, method):
    assert getattr(client, method)(URL).status_code == 405
