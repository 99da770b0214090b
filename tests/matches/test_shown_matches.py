"""A match as a viewer may see it (issue 38.5, ladder/matches/visibility.py): the names come
from a ``ShownMatch`` made by asking the access policy about each person, and the match's
own users are left as they are."""

from __future__ import annotations

import pytest
from django.utils import timezone

from ladder.clubs.access import HIDDEN_PLAYER_NAME, Person, Viewer
from ladder.matches import operations as matches
from ladder.matches.models import Match
from ladder.matches.operations import report_match
from ladder.matches.validation import Report
from ladder.matches.visibility import ShownPlayer, shown_match, shown_matches
from tests.factories import hide, login, reported_match
from tests.matches.support import api_client

HIDDEN = ShownPlayer(HIDDEN_PLAYER_NAME, None, you=False, stats=None)


@pytest.fixture
def hers(ladder, alice, bob, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """Alice, now hidden, reported a match against Bob, who disputed it."""
    with django_capture_on_commit_callbacks(execute=True):
        match = reported_match(ladder, alice, [alice], [bob])
        matches.dispute_match(match, bob, "the second game was 19-21")
    hide(user=alice, ladder=ladder)
    return Match.objects.with_history().get(pk=match.pk)


def test_a_stranger_reads_the_placeholder_and_the_match_keeps_its_users(hers, charlie):  # type: ignore[no-untyped-def]
    shown = shown_match(Viewer.of(charlie), hers)
    assert shown.side_a == (HIDDEN,)
    assert shown.side_b == (ShownPlayer("Bob Baker", "bob", you=False, stats=None),)
    assert shown.reporter == Person(HIDDEN_PLAYER_NAME, None)
    assert shown.opponents == shown.side_b
    assert (shown.record, shown.disputes, shown.audit) == (False, None, None)
    # Nothing stands in for her on the model: it is what was read from the database.
    assert hers.reporter.username == "alice"
    assert [u.username for u in hers.side_a_players] == ["alice"]


@pytest.mark.parametrize("who", ["bob", "mod"])
def test_a_player_and_a_moderator_read_every_name_and_the_record(request, who, hers):  # type: ignore[no-untyped-def]
    viewer = request.getfixturevalue(who)
    shown = shown_match(Viewer.of(viewer), hers)
    assert shown.side_a[0].name == "Alice Archer" and shown.reporter.username == "alice"
    assert shown.side_b[0].you is (who == "bob")
    assert shown.record
    assert [d.reason for d in shown.disputes or []] == ["the second game was 19-21"]
    assert shown.audit and shown.player(viewer.pk) == (shown.side_b[0] if who == "bob" else None)


def test_a_viewer_who_played_every_match_costs_no_query(hers, bob, django_assert_num_queries):  # type: ignore[no-untyped-def]
    viewer = Viewer.of(bob)
    with django_assert_num_queries(0):
        shown_matches(viewer, [hers])


def test_the_edit_refusal_does_not_name_a_hidden_reporter(client, hers, charlie):  # type: ignore[no-untyped-def]
    login(client, charlie)
    response = client.get(f"/matches/{hers.pk}/edit/")
    assert response.status_code == 403
    page = response.content.decode()
    assert f"Only {HIDDEN_PLAYER_NAME}, who reported this match" in page
    assert "Alice Archer" not in page


def test_an_organisers_inbox_names_no_hidden_player(client, ladder, alice, bob, charlie):  # type: ignore[no-untyped-def]
    """Whoever runs a club night may report a court they did not play (``organiser``): their
    inbox shows the match as its page does, a hidden player as the placeholder."""
    report = Report(
        ladder=ladder,
        reporter=charlie,
        played_on=timezone.localdate(),
        side_a=[alice],
        side_b=[bob],
        games=[(21, 9), (21, 10)],
        stats=None,
    )
    report_match(report, organiser=True)
    hide(user=alice, ladder=ladder)
    login(client, charlie)
    page = client.get("/inbox/").content.decode()
    assert f'{HIDDEN_PLAYER_NAME} <span class="muted">vs</span> Bob Baker' in page
    answer = api_client(charlie).get("/api/v1/inbox/").json()
    assert answer["my_pending"][0]["side_a"] == [
        {"username": None, "name": HIDDEN_PLAYER_NAME, "stats": None}
    ]
    assert "Alice Archer" not in page + str(answer)
