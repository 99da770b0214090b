"""Log in, log out and change password with Django's views and our templates."""

from __future__ import annotations

from django.urls import reverse

from tests.factories import PASSWORD

LOGIN = reverse("login")
LOGOUT = reverse("logout")


def test_urls_keep_djangos_names():
    assert LOGIN == "/accounts/login/"
    assert LOGOUT == "/accounts/logout/"
    assert reverse("accounts:signup") == "/accounts/signup/"
    assert reverse("profile") == "/accounts/profile/"
    assert reverse("password_reset") == "/accounts/password/reset/"


def test_login_page(client, db):
    response = client.get(LOGIN)
    assert response.status_code == 200
    assert b"Forgotten your password?" in response.content


def test_login_with_the_right_password(client, alice):
    response = client.post(LOGIN, {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert client.session["_auth_user_id"] == str(alice.pk)


def test_login_follows_next(client, alice):
    target = reverse("ladder:join", args=["singles"])
    response = client.post(LOGIN, {"username": "alice", "password": PASSWORD, "next": target})
    assert response["Location"] == target


def test_login_with_a_wrong_password_is_refused(client, alice):
    response = client.post(LOGIN, {"username": "alice", "password": "not-it"})
    assert response.status_code == 200
    assert "That username and password do not match an account." in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_logout_by_post(client, alice):
    client.force_login(alice)
    response = client.post(LOGOUT)
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert "_auth_user_id" not in client.session


def test_logout_by_get_is_refused(client, alice):
    client.force_login(alice)
    assert client.get(LOGOUT).status_code == 405
    assert client.session["_auth_user_id"] == str(alice.pk)


def test_base_template_shows_the_logout_form(client, alice):
    client.force_login(alice)
    page = client.get(reverse("home")).content.decode()
    assert f'action="{LOGOUT}"' in page
    assert "Alice Archer" in page


def test_password_change(client, alice):
    client.force_login(alice)
    assert client.get(reverse("password_change")).status_code == 200
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "brand-new-secret-77",
            "new_password2": "brand-new-secret-77",
        },
    )
    assert response["Location"] == reverse("password_change_done")
    alice.refresh_from_db()
    assert alice.check_password("brand-new-secret-77")


def test_password_change_needs_login(client, db):
    response = client.get(reverse("password_change"))
    assert response.status_code == 302
    assert response["Location"].startswith(LOGIN)
