"""Issue 29.2: work done is never reported as failed. A client that retries an action that
already happened (its answer was lost) gets the same success, not 409, and nothing happens
twice; an action's answer after its commit is not a 5xx when the database fails while the
answer is read."""

from __future__ import annotations

import pytest
from django.core import mail
from django.db import OperationalError

from ladder.matches import api as matches_api
from ladder.matches.models import AuditEntry, Dispute, Match, Notification
from tests.factories import reported_match
from tests.matches.support import API, api_client


def post(user, match, action, payload=None):  # type: ignore[no-untyped-def]
    return api_client(user).post(f"{API}{match.pk}/{action}/", payload or {}, format="json")


def written(match):  # type: ignore[no-untyped-def]
    return (
        AuditEntry.objects.filter(match=match).count(),
        Dispute.objects.filter(match=match).count(),
        Notification.objects.filter(match=match).count(),
        len(mail.outbox),
    )


@pytest.mark.parametrize(
    ("action", "who", "payload", "state"),
    [
        ("confirm", "bob", {}, "confirmed"),
        ("dispute", "bob", {"reason": "The second game was 21-19"}, "disputed"),
        ("cancel", "alice", {}, "cancelled"),
    ],
)
def test_a_retried_action_gets_the_same_success(  # type: ignore[no-untyped-def]
    ladder, alice, bob, action, who, payload, state, django_capture_on_commit_callbacks
):
    match = reported_match(ladder, alice, [alice], [bob])
    user = {"alice": alice, "bob": bob}[who]
    with django_capture_on_commit_callbacks(execute=True) as first_work:
        first = post(user, match, action, payload)
    assert first.status_code == 200 and first.json()["state"] == state
    after_first = written(match)
    with django_capture_on_commit_callbacks(execute=True) as retry_work:
        retry = post(user, match, action, payload)
    assert retry.status_code == 200, retry.json()
    same = ("id", "state", "audit", "disputes", "score")
    assert {k: retry.json()[k] for k in same} == {k: first.json()[k] for k in same}
    assert written(match) == after_first  # no second audit entry, dispute, notice or e-mail
    assert len(first_work) >= (action != "cancel")  # a confirm's rating and e-mail, a dispute's
    assert retry_work == []  # nothing queued again


def test_a_retry_after_something_else_happened_is_still_refused(ladder, alice, bob, mod):  # type: ignore[no-untyped-def]
    match = reported_match(ladder, alice, [alice], [bob])
    assert post(bob, match, "dispute", {"reason": "Wrong"}).status_code == 200
    resolved = post(mod, match, "resolve", {"decision": "void", "reason": "Nobody knows"})
    assert resolved.status_code == 200
    again = post(bob, match, "dispute", {"reason": "Wrong"})
    assert again.status_code == 409  # it is voided now: not what bob's dispute led to
    assert Match.objects.get(pk=match.pk).state == "voided"


def test_another_players_confirm_of_a_confirmed_match_is_refused(ladder, alice, bob):  # type: ignore[no-untyped-def]
    match = reported_match(ladder, alice, [alice], [bob])
    assert post(bob, match, "confirm").status_code == 200
    assert post(alice, match, "confirm").status_code in (403, 409)


@pytest.fixture
def failing_read(monkeypatch):  # type: ignore[no-untyped-def]
    """The database fails while the answer is read, after the action committed: ``times``
    reads fail (as during a restart), then it answers again."""
    real = matches_api.get_match_for_user
    state = {"times": 0}

    def read(user, pk):  # type: ignore[no-untyped-def]
        if state["times"] > 0:
            state["times"] -= 1
            raise OperationalError("terminating connection due to administrator command")
        return real(user, pk)

    monkeypatch.setattr(matches_api, "get_match_for_user", read)
    return state


@pytest.mark.django_db(transaction=True)  # the action commits, as in production
def test_a_committed_confirm_is_answered_after_one_failed_read(  # type: ignore[no-untyped-def]
    ladder, alice, bob, failing_read, monkeypatch
):
    match = reported_match(ladder, alice, [alice], [bob])
    original = matches_api.MatchViewSet.get_object

    def get_object(self):  # type: ignore[no-untyped-def]
        found = original(self)  # before the action: this read works
        failing_read["times"] = 1  # the answer's first read fails
        return found

    monkeypatch.setattr(matches_api.MatchViewSet, "get_object", get_object)
    response = post(bob, match, "confirm")
    assert response.status_code == 200
    assert response.json()["state"] == "confirmed" and "audit" in response.json()  # in full
    assert Match.objects.get(pk=match.pk).state == "confirmed"


@pytest.mark.django_db(transaction=True)
def test_a_committed_confirm_answers_its_state_when_the_database_stays_away(  # type: ignore[no-untyped-def]
    ladder, alice, bob, failing_read, monkeypatch
):
    match = reported_match(ladder, alice, [alice], [bob])
    original = matches_api.MatchViewSet.get_object

    def get_object(self):  # type: ignore[no-untyped-def]
        found = original(self)
        failing_read["times"] = 2  # the read and its retry
        return found

    monkeypatch.setattr(matches_api.MatchViewSet, "get_object", get_object)
    response = post(bob, match, "confirm")
    assert response.status_code == 200
    assert response.json() == {
        "id": match.pk,
        "state": "confirmed",
        "url": f"http://testserver{API}{match.pk}/",
    }
    assert Match.objects.get(pk=match.pk).state == "confirmed"
    # The client's retry, once the database is back: the same success, the whole match.
    retry = post(bob, match, "confirm")
    assert retry.status_code == 200 and retry.json()["state"] == "confirmed"


@pytest.mark.django_db(transaction=True)
def test_a_mail_that_fails_after_the_commit_does_not_fail_the_confirm(  # type: ignore[no-untyped-def]
    ladder, alice, bob, monkeypatch
):
    """The e-mail is written after the commit; the database gone by then (a restart) is
    logged, not answered as a 500 for a confirmation that happened."""
    from ladder.matches import notifications

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OperationalError("the database system is shutting down")

    match = reported_match(ladder, alice, [alice], [bob])
    monkeypatch.setattr(notifications, "_send", broken)
    response = post(bob, match, "confirm")
    assert response.status_code == 200 and response.json()["state"] == "confirmed"
    assert Match.objects.get(pk=match.pk).state == "confirmed"
