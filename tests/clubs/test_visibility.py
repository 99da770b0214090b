"""Which ladders a viewer sees (the access policy: access.ladders), and that asking costs one row
per ladder however many members the ladders have."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ladder.clubs import access
from ladder.clubs.access import Viewer
from tests.factories import LadderFactory, MembershipFactory, UserFactory


def visible(user) -> list[str]:  # type: ignore[no-untyped-def]
    return list(access.ladders(Viewer.of(user)).order_by("slug").values_list("slug", flat=True))


def test_public_ladders_for_all_private_ones_for_their_members_and_moderators(  # type: ignore[no-untyped-def]
    ladder, private_ladder, alice, bob, outsider, mod
) -> None:
    hidden = LadderFactory(name="Hidden", slug="hidden", is_public=False)
    MembershipFactory(ladder=hidden, user=bob)
    assert visible(AnonymousUser()) == ["singles"]
    assert visible(outsider) == ["singles"]
    assert visible(alice) == ["singles", "squad"]
    assert visible(bob) == ["hidden", "singles"]
    assert visible(mod) == ["hidden", "singles", "squad"]


def test_a_members_ladders_are_read_without_a_row_per_membership(  # type: ignore[no-untyped-def]
    client, ladder, private_ladder, alice
) -> None:
    for i in range(30):
        MembershipFactory(ladder=private_ladder, user=UserFactory(username=f"m{i}"))
    ladders = access.ladders(Viewer.of(alice)).with_member_count().order_by("slug")
    assert [(lad.slug, lad.member_count) for lad in ladders] == [("singles", 1), ("squad", 31)]
    # No join with the memberships (and DISTINCT to undo it): that repeated each ladder once
    # per member, with its member count counted for every copy. A member's ladder list took
    # 8 s on a ladder of 10,000 members.
    sql = str(ladders.query).upper()
    assert "JOIN" not in sql and "DISTINCT" not in sql
    client.force_login(alice)
    with CaptureQueriesContext(connection) as queries:
        page = client.get("/ladders/").content.decode()
    assert '<dd id="members-squad">31</dd>' in page
    assert not any("DISTINCT" in q["sql"].upper() for q in queries.captured_queries)
