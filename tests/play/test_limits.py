"""What reaches another member (issue 36, "What to build" 3; RULES.md "Challenges and open
games"): a pair's cool-down that cancelling does not reset, a daily cap on the notices one
member's actions send, open games' e-mails batched, and no live link in a member's words."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.core.cache import cache
from django.utils import timezone

from ladder.matches.errors import MatchRateLimited
from ladder.matches.models import Notification
from ladder.play import services
from ladder.play.models import CANCELLED, OPEN, Challenge, PlaySettings
from ladder.play.notifications import unlinked
from tests.factories import login
from tests.matches.support import api_client
from tests.play.support import soon, unchanged


@pytest.fixture(autouse=True)
def _no_throttle_history():
    cache.clear()


def _challenge_body(*opponents: str, message: str = "") -> dict[str, object]:
    times = [soon(2).isoformat(), soon(3).isoformat()]
    return {"opponents": list(opponents), "proposed_times": times, "message": message}


def test_six_challenge_and_cancel_rounds_send_the_target_two_emails(
    ladder, alice, bob, django_capture_on_commit_callbacks
):
    # Issue 36: six rounds in under a second sent Bob 12 e-mails and 12 notices.
    as_alice = api_client(alice)
    statuses = []
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(6):
            made = as_alice.post(
                "/api/v1/ladders/singles/challenges/", _challenge_body("bob"), format="json"
            )
            statuses.append(made.status_code)
            if made.status_code == 201:
                as_alice.post(f"/api/v1/challenges/{made.json()['id']}/cancel/")
            else:
                refused = made
    assert statuses == [201, 429, 429, 429, 429, 429]
    to_bob = [m for m in mail.outbox if m.to == ["bob@example.org"]]
    assert len(to_bob) == 2  # the challenge and its cancellation
    assert Notification.objects.filter(user=bob).count() == 2
    assert Challenge.objects.count() == 1
    # A day from the cancellation: said in words and as Retry-After (seconds).
    cancelled = Challenge.objects.get()
    wait = (cancelled.decided_at + services.CANCELLED_WAIT - timezone.now()).total_seconds()
    assert abs(int(refused["Retry-After"]) - wait) < 5
    assert "you may challenge them again from" in refused.json()["detail"]


def test_a_cancelled_challenge_keeps_the_pair_apart_for_a_day_even_without_cool_down(
    ladder, alice, bob
):
    PlaySettings.objects.create(ladder=ladder, cooldown_days=0)
    first = services.create_challenge(
        ladder=ladder, by=alice, opponents=["bob"], proposed_times=[soon(2)]
    )
    services.cancel_challenge(first, bob)  # either side's cancel counts
    with unchanged(), pytest.raises(MatchRateLimited):
        services.create_challenge(
            ladder=ladder, by=alice, opponents=["bob"], proposed_times=[soon(2)]
        )
    later = timezone.now() + timedelta(days=1, minutes=1)
    again = services.create_challenge(
        ladder=ladder, by=alice, opponents=["bob"], proposed_times=[soon(3)], now=later
    )
    assert again.state == OPEN


def test_join_and_leave_ten_times_sends_the_host_one_email(
    ladder, alice, bob, django_capture_on_commit_callbacks
):
    # Issue 36: ten rounds sent about 30 e-mails. Now at most one e-mail an hour per game and
    # recipient; every notice is still written on the site.
    game = services.post_open_game(ladder=ladder, by=alice, starts_at=soon(), place="Court 1")
    as_bob = api_client(bob)
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(10):
            assert as_bob.post(f"/api/v1/open-games/{game.pk}/join/").status_code == 200
            assert as_bob.post(f"/api/v1/open-games/{game.pk}/leave/").status_code == 200
    to_alice = [m for m in mail.outbox if m.to == ["alice@example.org"]]
    assert len(to_alice) == 1 and "full" in to_alice[0].body
    assert len(mail.outbox) == 2  # and Bob's own "your game is full"
    assert Notification.objects.filter(user=alice, kind="open_game").count() == 20
    assert Notification.objects.filter(user=alice, mailed_at__isnull=False).count() == 1
    # An hour on, the next change is e-mailed again; a cancellation always is.
    Notification.objects.update(mailed_at=timezone.now() - timedelta(hours=1, seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        as_bob.post(f"/api/v1/open-games/{game.pk}/join/")
        services.cancel_open_game(game.pk, alice)
    assert [m.to[0][:3] for m in mail.outbox[2:]] == ["ali", "bob", "bob"]  # full, full, cancelled
    assert "cancelled" in mail.outbox[-1].subject


def test_the_daily_cap_on_notices_a_member_sends(ladder, alice, bob, charlie):
    # Thirty notices from Alice's actions in the last day: her next challenge waits.
    day_ago = timezone.now() - timedelta(hours=23)
    Notification.objects.bulk_create(
        Notification(user=charlie, kind="challenge", text="x", sender=alice, created_at=day_ago)
        for _ in range(services.DAILY_NOTICES)
    )
    before = Notification.objects.count()
    response = api_client(alice).post(
        "/api/v1/ladders/singles/challenges/", _challenge_body("bob"), format="json"
    )
    assert response.status_code == 429
    assert abs(int(response["Retry-After"]) - 3600) < 5
    assert "30 notices about challenges and games today" in response.json()["detail"]
    assert Challenge.objects.count() == 0 and Notification.objects.count() == before
    # Others are not held up by Alice's cap, and answers are never capped.
    made = services.create_challenge(
        ladder=ladder, by=bob, opponents=["alice"], proposed_times=[soon(2)]
    )
    assert services.decline_challenge(made, alice).state == "declined"
    later = timezone.now() + timedelta(hours=1, seconds=5)
    assert services.create_challenge(
        ladder=ladder, by=alice, opponents=["charlie"], proposed_times=[soon(2)], now=later
    )


def test_the_challenge_form_says_when_to_try_again(ladder, alice, bob, client):
    first = services.create_challenge(
        ladder=ladder, by=alice, opponents=["bob"], proposed_times=[soon(2)]
    )
    services.cancel_challenge(first, alice)
    login(client, alice)
    local = timezone.localtime(soon(3)).strftime("%Y-%m-%dT%H:%M")
    with unchanged():
        page = client.post("/ladders/singles/challenge/", {"opponent_1": "bob", "time_1": local})
    assert page.status_code == 429
    assert "you may challenge them again from" in page.content.decode()
    assert Challenge.objects.get().state == CANCELLED


def test_a_members_message_carries_no_live_link_by_email(
    ladder, alice, bob, django_capture_on_commit_callbacks
):
    message = "Book at https://evil.example.com/pay?x=1 or www.courts.co.uk, mail me@mine.org"
    with django_capture_on_commit_callbacks(execute=True):
        services.create_challenge(
            ladder=ladder,
            by=alice,
            opponents=["bob"],
            proposed_times=[soon(2)],
            message=message,
            place="court.example.net",
        )
    body = mail.outbox[0].body
    assert "hxxps://evil[.]example[.]com/pay?x=1" in body
    assert "www[.]courts[.]co[.]uk" in body and "me@mine[.]org" in body
    for live in ("https://evil", "example.com", "courts.co", "mine.org"):
        assert live not in body
    # The site's own link is the e-mail's own line, and it works.
    assert body.rstrip().splitlines()[-1].endswith("/challenges/#challenge-1") or (
        "/challenges/#challenge-" in body.rstrip().splitlines()[-1]
    )


@pytest.mark.parametrize(
    "text, shown",
    [
        ("see example.com", "see example[.]com"),
        ("HTTP://x.io/a", "HxxP://x[.]io/a"),
        ("4.50 at 18.30, e.g. court 2. Bring water.", "4.50 at 18.30, e.g. court 2. Bring water."),
        ("bücher.de", "bücher[.]de"),
    ],
)
def test_unlinked(text, shown):
    assert unlinked(text) == shown
