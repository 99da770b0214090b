"""Sign-up against an attacker (issue 22, items 1-3): no pre-account takeover, the same work
on every path, limits per client address and per e-mail address, and sign-ups never
confirmed expire and free their username and address."""

from __future__ import annotations

import re

import pytest
import time_machine
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import tasks
from accounts.models import User

URL = reverse("accounts:signup")
TOKEN_URL = "/api/v1/auth/token/"
ATTACKER_PASSWORD = "the-attackers-own-pass-77"
VICTIM_PASSWORD = "the-victims-own-pass-88"


@pytest.fixture
def client(client, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """The test client, each post followed by its after-commit callbacks (the e-mails)."""
    post = client.post

    def committed_post(*args, **kwargs):  # type: ignore[no-untyped-def]
        with django_capture_on_commit_callbacks(execute=True):
            return post(*args, **kwargs)

    client.post = committed_post
    return client


def _signup(client, username: str, email: str, password: str = "", addr: str = "203.0.113.9"):  # type: ignore[no-untyped-def]
    # The password fields are what a sign-up form took before issue 22; they are ignored now.
    data = {
        "display_name": f"{username.title()} (new)",
        "username": username,
        "email": email,
        "password1": password,
        "password2": password,
    }
    return client.post(URL, data, REMOTE_ADDR=addr)


def _last_link() -> str:
    return re.search(r"(/accounts/signup/confirm/\S+/)", mail.outbox[-1].body).group(1)


def _token(client, username: str, password: str) -> int:  # type: ignore[no-untyped-def]
    body = {"username": username, "password": password}
    return client.post(TOKEN_URL, body, content_type="application/json").status_code


@pytest.mark.django_db
def test_an_attacker_who_signs_up_first_with_the_victims_address_gets_nothing(client):
    _signup(client, "mallory", "victim@example.org", ATTACKER_PASSWORD, addr="198.51.100.66")
    _signup(client, "victim", "victim@example.org", VICTIM_PASSWORD)
    link = _last_link()
    assert mail.outbox[-1].to == ["victim@example.org"]

    answer = client.post(link, {"new_password1": VICTIM_PASSWORD, "new_password2": VICTIM_PASSWORD})

    assert answer.status_code == 302
    (account,) = User.objects.filter(email__iexact="victim@example.org")
    assert account.username == "victim" and account.is_active
    assert client.session["_auth_user_id"] == str(account.pk)
    assert account.check_password(VICTIM_PASSWORD)
    assert not account.check_password(ATTACKER_PASSWORD)
    client.logout()
    assert _token(client, "mallory", ATTACKER_PASSWORD) == 400
    assert _token(client, "victim", ATTACKER_PASSWORD) == 400
    assert _token(client, "victim", VICTIM_PASSWORD) == 200


@pytest.mark.django_db
def test_the_attackers_own_link_makes_the_victim_choose_the_password(client):
    """The victim never signs up, but follows the mail the attacker's sign-up sent them."""
    _signup(client, "mallory", "victim@example.org", ATTACKER_PASSWORD)
    client.post(_last_link(), {"new_password1": VICTIM_PASSWORD, "new_password2": VICTIM_PASSWORD})
    account = User.objects.get(email="victim@example.org")
    assert account.is_active and not account.check_password(ATTACKER_PASSWORD)
    client.logout()
    assert _token(client, "mallory", ATTACKER_PASSWORD) == 400


@pytest.mark.django_db
def test_every_path_does_the_same_work_and_sends_one_mail(client, alice):
    """New address, address awaiting confirmation, registered address: one e-mail each, no
    password hashed, and the same queries give or take the one write (and its savepoint)."""
    _signup(client, "dana", "dana@example.org")
    counts = {}
    for path, (username, email) in {
        "new": ("erin", "erin@example.org"),
        "unconfirmed": ("dana_again", "dana@example.org"),
        "registered": ("frank", "alice@example.org"),
    }.items():
        mail.outbox.clear()
        with CaptureQueriesContext(connection) as queries:
            response = _signup(client, username, email)
        assert response.status_code == 302 and response["Location"] == reverse(
            "accounts:signup_sent"
        )
        assert len(mail.outbox) == 1, path
        counts[path] = len(queries)
    assert max(counts.values()) - min(counts.values()) <= 2, counts


@pytest.mark.django_db
def test_one_address_gets_at_most_three_mails_an_hour(client, time_machine):
    time_machine.move_to("2026-03-02 19:00:00+00:00", tick=False)
    answers = [
        _signup(client, f"dana{i}", "dana@example.org", addr=f"198.51.100.{i}").status_code
        for i in range(30)
    ]
    assert answers[:3] == [302, 302, 302]
    assert set(answers[3:]) == {429}
    assert len(mail.outbox) == 3
    time_machine.move_to("2026-03-02 20:01:00+00:00", tick=False)
    assert _signup(client, "dana", "dana@example.org").status_code == 302


@pytest.mark.django_db
def test_one_client_address_can_sign_up_twenty_times_an_hour(client, time_machine):
    time_machine.move_to("2026-03-02 19:00:00+00:00", tick=False)
    for i in range(20):
        assert _signup(client, f"member{i}", f"member{i}@example.org").status_code == 302
    refused = _signup(client, "member20", "member20@example.org")
    assert refused.status_code == 429
    assert "Too many sign-ups" in refused.content.decode()
    assert not User.objects.filter(username="member20").exists()
    assert len(mail.outbox) == 20


@pytest.mark.django_db
def test_an_unconfirmed_sign_up_expires_and_frees_its_name_and_address(client):
    _signup(client, "mallory", "victim@example.org")
    later = timezone.now() + timezone.timedelta(days=3, minutes=1)
    with time_machine.travel(later):
        assert tasks.purge_unconfirmed() == 1
    assert not User.objects.filter(username="mallory").exists()
    assert _signup(client, "mallory", "mallory@example.org").status_code == 302
    assert User.objects.filter(username="mallory", email="mallory@example.org").exists()


@pytest.mark.django_db
def test_a_sign_up_purges_expired_ones_first(client, alice):
    _signup(client, "squatter", "someone@example.org")
    active = User.objects.get(username="alice")
    with time_machine.travel(timezone.now() + timezone.timedelta(days=3, minutes=1)):
        _signup(client, "squatter", "owner@example.org")
    assert User.objects.get(username="squatter").email == "owner@example.org"
    assert User.objects.filter(pk=active.pk).exists()  # confirmed accounts never expire


@pytest.mark.django_db
def test_the_purge_is_scheduled():
    from django.conf import settings

    tasks_scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "accounts.tasks.purge_unconfirmed" in tasks_scheduled
