"""Moderators: the Moderators group (with its permissions from the data migration) and staff status."""

from __future__ import annotations

from django.contrib.auth.models import Group

from accounts.models import MODERATORS_GROUP
from accounts.roles import make_moderator
from tests.factories import UserFactory


def test_migration_creates_the_group_with_ladder_permissions(db):
    group = Group.objects.get(name=MODERATORS_GROUP)
    codenames = set(group.permissions.values_list("codename", flat=True))
    for model in ("ladder", "membership"):
        assert {f"{action}_{model}" for action in ("add", "change", "delete", "view")} <= codenames
    assert "view_user" in codenames
    assert "change_user" not in codenames  # no way to promote themselves


def test_joining_the_group_makes_staff_and_leaving_removes_it(db):
    user = UserFactory(username="pat")
    assert not user.is_moderator and not user.is_staff

    make_moderator(user)
    user.refresh_from_db()
    assert user.is_staff and user.is_moderator

    user.groups.remove(Group.objects.get(name=MODERATORS_GROUP))
    user.refresh_from_db()
    assert not user.is_staff and not user.is_moderator


def test_group_side_changes_count_too(db):
    group = Group.objects.get(name=MODERATORS_GROUP)
    pat, sam = UserFactory(username="pat"), UserFactory(username="sam")
    group.user_set.add(pat, sam)
    assert set(group.user_set.filter(is_staff=True)) == {pat, sam}
    group.user_set.clear()
    pat.refresh_from_db()
    sam.refresh_from_db()
    assert not pat.is_staff and not sam.is_staff


def test_other_groups_do_not_touch_staff_status(db):
    user = UserFactory(username="pat", is_staff=True)
    other = Group.objects.create(name="Treasurers")
    user.groups.add(other)
    user.groups.clear()
    user.refresh_from_db()
    assert user.is_staff


def test_superusers_are_moderators_and_stay_staff(db):
    boss = UserFactory(username="boss", is_staff=True, is_superuser=True)
    make_moderator(boss)
    boss.groups.clear()
    boss.refresh_from_db()
    assert boss.is_staff and boss.is_moderator


def test_moderators_see_the_access_attempts_the_readme_promises(client, mod, alice):
    """View only: the README names "Access attempts"; unlocking stays with superusers."""
    client.post("/accounts/login/", {"username": "alice", "password": "wrong"})
    client.force_login(mod)
    for page in ("accessattempt", "accessfailurelog", "accesslog"):
        response = client.get(f"/admin/axes/{page}/")
        assert response.status_code == 200, page
    listing = client.get("/admin/axes/accessattempt/").content.decode()
    assert "alice" in listing
    codenames = set(
        Group.objects.get(name=MODERATORS_GROUP)
        .permissions.filter(content_type__app_label="axes")
        .values_list("codename", flat=True)
    )
    assert codenames == {"view_accessattempt", "view_accessfailurelog", "view_accesslog"}
