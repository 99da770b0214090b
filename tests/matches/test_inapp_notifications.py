"""In-app notifications (issue 16 #3): what each person is told on the site, written in the
transaction that made it true; the list page, its unread count in the menu, and nobody
told twice or told of what did not happen."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.management import call_command

from ladder.clubs.formatting import format_change
from ladder.matches import operations as matches
from ladder.matches.errors import MatchPermissionError
from ladder.matches.models import Notification
from ratings.models import RatingChange
from ratings.pipeline import rate_ladder, rating_news
from tests.factories import UserFactory, login
from tests.matches.support import doubles_match


def told(user) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(n.kind, n.text) for n in Notification.objects.filter(user=user).order_by("pk")]


def test_a_report_tells_the_opponents_to_confirm(doubles, alice, bob, charlie, dave):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    day = f"{match.played_on.day} {match.played_on:%b}"
    text = (
        f"Alice Archer reported Alice Archer and Bob Baker v Charlie Chen and Dave Dunn on "
        f"{day} (Club Doubles), 21\u201315 21\u201318: confirm it or say what is wrong."
    )
    assert told(charlie) == [("to_confirm", text)]
    assert told(dave) == [("to_confirm", text)]
    assert told(alice) == []
    # Issue 23: the partner hears of a report that names them.
    assert told(bob) == [
        (
            "partner",
            f"Alice Archer reported Alice Archer and Bob Baker v Charlie Chen and Dave Dunn on "
            f"{day} (Club Doubles), 21\u201315 21\u201318, with you on their side; Charlie Chen "
            "or Dave Dunn can confirm it.",
        )
    ]
    assert Notification.objects.get(user=charlie).match == match


def test_confirming_tells_the_reporter_and_the_rating_run_tells_every_player(
    doubles, alice, bob, charlie, dave
):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    matches.confirm_match(match, dave)
    assert [kind for kind, _ in told(alice)] == ["confirmed"]
    assert "Dave Dunn confirmed Alice Archer and Bob Baker v Charlie Chen" in told(alice)[0][1]
    rate_ladder(doubles.pk)
    for user, word in ((alice, "win"), (bob, "win"), (charlie, "loss"), (dave, "loss")):
        change = RatingChange.objects.get(match=match, user=user)
        rating = [text for kind, text in told(user) if kind == "rating"]
        shown = format_change(change.rating_after - change.rating_before)
        assert rating == [
            f"Club Doubles: your rating went from {change.rating_before / 1000:.2f} to "
            f"{change.rating_after / 1000:.2f} ({shown}) after your {word} of "
            f"{match.played_on.day} {match.played_on:%b}."
        ]
    # Rating again (nothing new) tells no one again.
    rate_ladder(doubles.pk)
    assert Notification.objects.filter(kind="rating").count() == 4


def test_a_dispute_tells_the_reporter_and_every_moderator(doubles, alice, bob, charlie, dave, mod):
    no_mail_mod = UserFactory(username="quiet", email="")
    no_mail_mod.groups.add(*mod.groups.all())
    match = doubles_match(doubles, alice, bob, charlie, dave)
    matches.dispute_match(match, charlie, "The second game was 21-19")
    assert [kind for kind, _ in told(alice)] == ["disputed"]
    assert told(alice)[0][1].endswith(": The second game was 21-19")
    for moderator in (mod, no_mail_mod):
        assert [kind for kind, _ in told(moderator)] == ["to_settle"]
    # The reporter's partner heard of the report, not of the dispute: not the one to answer.
    assert [kind for kind, _ in told(bob)] == ["partner"]


@pytest.mark.parametrize(
    ("decide", "kind", "verb"),
    [
        (
            lambda m, mod: matches.resolve_dispute(m, mod, "uphold", "The report stands"),
            "resolved",
            "upheld the report of",
        ),
        (
            lambda m, mod: matches.resolve_dispute(m, mod, "void", "Not a ladder match"),
            "voided",
            "voided",
        ),
    ],
)
def test_a_moderators_decision_tells_every_player(  # type: ignore[no-untyped-def]
    doubles, alice, bob, charlie, dave, mod, decide, kind, verb
):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    matches.dispute_match(match, charlie, "Wrong score")
    Notification.objects.all().delete()
    decide(match, mod)
    for player in (alice, bob, charlie, dave):
        assert [k for k, _ in told(player)] == [kind]
        assert told(player)[0][1].startswith(f"{mod.name} {verb} Alice Archer and Bob Baker")


def test_a_refused_action_tells_no_one(doubles, alice, bob, charlie, dave):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    before = Notification.objects.count()
    with pytest.raises(MatchPermissionError):
        matches.confirm_match(match, bob)  # the reporter's own side cannot confirm
    assert Notification.objects.count() == before


def test_imported_history_tells_no_one(db, tmp_path):  # type: ignore[no-untyped-def]
    data = tmp_path / "history.csv"
    data.write_text(
        "played_on,side_a,side_b,score,stats\n"
        "2024-05-01,ann,bea,21-10 21-12,\n"
        "2024-05-02,bea,ann,21-19 21-17,\n"
    )
    call_command(
        "import_matches", str(data), "--ladder", "hist", "--create-ladder", "--create-players"
    )
    assert RatingChange.objects.count() == 4
    assert not Notification.objects.exists()


def test_the_list_page_marks_what_it_showed_read(client, doubles, alice, bob, charlie, dave):
    doubles_match(doubles, alice, bob, charlie, dave)
    login(client, charlie)
    home = client.get("/")
    assert 'aria-label="1 unread"' in home.content.decode()
    page = client.get("/notifications/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Alice Archer reported Alice Archer and Bob Baker" in text
    assert '<span class="tag">New</span>' in text
    assert Notification.objects.get(user=charlie).read_at is not None
    again = client.get("/notifications/").content.decode()
    assert '<span class="tag">New</span>' not in again
    assert 'aria-label="1 unread"' not in again


def test_nobody_reads_anothers_notifications(client, doubles, alice, bob, charlie, dave):
    doubles_match(doubles, alice, bob, charlie, dave)
    login(client, UserFactory(username="eve"))
    page = client.get("/notifications/").content.decode()
    assert "reported" not in page and "Nothing yet" in page
    assert Notification.objects.get(user=charlie).read_at is None
    client.logout()
    response = client.get("/notifications/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_unread_come_first_then_the_newest(client, doubles, alice, bob, charlie, dave):
    first = doubles_match(doubles, alice, bob, charlie, dave)
    second = doubles_match(doubles, alice, bob, charlie, dave, games=[(21, 5), (21, 6)])
    older, newer = Notification.objects.filter(user=charlie).order_by("pk")
    assert (older.match, newer.match) == (first, second)
    newer.read_at = newer.created_at
    newer.save()
    login(client, charlie)
    page = client.get("/notifications/").content.decode()
    assert page.index(f"/matches/{first.pk}/") < page.index(f"/matches/{second.pk}/")


def test_a_change_too_small_to_show_says_the_rating_stayed() -> None:
    """Issue 23, bug 7: "your rating went from 4.97 to 4.97 after your win"."""
    day = date(2026, 11, 3)
    assert rating_news(4971.0, 4973.0, True, day) == (
        "your rating stayed at 4.97 after your win of 3 Nov: the ratings expected that "
        "result, so it moved by less than 0.01."
    )
    assert rating_news(4971.0, 5022.0, True, day) == (
        "your rating went from 4.97 to 5.02 (+0.05) after your win of 3 Nov."
    )
    assert rating_news(5022.0, 4971.0, False, day) == (
        "your rating went from 5.02 to 4.97 (\u22120.05) after your loss of 3 Nov."
    )


def test_mark_all_read_reaches_the_other_pages(client, doubles, alice, bob, charlie, dave):
    """Issue 23: the list marks what it shows; the rest of a long list waits for this."""
    from ladder.matches.views import NOTIFICATIONS_PAGE

    match = doubles_match(doubles, alice, bob, charlie, dave)
    Notification.objects.bulk_create(
        Notification(user=charlie, kind="to_confirm", match=match, text=f"Note {n}")
        for n in range(NOTIFICATIONS_PAGE + 4)
    )
    login(client, charlie)
    page = client.get("/notifications/").content.decode()
    assert "5 more unread on other pages." in page
    assert Notification.objects.filter(user=charlie).unread().count() == 5
    assert client.get("/notifications/read-all/").status_code == 405  # a change: POST only
    response = client.post("/notifications/read-all/")
    assert response.status_code == 302 and response["Location"] == "/notifications/"
    assert not Notification.objects.filter(user=charlie).unread().exists()
    assert Notification.objects.filter(user=alice).unread().count() == 0
    assert "Marked 5 notifications as read." in client.get("/notifications/").content.decode()
    client.logout()
    refused = client.post("/notifications/read-all/")
    assert refused.status_code == 302 and "/accounts/login/" in refused["Location"]
