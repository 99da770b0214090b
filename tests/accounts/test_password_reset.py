"""Password reset by email: the link works once; a bad link says so and changes nothing."""

from __future__ import annotations

import re

from django.core import mail
from django.urls import reverse

from tests.factories import PASSWORD

NEW = "a-fresh-password-for-alice-31"


def _request_reset(client, email):
    response = client.post(reverse("password_reset"), {"email": email})
    assert response.status_code == 302
    assert response["Location"] == reverse("password_reset_done")


def _link_from_outbox():
    assert len(mail.outbox) == 1
    match = re.search(r"https?://[^/\s]+(/accounts/reset/[^\s]+/)", mail.outbox[0].body)
    assert match, mail.outbox[0].body
    return match.group(1)


def test_reset_pages(client, db):
    assert client.get(reverse("password_reset")).status_code == 200
    assert client.get(reverse("password_reset_done")).status_code == 200
    assert client.get(reverse("password_reset_complete")).status_code == 200


def test_reset_email_has_a_link_that_sets_a_new_password(client, alice):
    _request_reset(client, "Alice@Example.org")  # any case finds the account

    message = mail.outbox[0]
    assert message.to == ["alice@example.org"]
    assert message.subject == "Reset your club ladder password"
    assert "Hello Alice Archer" in message.body
    link = _link_from_outbox()

    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200
    assert form_page.context["validlink"]
    set_url = form_page.redirect_chain[-1][0]
    response = client.post(set_url, {"new_password1": NEW, "new_password2": NEW})
    assert response["Location"] == reverse("password_reset_complete")

    alice.refresh_from_db()
    assert alice.check_password(NEW)
    client.logout()
    login = client.post(reverse("login"), {"username": "alice", "password": NEW})
    assert login.status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)

    # The link works once.
    again = client.get(link, follow=True)
    assert not again.context["validlink"]


def test_unknown_email_sends_nothing_but_says_the_same(client, db):
    _request_reset(client, "nobody@example.org")
    assert mail.outbox == []


def test_bad_token_shows_a_clear_message_and_changes_nothing(client, alice):
    _request_reset(client, "alice@example.org")
    link = _link_from_outbox()
    bad = re.sub(r"/([^/]+)/$", "/not-the-token/", link)

    response = client.get(bad, follow=True)
    assert response.status_code == 200
    assert not response.context["validlink"]
    assert "The password reset link is invalid or has expired" in response.content.decode()

    response = client.post(bad, {"new_password1": NEW, "new_password2": NEW}, follow=True)
    assert "The password reset link is invalid or has expired" in response.content.decode()
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
