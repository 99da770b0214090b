"""Who may do what to a match, through the domain operations (RULES.md "Matches").

One table for every transition and every role on the doubles ladder, where alice
reports alice & bob v charlie & dave: the reporter, the reporter's partner (bob), an
opponent (charlie), a moderator (in no ladder), an outsider and an anonymous visitor.
The API runs the same table (test_api_matches_permissions.py).
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from ladder.matches import operations as matches
from ladder.matches.errors import MatchPermissionError
from ladder.matches.models import AuditEntry
from ladder.matches.permissions import allowed_actions
from ladder.matches.validation import Report
from tests.matches.support import ROLES, cast_roles, doubles_match, in_state, unchanged

PROPOSED = [[21, 15], [19, 21], [21, 10]]

# transition: (state the match is in, the call, the state it leads to)
TRANSITIONS = {
    "confirm": ("pending", lambda m, u: matches.confirm_match(m, u), "confirmed"),
    "dispute": (
        "pending",
        lambda m, u: matches.dispute_match(m, u, "Game two was 19-21", PROPOSED),
        "disputed",
    ),
    "cancel": ("pending", lambda m, u: matches.cancel_match(m, u), "cancelled"),
    "resolve": (
        "disputed",
        lambda m, u: matches.resolve_dispute(m, u, "uphold", "Both pairs agree now"),
        "confirmed",
    ),
    "correct": (
        "confirmed",
        lambda m, u: matches.correct_match(m, u, [(21, 10), (21, 12)], "Typo in the report"),
        "corrected",
    ),
    "void": (
        "confirmed",
        lambda m, u: matches.void_match(m, u, "A friendly, not a ladder game"),
        "voided",
    ),
}
ALLOWED = {
    "confirm": {"opponent"},
    "dispute": {"opponent"},
    "cancel": {"reporter"},
    "resolve": {"moderator"},
    "correct": {"moderator"},
    "void": {"moderator"},
}
MATRIX = [(t, role, role in ALLOWED[t]) for t in TRANSITIONS for role in ROLES]


@pytest.fixture
def roles(alice, bob, charlie, mod, outsider):
    return cast_roles(alice, bob, charlie, mod, outsider)


@pytest.fixture
def fresh(doubles, alice, bob, charlie, dave, mod):
    def make(state, **kwargs):
        match = doubles_match(doubles, alice, bob, charlie, dave, **kwargs)
        return in_state(state, match, opponent=dave, reporter=alice, mod=mod)

    return make


@pytest.mark.parametrize(
    ("transition", "role", "allowed"),
    MATRIX,
    ids=[f"{t}-{r}-{'ok' if ok else 'refused'}" for t, r, ok in MATRIX],
)
def test_transition_matrix(fresh, roles, transition, role, allowed):
    state, call, to_state = TRANSITIONS[transition]
    match = fresh(state)
    user = roles[role]
    assert (transition in allowed_actions(match, user)) is allowed
    entries = AuditEntry.objects.count()
    if allowed:
        result = call(match, user)
        assert result.state == to_state
        assert AuditEntry.objects.count() == entries + 1
    else:
        with unchanged(match), pytest.raises(MatchPermissionError) as info:
            call(match, user)
        assert info.value.status == 403
        assert info.value.message


REPORT_ALLOWED = {"reporter", "partner", "opponent"}  # any player who is a member


@pytest.mark.parametrize("role", ROLES)
def test_report_matrix(doubles, roles, alice, bob, charlie, dave, role):
    user = roles[role]
    kwargs = {
        "ladder": doubles,
        "reporter": user,
        "played_on": timezone.localdate(),
        "side_a": [alice, bob],
        "side_b": [charlie, dave],
        "games": [(21, 15), (21, 18)],
    }
    if role in REPORT_ALLOWED:
        match = matches.report_match(Report(**kwargs))
        assert match.state == "pending" and match.reporter == user
    else:
        with unchanged(), pytest.raises(MatchPermissionError) as info:
            matches.report_match(Report(**kwargs))
        assert info.value.status == 403


def test_refusal_messages_say_why(fresh, roles):
    match = fresh("pending")
    cases = {
        "reporter": "You reported this match; one of your opponents must confirm it.",
        "partner": "You played on Alice Archer's side; only a player of the other side can confirm",
        "moderator": "Only a player of the side opposing Alice Archer can confirm",
        "anonymous": "Sign in first.",
    }
    for role, message in cases.items():
        with pytest.raises(MatchPermissionError, match=message):
            matches.confirm_match(match, roles[role])
    with pytest.raises(MatchPermissionError, match="Only Alice Archer, who reported"):
        matches.cancel_match(match, roles["opponent"])
    with pytest.raises(MatchPermissionError, match="Only a moderator can void"):
        matches.void_match(fresh("confirmed", games=[(21, 3), (21, 4)]), roles["reporter"], "no")


def test_a_superuser_is_a_moderator(fresh, db):
    from tests.factories import UserFactory

    boss = UserFactory(username="boss", is_superuser=True)
    match = fresh("disputed")
    assert allowed_actions(match, boss) == {"resolve"}
    assert matches.resolve_dispute(match, boss, "void", "No-show").state == "voided"
