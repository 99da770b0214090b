"""The password-reset form takes an e-mail address, not a password: it is rate-limited per
client address and per e-mail address (5 an hour each), on the shared cache."""

from __future__ import annotations

import re

from django.core import mail
from django.urls import reverse

RESET = reverse("password_reset")


def ask(client, email: str, addr: str = "198.51.100.5"):  # type: ignore[no-untyped-def]
    return client.post(RESET, {"email": email}, REMOTE_ADDR=addr)


def test_six_requests_for_one_address_the_sixth_is_refused(client, alice, time_machine):  # type: ignore[no-untyped-def]
    time_machine.move_to("2026-03-02 19:00:00+00:00", tick=False)
    for i in range(5):
        # from five different client addresses: the mailbox is what is protected here
        assert ask(client, "alice@example.org", f"198.51.100.{i}").status_code == 302
    response = ask(client, "Alice@Example.org", "198.51.100.99")
    assert response.status_code == 429
    assert "Too many password-reset requests" in response.content.decode()
    assert len(mail.outbox) == 5
    time_machine.move_to("2026-03-02 20:01:00+00:00", tick=False)
    assert ask(client, "alice@example.org").status_code == 302


def test_one_client_cannot_try_many_addresses(client, alice, time_machine):  # type: ignore[no-untyped-def]
    time_machine.move_to("2026-03-02 19:00:00+00:00", tick=False)
    for i in range(5):
        assert ask(client, f"someone{i}@example.org").status_code == 302
    response = ask(client, "alice@example.org")
    assert response.status_code == 429
    assert not mail.outbox
    # The same message whether or not an account has that address.
    nobody, known = ask(client, "nobody@example.org"), ask(client, "alice@example.org")
    assert nobody.status_code == known.status_code == 429
    assert alert(nobody) == alert(known)


def alert(response) -> str:  # type: ignore[no-untyped-def]
    found = re.search(r'role="alert">([^<]*)<', response.content.decode())
    assert found
    return found.group(1)


def test_another_client_is_not_limited(client, alice):  # type: ignore[no-untyped-def]
    for i in range(6):
        ask(client, f"someone{i}@example.org")
    assert ask(client, "alice@example.org", "192.0.2.200").status_code == 302


def test_the_form_page_is_not_counted(client, db):  # type: ignore[no-untyped-def]
    for _ in range(10):
        assert client.get(RESET).status_code == 200
