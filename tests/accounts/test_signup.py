"""Sign-up: an inactive account and a link that activates it once, or nothing is created and
the error is clear; a taken e-mail address gets the same answer as a new one (issue 15)."""

from __future__ import annotations

import html
import re

import pytest
import time_machine
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from accounts.models import User

URL = reverse("accounts:signup")
GOOD = {
    "display_name": "Dana Scully",
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


def _link() -> str:
    (message,) = mail.outbox
    return re.search(r"https?://\S+(/accounts/signup/confirm/\S+/)", message.body).group(1)


@pytest.mark.django_db
def test_signup_mails_a_link_that_activates_the_account_once(client):
    response = client.post(URL, GOOD)

    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:signup_sent")
    user = User.objects.get(username="dana")
    assert user.email == "dana@example.org"
    assert user.check_password(GOOD["password1"])
    assert not user.is_active and not user.is_staff
    assert "_auth_user_id" not in client.session
    assert "dana@example.org" in client.get(response["Location"]).content.decode()
    assert mail.outbox[0].to == ["dana@example.org"]
    link = _link()

    page = client.get(link)  # opening the link (or a mail scanner doing so) changes nothing
    assert page.status_code == 200 and b"Confirm my account" in page.content
    assert not User.objects.get(pk=user.pk).is_active

    response = client.post(link)
    assert response["Location"] == reverse("ladder:list")
    assert User.objects.get(pk=user.pk).is_active
    assert client.session["_auth_user_id"] == str(user.pk)
    assert client.get(reverse("profile")).status_code == 200

    client.logout()
    again = client.post(link)
    assert again.status_code == 400 and b"used already" in again.content
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_an_unconfirmed_account_cannot_log_in(client):
    client.post(URL, GOOD)
    response = client.post(reverse("login"), {"username": "dana", "password": GOOD["password1"]})
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session
    # Issue 23, bug 5: it said "That username and password do not match an account".
    page = html.unescape(response.content.decode())
    assert (
        "Your account is not confirmed yet: follow the link we e-mailed to d\u2022\u2022\u2022@example.org"
        in page
    )
    assert "do not match an account" not in page
    # A wrong password learns nothing about the account.
    response = client.post(reverse("login"), {"username": "dana", "password": "not-it-at-all"})
    page = html.unescape(response.content.decode())
    assert "do not match an account" in page and "not confirmed" not in page
    # Confirmed, the same login works.
    client.post(_link())
    client.logout()
    client.post(reverse("login"), {"username": "dana", "password": GOOD["password1"]})
    assert client.session["_auth_user_id"] == str(User.objects.get(username="dana").pk)


@pytest.mark.django_db
def test_e_mail_links_use_the_sites_address(client, settings):
    """Issue 23, bug 5: links pointed to port 8000 whatever the site ran on: SITE_URL is
    the one source of every mailed link."""
    settings.SITE_URL = "https://ladder.example.org:8443"
    client.post(URL, GOOD)
    (message,) = mail.outbox
    assert "https://ladder.example.org:8443/accounts/signup/confirm/" in message.body
    assert "127.0.0.1" not in message.body


@pytest.mark.django_db
def test_a_link_expires_and_a_broken_one_is_refused(client):
    client.post(URL, GOOD)
    link = _link()
    with time_machine.travel(timezone.now() + timezone.timedelta(days=3, minutes=1)):
        expired = client.post(link)
    assert expired.status_code == 400 and b"expired" in expired.content
    broken = client.post(link[:-5] + "xxxx/")
    assert broken.status_code == 400 and b"not valid" in broken.content
    assert not User.objects.get(username="dana").is_active


@pytest.mark.django_db
def test_a_switched_off_account_cannot_be_switched_on_by_an_old_link(client):
    client.post(URL, GOOD)
    link = _link()
    client.post(link)
    user = User.objects.get(username="dana")
    user.is_active = False  # a moderator switched the account off
    user.save()
    client.logout()
    assert client.post(link).status_code == 400
    assert not User.objects.get(pk=user.pk).is_active


@pytest.mark.django_db
def test_signup_follows_a_safe_next_only(client):
    join = reverse("ladder:join", args=["singles"])
    client.post(f"{URL}?next={join}", {**GOOD, "next": join})
    assert client.post(_link())["Location"] == join

    client.logout()
    mail.outbox.clear()
    client.post(
        URL,
        {**GOOD, "username": "eve", "email": "eve@example.org", "next": "https://evil.example/"},
    )
    assert client.post(_link())["Location"] == reverse("ladder:list")


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


def test_a_taken_address_gets_the_same_answer_and_its_owner_a_note(client, alice):
    """Whether an address has an account is never shown: the same redirect and page; no
    second account; the owner is told by e-mail."""
    new = client.post(URL, GOOD)
    client.session.flush()
    mail.outbox.clear()
    before = User.objects.count()
    taken = client.post(URL, {**GOOD, "username": "dana2", "email": "ALICE@Example.ORG"})
    assert taken.status_code == new.status_code == 302
    assert taken["Location"] == new["Location"]
    assert User.objects.count() == before
    assert "_auth_user_id" not in client.session
    (note,) = mail.outbox
    assert note.to == [alice.email]
    assert "already belongs to your account" in note.body and "/accounts/signup/" not in note.body


def test_signing_up_again_before_confirming_mails_a_fresh_link(client, db):
    client.post(URL, GOOD)
    mail.outbox.clear()
    client.post(URL, {**GOOD, "username": "dana2"})
    assert User.objects.filter(email="dana@example.org").count() == 1
    assert "still waiting" in mail.outbox[0].body
    client.post(_link())
    assert User.objects.get(username="dana").is_active
    assert not User.objects.filter(username="dana2").exists()


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
@pytest.mark.parametrize("missing", ["display_name", "username", "email", "password1", "password2"])
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


@pytest.mark.django_db
def test_the_name_given_at_sign_up_is_the_members_name(client):
    """Issue 23: members were "newbie" until they found the profile page."""
    client.post(URL, GOOD)
    dana = User.objects.get(username="dana")
    assert (dana.display_name, dana.name) == ("Dana Scully", "Dana Scully")
    client.post(_link())
    assert "Welcome, Dana Scully!" in client.get(reverse("ladder:list")).content.decode()


@pytest.mark.django_db
def test_a_name_is_required_at_sign_up(client):
    _assert_refused(
        client, {**GOOD, "display_name": "  "}, "display_name", "This field is required."
    )
