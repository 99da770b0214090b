"""Guessing from many addresses (issue 22, item 9): an account takes at most 100 failures an
hour from all addresses together, a client address at most 50 across all accounts, and the
token endpoint is throttled; a browser that signed in before (its device cookie) keeps its
own allowance, so the caps cannot lock the owner out."""

from __future__ import annotations

from axes.models import AccessFailureLog
from django.conf import settings
from django.core import signing
from django.test import Client
from django.urls import reverse

from accounts import tasks
from accounts.models import ApiToken
from accounts.security import DEVICE_COOKIE
from tests.factories import PASSWORD

LOGIN = reverse("login")
TOKEN_URL = "/api/v1/auth/token/"
OWNER_ADDRESS = "192.0.2.10"


def login(client: Client, username: str, password: str, addr: str):  # type: ignore[no-untyped-def]
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=addr)


def token(client: Client, username: str, password: str, addr: str):  # type: ignore[no-untyped-def]
    body = {"username": username, "password": password}
    return client.post(TOKEN_URL, body, content_type="application/json", REMOTE_ADDR=addr)


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_the_caps(db) -> None:
    assert settings.LOGIN_ACCOUNT_FAILURE_LIMIT == 100
    assert settings.LOGIN_ADDRESS_FAILURE_LIMIT == 50


def test_a_hundred_addresses_cannot_open_the_account_but_the_owners_browser_can(alice):
    owner = Client()
    assert login(owner, "alice", PASSWORD, OWNER_ADDRESS).status_code == 302
    assert owner.cookies[DEVICE_COOKIE]["httponly"]
    owner.post(reverse("logout"))

    attacker = Client()
    for i in range(100):
        response = login(attacker, "alice", f"guess-{i}", f"198.51.{i // 200}.{i % 200 + 1}")
        assert response.status_code == 200, i  # each address far below its own lockout

    newcomer = Client()
    refused = login(newcomer, "alice", PASSWORD, "203.0.113.200")
    assert refused.status_code == 429 and not signed_in(newcomer)
    assert "paused here for 60 minutes" in refused.content.decode()
    assert token(newcomer, "alice", PASSWORD, "203.0.113.201").status_code == 429
    assert not ApiToken.objects.exists()

    # The owner's browser: its device cookie vouches for alice, from home or anywhere.
    assert login(owner, "alice", PASSWORD, OWNER_ADDRESS).status_code == 302
    assert signed_in(owner)
    owner.post(reverse("logout"))
    assert login(owner, "alice", PASSWORD, "203.0.113.202").status_code == 302


def test_ninety_nine_failures_leave_the_account_open(alice):
    attacker = Client()
    for i in range(99):
        login(attacker, "alice", f"guess-{i}", f"198.51.100.{i + 1}")
    assert login(Client(), "alice", PASSWORD, "203.0.113.200").status_code == 302


def test_a_forged_or_other_accounts_device_cookie_does_not_lift_the_cap(alice, bob):
    for i in range(100):
        login(Client(), "alice", f"guess-{i}", f"198.51.{i // 200}.{i % 200 + 1}")
    forged = Client()
    forged.cookies[DEVICE_COOKIE] = "alice"
    assert login(forged, "alice", PASSWORD, "203.0.113.7").status_code == 429
    bobs = Client()
    assert login(bobs, "bob", PASSWORD, "203.0.113.8").status_code == 302
    bobs.post(reverse("logout"))
    assert login(bobs, "alice", PASSWORD, "203.0.113.8").status_code == 429
    # Signed with another salt (another site's cookie, say): not ours.
    other = Client()
    other.cookies[DEVICE_COOKIE] = signing.get_cookie_signer(salt=DEVICE_COOKIE + "x").sign("alice")
    assert login(other, "alice", PASSWORD, "203.0.113.9").status_code == 429


def test_one_address_spraying_many_accounts_is_capped(alice, bob, charlie):
    sprayer = Client()
    for i in range(50):
        username = ["alice", "bob", "charlie", f"nobody{i}"][i % 4]
        assert login(sprayer, username, "Summer2026!", "198.51.100.66").status_code == 200, i
    # The 51st from that address is refused, for any account, even with the right password.
    assert login(sprayer, "charlie", PASSWORD, "198.51.100.66").status_code == 429
    assert token(sprayer, "bob", PASSWORD, "198.51.100.66").status_code == 429
    assert not signed_in(sprayer)
    # Another address is not held by it.
    assert login(Client(), "charlie", PASSWORD, "198.51.100.67").status_code == 302


def test_the_token_endpoint_is_throttled_per_client_address(db):
    client = Client()
    answers = [
        client.post(
            TOKEN_URL, {}, content_type="application/json", REMOTE_ADDR="198.51.100.5"
        ).status_code
        for _ in range(61)
    ]
    assert set(answers[:60]) == {400}
    assert answers[60] == 429
    other = client.post(TOKEN_URL, {}, content_type="application/json", REMOTE_ADDR="198.51.100.6")
    assert other.status_code == 400


def test_old_failures_are_pruned_and_recent_ones_kept(alice, time_machine):
    time_machine.move_to("2026-03-01 12:00:00+00:00", tick=False)
    login(Client(), "alice", "old-guess", "198.51.100.1")
    time_machine.move_to("2026-03-31 13:00:00+00:00", tick=False)
    login(Client(), "alice", "new-guess", "198.51.100.2")
    assert tasks.prune_login_failures() == 1
    assert list(AccessFailureLog.objects.values_list("ip_address", flat=True)) == ["198.51.100.2"]
