"""Login lockout (django-axes) on every way in that takes a password, and the client address.

20 wrong passwords for an account from one client address lock that account out from that
address: the 21st attempt is refused even with the right password, on the login page, the
admin's login and the API's token endpoint, whatever X-Forwarded-For the attacker sends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client, RequestFactory
from django.urls import reverse

from accounts.security import client_ip
from tests.factories import PASSWORD

LIMIT = 20
LOCKED = "Too many failed log-in attempts."
ATTACKER = "198.51.100.66"


@dataclass(frozen=True)
class Door:
    """A way in that takes a username and password."""

    name: str
    url: str
    wrong_status: int
    right_status: int
    api: bool = False

    def attempt(
        self, client: Client, username: str, password: str, addr: str, xff: str | None = None
    ):  # type: ignore[no-untyped-def]
        headers = {"REMOTE_ADDR": addr}
        if xff is not None:
            headers["HTTP_X_FORWARDED_FOR"] = xff
        data = {"username": username, "password": password}
        if self.api:
            return client.post(self.url, data, content_type="application/json", **headers)
        return client.post(self.url, data, **headers)


DOORS = [
    Door("login page", "/accounts/login/", 200, 302),
    Door("admin login", "/admin/login/", 200, 302),
    Door("token endpoint", "/api/v1/auth/token/", 400, 200, api=True),
]


@pytest.fixture(params=DOORS, ids=lambda door: door.name)
def door(request) -> Door:  # type: ignore[no-untyped-def]
    return request.param


def fail(door: Door, client: Client, username: str, times: int, addr: str = ATTACKER, spoof=False):  # type: ignore[no-untyped-def]
    for i in range(times):
        xff = f"203.0.113.{i}, 10.0.0.{i}" if spoof else None
        response = door.attempt(client, username, "wrong-password", addr, xff)
        if i < times - 1:
            assert response.status_code == door.wrong_status, (i, response.status_code)
    return response


def locked_message(response) -> str:  # type: ignore[no-untyped-def]
    if response["Content-Type"].startswith("application/json"):
        return response.json()["detail"]
    found = re.search(r'role="alert">([^<]*)<', response.content.decode())
    assert found, response.content.decode()
    return found.group(1)


def test_the_limit_is_twenty() -> None:
    assert settings.AXES_FAILURE_LIMIT == LIMIT
    assert settings.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]
    assert timedelta(minutes=15) == settings.AXES_COOLOFF_TIME


@pytest.mark.parametrize("spoof", [False, True], ids=["same-address", "spoofed-x-forwarded-for"])
def test_twenty_wrong_passwords_lock_the_twenty_first_attempt_out(client, mod, door, spoof):  # type: ignore[no-untyped-def]
    # mod is staff, so the right password opens the admin too.
    last = fail(door, client, "mod", LIMIT, spoof=spoof)
    assert last.status_code == 429  # the 20th failure already says so
    xff = "192.0.2.1" if spoof else None
    response = door.attempt(client, "mod", PASSWORD, ATTACKER, xff)
    assert response.status_code == 429
    assert LOCKED in locked_message(response)
    assert "15 minutes" in locked_message(response)
    assert "_auth_user_id" not in client.session
    if door.api:
        assert "token" not in response.json()
        assert int(response["Retry-After"]) == 15 * 60


def test_nineteen_wrong_passwords_do_not_lock(client, mod, door):  # type: ignore[no-untyped-def]
    fail(door, client, "mod", LIMIT - 1)
    assert door.attempt(client, "mod", PASSWORD, ATTACKER).status_code == door.right_status


def test_the_lockout_does_not_tell_whether_the_username_exists(client, mod, door):  # type: ignore[no-untyped-def]
    fail(door, client, "mod", LIMIT)
    fail(door, client, "nobody-by-that-name", LIMIT)
    real = door.attempt(client, "mod", PASSWORD, ATTACKER)
    unknown = door.attempt(client, "nobody-by-that-name", PASSWORD, ATTACKER)
    assert real.status_code == unknown.status_code == 429
    assert locked_message(real) == locked_message(unknown)
    assert "mod" not in locked_message(real)


def test_another_account_from_the_same_address_is_not_locked(client, mod, alice):  # type: ignore[no-untyped-def]
    login = DOORS[0]
    fail(login, client, "mod", LIMIT)
    assert login.attempt(client, "alice", PASSWORD, ATTACKER).status_code == 302


def test_the_member_is_not_locked_out_from_their_own_address(client, alice):  # type: ignore[no-untyped-def]
    """An attacker elsewhere cannot lock a member out (the count is per account and address)."""
    login = DOORS[0]
    fail(login, client, "alice", LIMIT)
    assert login.attempt(client, "alice", PASSWORD, "192.0.2.44").status_code == 302


def test_the_lockout_ends_after_the_cool_off(client, alice, time_machine):  # type: ignore[no-untyped-def]
    login = DOORS[0]
    time_machine.move_to("2026-03-02 19:00:00+00:00", tick=False)
    fail(login, client, "alice", LIMIT)
    time_machine.move_to("2026-03-02 19:14:00+00:00", tick=False)
    assert login.attempt(client, "alice", PASSWORD, ATTACKER).status_code == 429
    time_machine.move_to("2026-03-02 19:16:00+00:00", tick=False)
    assert login.attempt(client, "alice", PASSWORD, ATTACKER).status_code == 302


def test_a_success_clears_the_count(client, alice):  # type: ignore[no-untyped-def]
    login = DOORS[0]
    fail(login, client, "alice", LIMIT - 1)
    assert login.attempt(client, "alice", PASSWORD, ATTACKER).status_code == 302
    client.logout()
    fail(login, client, "alice", LIMIT - 1)
    assert login.attempt(client, "alice", PASSWORD, ATTACKER).status_code == 302


def test_the_lockout_page_is_the_sites(client, alice):  # type: ignore[no-untyped-def]
    response = fail(DOORS[0], client, "alice", LIMIT)
    html = response.content.decode()
    assert "<h1>Log in paused</h1>" in html
    assert reverse("password_reset") in html
    assert "alice" not in html


# The client address ---------------------------------------------------------------------


def _request(xff: str | None = None, addr: str = "192.0.2.9"):  # type: ignore[no-untyped-def]
    extra = {"REMOTE_ADDR": addr}
    if xff is not None:
        extra["HTTP_X_FORWARDED_FOR"] = xff
    return RequestFactory().post("/accounts/login/", **extra)


@pytest.fixture
def proxies(settings):  # type: ignore[no-untyped-def]
    """Set TRUSTED_PROXY_COUNT for a test (DRF reloads its settings on the change)."""

    def set_count(count: int) -> None:
        settings.TRUSTED_PROXY_COUNT = count
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": count}

    return set_count


def test_without_a_trusted_proxy_x_forwarded_for_is_ignored(proxies) -> None:  # type: ignore[no-untyped-def]
    proxies(0)
    assert client_ip(_request("203.0.113.5")) == "192.0.2.9"
    assert client_ip(_request()) == "192.0.2.9"


def test_behind_one_proxy_the_client_is_the_last_address(proxies) -> None:  # type: ignore[no-untyped-def]
    proxies(1)
    # The client wrote "203.0.113.5"; the proxy appended the address it saw.
    assert client_ip(_request("203.0.113.5, 198.51.100.7", addr="10.0.0.2")) == "198.51.100.7"
    assert client_ip(_request("198.51.100.7", addr="10.0.0.2")) == "198.51.100.7"
    assert client_ip(_request(addr="10.0.0.2")) == "10.0.0.2"


def test_behind_two_proxies_the_client_is_the_second_last(proxies) -> None:  # type: ignore[no-untyped-def]
    proxies(2)
    assert client_ip(_request("6.6.6.6, 198.51.100.7, 10.0.0.3")) == "198.51.100.7"


def test_a_forged_value_that_is_not_an_address_is_never_used(proxies) -> None:  # type: ignore[no-untyped-def]
    proxies(2)  # more proxies configured than there are: the client's own text is picked
    assert client_ip(_request("not-an-address, 10.0.0.3")) == "192.0.2.9"


def test_behind_a_proxy_spoofing_x_forwarded_for_does_not_escape(client, alice, proxies):  # type: ignore[no-untyped-def]
    proxies(1)
    login = DOORS[0]
    real = "198.51.100.7"
    for i in range(LIMIT):
        login.attempt(client, "alice", "wrong", "10.0.0.2", f"203.0.113.{i}, {real}")
    response = login.attempt(client, "alice", PASSWORD, "10.0.0.2", f"192.0.2.77, {real}")
    assert response.status_code == 429
    # The same account from another client behind the same proxy is not locked.
    other = login.attempt(client, "alice", PASSWORD, "10.0.0.2", "198.51.100.8")
    assert other.status_code == 302
