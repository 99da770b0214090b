"""Issue 23's basics a member expects, through the pages: "Report" from every page, a rematch
one tap away, who won on every result."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

from django.urls import reverse

from ladder.matches import operations
from ladder.matches.permissions import allowed_actions
from ladder.matches.rematch import recent_lineups
from tests.factories import LadderFactory, MembershipFactory, UserFactory, hide, reported_match


def text_of(response) -> str:  # type: ignore[no-untyped-def]
    """The page's words, tags and runs of spaces taken out."""
    words = re.sub(r"<[^>]+>", " ", response.content.decode())
    return " ".join(html.unescape(words).split())


# ---- Report from every page, and rematches -------------------------------------------------


def test_every_member_page_has_report_in_the_header(client, ladder, alice):
    client.force_login(alice)
    for url in ("/", reverse("inbox"), reverse("notifications"), reverse("profile")):
        page = client.get(url).content.decode()
        assert f'href="{reverse("report_start")}" class="button nav-report">Report</a>' in page, url
    client.logout()
    assert "nav-report" not in client.get("/").content.decode()  # visitors: Log in, Sign up


def test_report_goes_straight_to_the_only_ladder_without_history(client, ladder, alice):
    client.force_login(alice)
    response = client.get(reverse("report_start"))
    assert response.status_code == 302
    assert response["Location"] == reverse("ladder:report", args=["singles"])


def test_report_offers_each_ladder_and_the_recent_lineups(
    client, doubles, alice, bob, charlie, dave
):
    reported_match(doubles, alice, [alice, bob], [charlie, dave])
    reported_match(doubles, charlie, [charlie, alice], [bob, dave], games=[(21, 5), (21, 7)])
    client.force_login(alice)
    response = client.get(reverse("report_start"))
    assert response.status_code == 200
    page = text_of(response)
    source = response.content.decode()
    assert "You and Charlie Chen v Bob Baker and Dave Dunn" in page  # the newest first
    assert page.index("You and Charlie Chen") < page.index("You and Bob Baker v Charlie Chen")
    for slug in ("singles", "doubles"):
        assert f'href="{reverse("ladder:report", args=[slug])}"' in source
    lineups = recent_lineups(alice)
    url = urlsplit(lineups[1].report_url)
    assert url.path == reverse("ladder:report", args=["doubles"])
    assert parse_qs(url.query) == {"side_a": ["alice,bob"], "side_b": ["charlie,dave"]}
    # The form it opens has the players filled in and the points at stake at once.
    form = client.get(lineups[1].report_url).content.decode()
    assert 'value="bob"' in form and 'value="charlie"' in form and 'value="dave"' in form
    assert "Points at stake" in form


def test_rematches_skip_the_same_lineup_gone_members_and_hidden_players(
    client, ladder, alice, bob, charlie
):
    reported_match(ladder, alice, [alice], [bob])
    reported_match(ladder, bob, [bob], [alice], games=[(21, 9), (21, 9)])  # the same pair
    reported_match(ladder, alice, [alice], [charlie], games=[(21, 3), (21, 4)])
    assert [lineup.opponents[0].username for lineup in recent_lineups(alice)] == ["charlie", "bob"]
    hide(ladder=ladder, user=charlie)
    assert [lineup.opponents[0].username for lineup in recent_lineups(alice)] == ["bob"]


def test_a_match_page_offers_its_players_a_rematch(client, ladder, alice, bob, outsider):
    match = reported_match(ladder, alice, [alice], [bob])
    client.force_login(bob)
    page = text_of(client.get(match.get_absolute_url()))
    assert "Report a rematch" in page
    assert f"{reverse('ladder:report', args=['singles'])}?side_a=bob&amp;side_b=alice" in (
        client.get(match.get_absolute_url()).content.decode()
    )
    client.force_login(outsider)
    assert "Report a rematch" not in text_of(client.get(match.get_absolute_url()))


# ---- a new token, revoke all, keep it --------------------------------------------------------


def test_a_new_token_has_a_copy_button_and_revoke_all_asks_first(client, alice):
    client.force_login(alice)
    page = client.post(reverse("accounts:tokens"), {"name": "laptop"}).content.decode()
    assert '<button type="button" data-copy="new-token"' in page
    assert "js/copy" in page
    page = client.get(reverse("accounts:tokens")).content.decode()
    assert '<summary class="button secondary danger-text">Revoke all</summary>' in page
    assert 'name="revoke_all" value="1" class="danger">Yes, revoke all</button>' in page
    assert "data-keep>Keep them</button>" in page


def test_cancel_asks_with_keep_it(client, ladder, alice, bob):
    match = reported_match(ladder, alice, [alice], [bob])
    client.force_login(alice)
    for url in (reverse("inbox"), match.get_absolute_url()):
        page = client.get(url).content.decode()
        assert "Yes, cancel it</button>" in page, url
        assert '<button type="button" class="secondary" data-keep>Keep it</button>' in page
    assert allowed_actions(match, alice) == {"cancel", "edit"}


def test_members_of_other_ladders_are_not_offered(client, db):
    tennis = LadderFactory(name="Tennis", slug="tennis")
    ann, ben = UserFactory(username="ann"), UserFactory(username="ben")
    for user in (ann, ben):
        MembershipFactory(ladder=tennis, user=user)
    reported_match(tennis, ann, [ann], [ben])
    tennis.memberships.filter(user=ben).delete()
    assert recent_lineups(ann) == []


# ---- who won, on every result ------------------------------------------------------------------


def test_the_inbox_says_who_won_from_the_winners_side(client, doubles, alice, bob, charlie, dave):
    reported_match(
        doubles, alice, [alice, bob], [charlie, dave], games=[(15, 21), (21, 19), (18, 21)]
    )
    client.force_login(charlie)
    page = text_of(client.get(reverse("inbox")))
    assert "You and Dave Dunn beat Alice Archer and Bob Baker 21-15 19-21 21-18" in page
    client.force_login(alice)
    page = text_of(client.get(reverse("inbox")))  # alice's own pending report
    assert "Charlie Chen and Dave Dunn beat you and Bob Baker 21-15 19-21 21-18" in page


def test_latest_results_say_who_beat_whom(client, ladder, alice, bob, charlie):
    match = reported_match(ladder, alice, [alice], [bob], games=[(12, 21), (14, 21)])
    operations.confirm_match(match, bob)
    client.force_login(charlie)
    page = text_of(client.get("/"))
    assert "Bob Baker beat Alice Archer 21-12 21-14" in page


def test_head_to_head_says_whose_win(client, ladder, alice, bob):
    won = reported_match(ladder, alice, [alice], [bob])
    lost = reported_match(ladder, bob, [bob], [alice], games=[(21, 3), (21, 4)])
    for match, by in ((won, bob), (lost, alice)):
        operations.confirm_match(match, by)
    url = reverse("ratings:head_to_head", args=["singles"])
    page = text_of(client.get(url, {"a": "alice", "b": "bob"}))
    assert "Alice Archer won" in page and "Bob Baker won" in page
    assert " Lost " not in page and " Won " not in page
