"""A report sent again under its Idempotency-Key (issue 29.2): a phone on a flaky network
that never got the answer retries, and gets the same 201 with the match the first request
made; nothing is made, told or rated twice. A key sent with another report, or a malformed
one, is refused and changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import OperationalError, connection
from django.utils import timezone

from ladder.matches import api as matches_api
from ladder.matches import operations as matches
from ladder.matches.errors import ReportKeyReused
from ladder.matches.models import AuditEntry, Match, Notification
from ladder.matches.validation import Report
from tests.matches.support import API, api_client, counts, report_payload, singles_report
from tests.matches.test_matches_concurrency import race

KEY = "3f1c9a5e-6d0b-4c1e-9a43-7f2d51b8e0aa"


def send(user, payload, key: str | None = KEY):  # type: ignore[no-untyped-def]
    headers = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": key}
    return api_client(user).post(API, payload, format="json", **headers)


def written() -> tuple[dict[str, int], int]:
    return counts(), Notification.objects.count()


def test_the_same_report_sent_again_answers_the_match_it_made(ladder, alice, bob):  # type: ignore[no-untyped-def]
    payload = report_payload(ladder, [alice], [bob])
    first = send(alice, payload)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first
    made = written()
    again = send(alice, payload)
    assert again.status_code == 201, again.json()
    assert again["Idempotent-Replayed"] == "true"
    assert again["Location"] == first["Location"]
    assert again.json() == first.json()
    assert written() == made  # no second match, audit entry or notice
    assert Match.objects.get().report_key == KEY


def test_a_repeat_answers_the_match_as_it_is_now(ladder, alice, bob):  # type: ignore[no-untyped-def]
    """Confirmed meanwhile, and the rules would now refuse the report (a duplicate of a
    live match, the pending limit of one): the repeat is still the first request's."""
    ladder.max_pending_reports = 1
    ladder.save()
    payload = report_payload(ladder, [alice], [bob])
    match_id = send(alice, payload).json()["id"]
    assert api_client(bob).post(f"{API}{match_id}/confirm/").status_code == 200
    made = written()
    again = send(alice, payload)
    assert again.status_code == 201
    assert again.json()["id"] == match_id and again.json()["state"] == "confirmed"
    assert written() == made
    # Without the key, the same report is a duplicate, refused.
    refused = send(alice, payload, key=None)
    assert refused.status_code == 400 and "already reported" in str(refused.json())
    assert written() == made


def test_a_repeat_after_an_edit_is_the_report_as_first_sent(ladder, alice, bob):  # type: ignore[no-untyped-def]
    payload = report_payload(ladder, [alice], [bob])
    match_id = send(alice, payload).json()["id"]
    edited = api_client(alice).patch(
        f"{API}{match_id}/", {"games": [[21, 19], [21, 19]]}, format="json"
    )
    assert edited.status_code == 200
    again = send(alice, payload)
    assert again.status_code == 201 and again.json()["score"] == "21-19 21-19"
    assert Match.objects.count() == 1


@pytest.mark.parametrize(
    "change",
    [
        {"games": [[21, 15], [21, 17]]},
        {"played_on": (timezone.localdate() - timedelta(days=1)).isoformat()},
        {"side_a": ["bob"], "side_b": ["alice"], "games": [[15, 21], [18, 21]]},
        {"side_b": ["charlie"]},
    ],
    ids=["score", "date", "sides swapped", "opponent"],
)
def test_the_key_sent_with_another_report_is_refused(ladder, alice, bob, charlie, change):  # type: ignore[no-untyped-def]
    match_id = send(alice, report_payload(ladder, [alice], [bob])).json()["id"]
    made = written()
    response = send(alice, {**report_payload(ladder, [alice], [bob]), **change})
    assert response.status_code == 422, response.json()
    detail = response.json()["detail"]
    assert f"match {match_id}" in detail and "new key" in detail
    assert written() == made


def test_the_key_on_another_ladder_is_refused(ladder, doubles, alice, bob, charlie, dave):  # type: ignore[no-untyped-def]
    send(alice, report_payload(ladder, [alice], [bob]))
    response = send(alice, report_payload(doubles, [alice, bob], [charlie, dave]))
    assert response.status_code == 422
    assert Match.objects.count() == 1


def test_keys_are_each_members_own(ladder, alice, bob, charlie):  # type: ignore[no-untyped-def]
    assert send(alice, report_payload(ladder, [alice], [bob])).status_code == 201
    other = send(charlie, report_payload(ladder, [charlie], [bob]))
    assert other.status_code == 201 and "Idempotent-Replayed" not in other
    assert Match.objects.count() == 2


