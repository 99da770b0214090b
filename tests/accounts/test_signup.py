"""Sign-up: an inactive account and a link that activates it once, or nothing is created and
the error is clear; a taken e-mail address gets the same answer as a new one (issue 15).
The password is chosen on the link's page, by whoever owns the address (issue 22)."""

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
GOOD = {"display_name": "Dana Scully", "username": "dana", "email": "dana@example.org"}
PASSWORD = "a-long-and-unusual-pass-42"
CHOSEN = {"new_password1": PASSWORD, "new_password2": PASSWORD}


@pytest.fixture
def client(client, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """The test client, each post followed by its after-commit callbacks (the e-mails go to
    the task queue once a sign-up commits), as a real commit would."""
    post = client.post

    def committed_post(*args, **kwargs):  # type: ignore[no-untyped-def]
        with django_capture_on_commit_callbacks(execute=True):
            return post(*args, **kwargs)

    client.post = committed_post
    return client


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
    assert not user.has_usable_password() and user.awaiting_confirmation
    assert not user.is_active and not user.is_staff
    assert "_auth_user_id" not in client.session
    assert "dana@example.org" in client.get(response["Location"]).content.decode()
    assert mail.outbox[0].to == ["dana@example.org"]
    link = _link()

    page = client.get(link)  # opening the link (or a mail scanner doing so) changes nothing
    assert page.status_code == 200 and b"Confirm my account" in page.content
    assert b"new_password1" in page.content
    assert not User.objects.get(pk=user.pk).is_active

    response = client.post(link, CHOSEN)
    assert response["Location"] == reverse("ladder:list")
    user.refresh_from_db()
    assert user.is_active and not user.awaiting_confirmation
    assert user.check_password(PASSWORD)
    assert client.session["_auth_user_id"] == str(user.pk)
    assert client.get(reverse("profile")).status_code == 200

    client.logout()
    again = client.post(link, CHOSEN)
    assert again.status_code == 400 and b"used already" in again.content
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_an_unconfirmed_account_cannot_log_in_and_a_probe_learns_nothing(client):
    """Issue 22: the hint (with a masked address) came for any password, so anyone could
    tell who signed up and did not confirm. A sign-up has no password before its link, so
    every failed log-in now reads the same: an unknown name, a wrong password, a sign-up."""
    client.post(URL, GOOD)

    def login_page(username: str, password: str) -> str:
        response = client.post(reverse("login"), {"username": username, "password": password})
        assert response.status_code == 200 and "_auth_user_id" not in client.session
        page = html.unescape(response.content.decode())
        return page[page.index('role="alert"') :].split("</div>", 1)[0]

    signed_up = login_page("dana", PASSWORD)
    assert signed_up == login_page("dana", "anything-else-at-all")
    assert signed_up == login_page("nobody-of-that-name", PASSWORD)
    assert "do not match an account" in signed_up
    assert "Follow the link we e-mailed you first" in signed_up
    assert "•" not in signed_up and "example.org" not in signed_up
    # Confirmed (the password chosen on the link's page), the login works.
    client.post(_link(), CHOSEN)
    client.logout()
    client.post(reverse("login"), {"username": "dana", "password": PASSWORD})
    assert client.session["_auth_user_id"] == str(User.objects.get(username="dana").pk)


@pytest.mark.django_db
def test_the_unconfirmed_hint_needs_the_accounts_own_password(client):
    """An account waiting for its link that has a password (set before sign-ups chose it on
    the link's page) hears why it cannot log in only with that password."""
    client.post(URL, GOOD)
    user = User.objects.get(username="dana")
    user.set_password(PASSWORD)
    user.save(update_fields=["password"])

    right = client.post(reverse("login"), {"username": "dana", "password": PASSWORD})
    page = html.unescape(right.content.decode())
    assert (
        "Your account is not confirmed yet: follow the link we e-mailed to d•••@example.org" in page
    )
    assert "do not match an account" not in page
    wrong = client.post(reverse("login"), {"username": "dana", "password": "not-" + PASSWORD})
    page = html.unescape(wrong.content.decode())
    assert "do not match an account" in page and "•" not in page
    assert "_auth_user_id" not in client.session


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
        expired = client.post(link, CHOSEN)
    assert expired.status_code == 400 and b"expired" in expired.content
    broken = client.post(link[:-5] + "xxxx/", CHOSEN)
    assert broken.status_code == 400 and b"not valid" in broken.content
    assert not User.objects.get(username="dana").is_active


@pytest.mark.django_db
def test_a_switched_off_account_cannot_be_switched_on_by_an_old_link(client):
    client.post(URL, GOOD)
    link = _link()
    client.post(link, CHOSEN)
    user = User.objects.get(username="dana")
    user.is_active = False  # a moderator switched the account off
    user.save()
    client.logout()
    assert client.post(link, CHOSEN).status_code == 400
    assert not User.objects.get(pk=user.pk).is_active


@pytest.mark.django_db
def test_signup_follows_a_safe_next_only(client):
    join = reverse("ladder:join", args=["singles"])
    client.post(f"{URL}?next={join}", {**GOOD, "next": join})
    assert client.post(_link(), CHOSEN)["Location"] == join

    client.logout()
    mail.outbox.clear()
    client.post(
        URL,
        {
            **GOOD,
            "display_name": "Eve Example",
            "username": "eve",
            "email": "eve@example.org",
            "next": "https://evil.example/",
        },
    )
    assert client.post(_link(), CHOSEN)["Location"] == reverse("ladder:list")


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
    other = {"display_name": "Dana Two", "username": "dana2", "email": "ALICE@Example.ORG"}
    taken = client.post(URL, other)
    assert taken.status_code == new.status_code == 302
    assert taken["Location"] == new["Location"]
    assert User.objects.count() == before
    assert "_auth_user_id" not in client.session
    (note,) = mail.outbox
    assert note.to == [alice.email]
    assert "already belongs to your account" in note.body and "/accounts/signup/" not in note.body


def test_signing_up_again_before_confirming_mails_a_fresh_link_for_the_new_name(client, db):
    client.post(URL, GOOD)
    mail.outbox.clear()
    client.post(URL, {**GOOD, "username": "dana2"})
    assert User.objects.filter(email="dana@example.org").count() == 1
    assert "dana2" in mail.outbox[0].body
    client.post(_link(), CHOSEN)
    assert User.objects.get(username="dana2").is_active
    assert not User.objects.filter(username="dana").exists()


def test_signing_up_again_with_the_same_name_is_not_refused(client, db):
    client.post(URL, GOOD)
    mail.outbox.clear()
    assert client.post(URL, GOOD).status_code == 302
    assert User.objects.filter(username="dana").count() == 1
    assert len(mail.outbox) == 1


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
def test_weak_password_is_refused_on_the_confirmation_page(client, password, message):
    client.post(URL, GOOD)
    response = client.post(_link(), {"new_password1": password, "new_password2": password})
    assert response.status_code == 200
    assert message in " ".join(response.context["form"].errors["new_password2"])
    assert message in response.content.decode()
    user = User.objects.get(username="dana")
    assert not user.is_active and not user.has_usable_password()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_mismatched_passwords_are_refused(client):
    client.post(URL, GOOD)
    response = client.post(_link(), {"new_password1": PASSWORD, "new_password2": PASSWORD + "x"})
    assert "The two passwords do not match." in response.content.decode()
    assert not User.objects.get(username="dana").is_active


@pytest.mark.django_db
@pytest.mark.parametrize("missing", ["display_name", "username", "email"])
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
    client.post(_link(), CHOSEN)
    assert "Welcome, Dana Scully!" in client.get(reverse("ladder:list")).content.decode()


@pytest.mark.django_db
def test_a_name_is_required_at_sign_up(client):
    _assert_refused(
        client, {**GOOD, "display_name": "  "}, "display_name", "This field is required."
    )


@pytest.mark.django_db
def test_a_name_that_reads_like_another_members_is_refused(client, alice):
    """User.clean's rule (accounts.names) holds at sign-up too, before any account exists."""
    alice.display_name = "Dana Scully"
    alice.save()
    _assert_refused(
        client,
        {**GOOD, "display_name": "dana scully"},
        "display_name",
        "Another member is already shown as",
    )


@pytest.mark.django_db
def test_the_sign_up_mail_greets_the_display_name(client):
    """Issue 37.6: "Hello Dana Scully," (the username still names the account)."""
    client.post(URL, GOOD)
    (message,) = mail.outbox
    assert message.body.startswith("Hello Dana Scully,\n")
    assert 'your account "dana"' in message.body
