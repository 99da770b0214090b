"""The permission matrix of test_matches_permissions.py, through the API: 200 (201 for a
report) when allowed, 403 when not, 401 for an anonymous client; nothing changed on refusal."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from tests.matches.support import (
    API,
    ROLES,
    api_client,
    cast_roles,
    doubles_match,
    in_state,
    report_payload,
    unchanged,
)

# transition: (state the match is in, payload, state it leads to)
TRANSITIONS = {
    "confirm": ("pending", {}, "confirmed"),
    "dispute": (
        "pending",
        {"reason": "Game two was 19-21", "proposed_games": [[21, 15], [19, 21], [21, 10]]},
        "disputed",
    ),
    "cancel": ("pending", {}, "cancelled"),
    "resolve": ("disputed", {"decision": "uphold", "reason": "Both pairs agree now"}, "confirmed"),
    "correct": (
        "confirmed",
        {"games": [[21, 10], [21, 12]], "reason": "Typo in the report"},
        "corrected",
    ),
    "void": ("confirmed", {"reason": "A friendly"}, "voided"),
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


@pytest.fixture(autouse=True)
def _no_throttle_history():
    cache.clear()


@pytest.fixture
def roles(alice, bob, charlie, mod, outsider):
    return cast_roles(alice, bob, charlie, mod, outsider)


@pytest.mark.parametrize(
    ("transition", "role", "allowed"),
    MATRIX,
    ids=[f"{t}-{r}-{'ok' if ok else 'refused'}" for t, r, ok in MATRIX],
)
def test_transition_matrix(
    doubles, alice, bob, charlie, dave, mod, roles, transition, role, allowed
):
    state, payload, to_state = TRANSITIONS[transition]
    match = in_state(
        state,
        doubles_match(doubles, alice, bob, charlie, dave),
        opponent=dave,
        reporter=alice,
        mod=mod,
    )
    client = api_client(roles[role])
    url = f"{API}{match.pk}/{transition}/"
    detail = client.get(f"{API}{match.pk}/")
    assert detail.status_code == 200  # a public ladder's matches are visible to all
    assert (transition in detail.json()["allowed_actions"]) is allowed
    if allowed:
        response = client.post(url, payload, format="json")
        assert response.status_code == 200, response.json()
        assert response.json()["state"] == to_state
        return
    with unchanged(match):
        response = client.post(url, payload, format="json")
    if role == "anonymous":
        assert response.status_code == 401
        assert response["WWW-Authenticate"] == "Token"
    else:
        assert response.status_code == 403
        assert response.json()["detail"]


@pytest.mark.parametrize("role", ROLES)
def test_report_matrix(doubles, roles, alice, bob, charlie, dave, role):
    client = api_client(roles[role])
    payload = report_payload(doubles, [alice, bob], [charlie, dave])
    if role in ("reporter", "partner", "opponent"):
        response = client.post(API, payload, format="json")
        assert response.status_code == 201, response.json()
        assert response.json()["reporter"] == roles[role].username
        return
    with unchanged():
        response = client.post(API, payload, format="json")
    assert response.status_code == (401 if role == "anonymous" else 403)
    if role != "anonymous":
        assert response.json() == {
            "detail": "You are not a member of Club Doubles; join it to report matches."
        }