@pytest.mark.parametrize("key", ["", "x" * 65, "two words", "clé-é", "tab\tkey"], ids=repr)
def test_a_malformed_key_is_refused(ladder, alice, bob, key):  # type: ignore[no-untyped-def]
    made = written()
    response = send(alice, report_payload(ladder, [alice], [bob]), key=key)
    assert response.status_code == 400
    assert "visible ASCII" in response.json()["Idempotency-Key"][0]
    assert written() == made


def test_the_longest_key_is_taken(ladder, alice, bob):  # type: ignore[no-untyped-def]
    key = "K" * 64
    assert send(alice, report_payload(ladder, [alice], [bob]), key=key).status_code == 201
    assert send(alice, report_payload(ladder, [alice], [bob]), key=key).status_code == 201
    assert Match.objects.get().report_key == key


@pytest.mark.django_db(transaction=True)  # the report commits, as in production
def test_a_committed_report_answers_201_when_the_database_fails_after_it(  # type: ignore[no-untyped-def]
    ladder, alice, bob, monkeypatch
):
    """The database goes away after the report committed, while its answer is read (a
    restart): the answer is what was committed, a 201, never a 5xx; the client's repeat
    under its key, once the database is back, gets the whole match."""
    real = matches_api.get_match_for_user
    failing = {"times": 2}  # the read and its retry

    def read(user, pk):  # type: ignore[no-untyped-def]
        if failing["times"] > 0:
            failing["times"] -= 1
            raise OperationalError("terminating connection due to administrator command")
        return real(user, pk)

    monkeypatch.setattr(matches_api, "get_match_for_user", read)
    payload = report_payload(ladder, [alice], [bob])
    response = send(alice, payload)
    match = Match.objects.get()
    url = f"http://testserver{API}{match.pk}/"
    assert response.status_code == 201
    assert response.json() == {"id": match.pk, "state": "pending", "url": url}
    assert response["Location"] == url
    again = send(alice, payload)
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == match.pk and "audit" in again.json()
    assert Match.objects.count() == 1


def test_the_domain_function_takes_the_key(ladder, alice, bob):  # type: ignore[no-untyped-def]
    report = singles_report(ladder, alice, bob)
    first = matches.report_match(Report(**report), key="k1")
    again = matches.report_match(Report(**report), key="k1")
    assert (first.repeated, again.repeated) == (False, True) and again.pk == first.pk
    with pytest.raises(ReportKeyReused):
        matches.report_match(Report(**{**report, "games": [(21, 0), (21, 0)]}), key="k1")
    assert AuditEntry.objects.filter(action="report").count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks")
@pytest.mark.django_db(transaction=True)
def test_a_repeat_sent_while_the_first_is_being_made(ladder, alice, bob):  # type: ignore[no-untyped-def]
    """Two requests under one key at the same moment (a retry while the first is slow): the
    second waits for the first's locks, then answers its match."""
    report = {
        "ladder": ladder,
        "reporter": alice,
        "played_on": timezone.localdate(),
        "side_a": [alice],
        "side_b": [bob],
        "games": [(21, 15), (21, 18)],
    }
    results = race(
        lambda: matches.report_match(Report(**report), key=KEY),
        lambda: matches.report_match(Report(**report), key=KEY),
    )
    assert all(isinstance(r, Match) for r in results), results
    assert {r.pk for r in results} == {Match.objects.get().pk}  # type: ignore[union-attr]
    assert sorted(r.repeated for r in results) == [False, True]  # type: ignore[union-attr]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks")
@pytest.mark.django_db(transaction=True)
def test_two_reports_under_one_key_at_once(ladder, alice, bob, charlie):  # type: ignore[no-untyped-def]
    """A client's bug: one key, two different reports, at the same moment. One is made, the
    other refused as the key's reuse (not a database error)."""

    def report(opponent):  # type: ignore[no-untyped-def]
        return lambda: matches.report_match(
            Report(
                ladder=ladder,
                reporter=alice,
                played_on=timezone.localdate(),
                side_a=[alice],
                side_b=[opponent],
                games=[(21, 15), (21, 18)],
            ),
            key=KEY,
        )

    results = race(report(bob), report(charlie))
    assert sorted(type(r).__name__ for r in results) == ["Match", "ReportKeyReused"], results
    assert Match.objects.count() == 1
