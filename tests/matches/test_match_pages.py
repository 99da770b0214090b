"""The match pages (ladder/matches/views.py): who may do what through the web, the
fragments HTMX gets, and what the database holds afterwards.

The permission table is the domain's (test_matches_permissions.py) seen through the
pages, on the doubles ladder where alice reports alice & bob v charlie & dave.
"""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from ladder.context_processors import to_confirm_count
from ladder.matches import operations as matches
from ladder.matches.inbox import inbox_for
from ladder.matches.models import AuditEntry, Dispute, Match
from ratings import predictions
from tests.factories import LadderFactory, MembershipFactory, UserFactory, reported_match
from tests.matches.support import ROLES, cast_roles, doubles_match, in_state, unchanged

HX = {"HTTP_HX_REQUEST": "true"}
LOGIN = reverse("login")


def url(name: str, match: Match) -> str:
    return reverse(name, args=[match.pk])


@pytest.fixture
def roles(alice, bob, charlie, mod, outsider):
    return cast_roles(alice, bob, charlie, mod, outsider)


@pytest.fixture
def fresh(doubles, alice, bob, charlie, dave, mod):
    def make(state: str = "pending", **kwargs) -> Match:  # type: ignore[no-untyped-def]
        match = doubles_match(doubles, alice, bob, charlie, dave, **kwargs)
        return in_state(state, match, opponent=charlie, reporter=alice, mod=mod)

    return make


def as_role(client, roles, role):  # type: ignore[no-untyped-def]
    if role != "anonymous":
        client.force_login(roles[role])
    return client


# ---- the permission table, through the pages ---------------------------------------------

# transition: (state it starts in, url name, form data, state it leads to, audit action)
TRANSITIONS = {
    "confirm": ("pending", "match_confirm", {}, "confirmed", "confirm"),
    "dispute": (
        "pending",
        "match_dispute",
        {
            "reason": "Game two was 19-21",
            "game_a": ["21", "19", "21"],
            "game_b": ["15", "21", "10"],
        },
        "disputed",
        "dispute",
    ),
    "cancel": ("pending", "match_cancel", {}, "cancelled", "cancel"),
    "resolve": (
        "disputed",
        "match_resolve",
        {"decision": "uphold", "reason": "Both pairs agree now", "game_a": "", "game_b": ""},
        "confirmed",
        "resolve_uphold",
    ),
    "correct": (
        "confirmed",
        "match_correct",
        {"reason": "Typo", "game_a": ["21", "21"], "game_b": ["10", "12"]},
        "corrected",
        "correct",
    ),
    "void": ("confirmed", "match_void", {"reason": "A friendly"}, "voided", "void"),
}
ALLOWED = {
    "confirm": {"opponent"},
    "dispute": {"opponent"},
    "cancel": {"reporter"},
    "resolve": {"moderator"},
    "correct": {"moderator"},
    "void": {"moderator"},
}
MATRIX = [(t, role) for t in TRANSITIONS for role in ROLES]


@pytest.mark.parametrize(("transition", "role"), MATRIX)
def test_permission_matrix(client, roles, fresh, transition, role):
    start, name, data, end, action = TRANSITIONS[transition]
    match = fresh(start)
    audit_before = AuditEntry.objects.filter(match=match).count()
    as_role(client, roles, role)

    if role in ALLOWED[transition]:
        response = client.post(url(name, match), data)
        assert response.status_code == 302, response.content.decode()[:2000]
        assert response["Location"] == match.get_absolute_url()
        match.refresh_from_db()
        assert match.state == end
        entries = AuditEntry.objects.filter(match=match).order_by("pk")
        assert entries.count() == audit_before + 1
        last = entries.last()
        assert (last.action, last.actor, last.to_state) == (action, roles[role], end)
        return

    with unchanged(match):
        response = client.post(url(name, match), data)
    if role == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(LOGIN)
    else:
        assert response.status_code == 403
        assert "Not allowed" in response.content.decode()


@pytest.mark.parametrize("transition", ["dispute", "resolve", "correct", "void"])
@pytest.mark.parametrize("role", ["outsider", "reporter", "partner"])
def test_forms_of_transitions_are_refused_to_others(client, roles, fresh, transition, role):
    start, name, *_ = TRANSITIONS[transition]
    match = fresh(start)
    as_role(client, roles, role)
    response = client.get(url(name, match))
    assert response.status_code == 403


def test_refused_transition_is_a_message_and_back_to_the_match(client, fresh, dave):
    match = fresh("confirmed")  # by charlie: dave's confirm is refused
    client.force_login(dave)
    with unchanged(match):
        response = client.post(url("match_confirm", match), follow=True)
    assert response.redirect_chain[-1][0] == match.get_absolute_url()
    assert "This match is already confirmed" in response.content.decode()


def test_a_confirm_sent_twice_is_confirmed_once(client, fresh, charlie):
    """Issue 29.2: a second submit (a double click, a retry) by the one who confirmed."""
    match = fresh("confirmed")
    client.force_login(charlie)
    with unchanged(match):
        response = client.post(url("match_confirm", match), follow=True)
    assert response.status_code == 200
    assert "Confirmed: thanks." in response.content.decode()


def test_refused_transition_with_htmx_is_a_409_row(client, fresh, charlie):
    match = fresh("cancelled")
    client.force_login(charlie)
    with unchanged(match):
        response = client.post(url("match_confirm", match), **HX)
    assert response.status_code == 409
    page = response.content.decode()
    assert page.startswith("\n<tr") or page.lstrip().startswith("<tr")
    assert "This match is cancelled" in page


def test_confirming_an_overdue_match_is_refused(client, fresh, charlie):
    match = fresh("overdue")
    client.force_login(charlie)
    with unchanged(match):
        response = client.post(url("match_confirm", match), follow=True)
    assert "expired unconfirmed" in response.content.decode()


@pytest.mark.parametrize(
    ("method", "name"),
    [
        ("get", "match_confirm"),
        ("get", "match_cancel"),
        ("put", "match_dispute"),
        ("delete", "match_resolve"),
        ("put", "match_correct"),
        ("put", "match_void"),
        ("post", "match_detail"),
    ],
)
def test_wrong_method_is_refused(client, fresh, mod, method, name):
    match = fresh("pending")
    client.force_login(mod)
    with unchanged(match):
        response = getattr(client, method)(url(name, match))
    assert response.status_code == 405


@pytest.mark.parametrize("name", ["inbox", "moderation", "inbox_badge"])
def test_wrong_method_on_pages(client, mod, name):
    client.force_login(mod)
    assert client.post(reverse(name)).status_code == 405


@pytest.mark.parametrize("name", ["inbox", "moderation"])
def test_anonymous_goes_to_login(client, db, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert response["Location"].startswith(LOGIN)


# ---- the match page -----------------------------------------------------------------------


def test_match_page_shows_sides_games_state_and_history(client, fresh, alice, charlie):
    match = fresh("pending")
    response = client.get(match.get_absolute_url())  # a public ladder: visitors see it
    assert response.status_code == 200
    page = response.content.decode()
    assert "Alice Archer and Bob Baker" in page and "Charlie Chen and Dave Dunn" in page
    assert "Waiting for Charlie Chen or Dave Dunn to confirm until" in page
    assert "Log in</a> to confirm or dispute" in page
    assert "<h2>History</h2>" not in page  # the audit trail is its players' and moderators'

    client.force_login(charlie)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Reported" in page and "21-15 21-18" in page  # the audit trail
    assert f'action="{url("match_confirm", match)}"' in page
    assert f'href="{url("match_dispute", match)}"' in page
    assert "Cancel my report" not in page

    client.force_login(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Cancel my report" in page
    assert "Confirm the score" not in page


def test_match_page_shows_dispute_and_audit_of_every_transition(client, fresh, charlie, mod):
    match = fresh("pending")
    matches.dispute_match(
        match, charlie, "It was 19-21 in the second", [(21, 15), (19, 21), (21, 10)]
    )
    matches.resolve_dispute(
        match, mod, "correct", "Both pairs agree", games=[(21, 15), (19, 21), (21, 10)]
    )
    page = client.get(match.get_absolute_url()).content.decode()
    assert "It was 19-21 in the second" not in page  # a visitor sees the result only
    assert "Both pairs agree" not in page and "<h2>History</h2>" not in page
    client.force_login(charlie)  # a player of the match
    page = client.get(match.get_absolute_url()).content.decode()
    assert "It was 19-21 in the second" in page
    assert "21-15 19-21 21-10" in page  # proposed
    assert "Corrected by Morgan Moderator" in page
    assert "21-15 21-18 → 21-15 19-21 21-10" in page  # before → after in the history
    assert page.count("<td>Morgan Moderator</td>") == 1
    assert "pending → disputed" in page and "disputed → corrected" in page


def test_a_signed_in_player_with_nothing_to_do_is_not_asked_to_log_in(client, fresh, charlie):
    """Seen in Chromium: after disputing, the match page (which offers a rematch) told the
    signed-in player to "Log in to confirm or dispute"."""
    match = fresh("pending")
    matches.dispute_match(match, charlie, "It was 19-21 in the second", [])
    client.force_login(charlie)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Report a rematch" in page
    assert "Log in</a> to confirm or dispute" not in page
    assert "A moderator decides this match; nothing for you to do until then." in page


def test_match_on_a_private_ladder_is_404_for_outsiders(client, private_ladder, alice, outsider):
    bea = UserFactory(username="bea")
    MembershipFactory(ladder=private_ladder, user=bea)
    match = reported_match(private_ladder, alice, [alice], [bea])
    assert client.get(match.get_absolute_url()).status_code == 404
    client.force_login(outsider)
    assert client.get(match.get_absolute_url()).status_code == 404
    assert client.post(url("match_confirm", match)).status_code == 404
    client.force_login(bea)
    assert client.get(match.get_absolute_url()).status_code == 200


def test_match_page_queries_are_bounded(client, fresh, charlie, django_assert_max_num_queries):
    match = fresh("disputed")
    client.force_login(charlie)
    with django_assert_max_num_queries(14):
        assert client.get(match.get_absolute_url()).status_code == 200


# ---- inbox and badge ----------------------------------------------------------------------


def test_inbox_lists_to_confirm_and_my_pending(client, fresh, alice, charlie, bob):
    match = fresh("pending")
    client.force_login(charlie)
    page = client.get(reverse("inbox")).content.decode()
    assert f'id="inbox-match-{match.pk}"' in page
    assert f'hx-post="{url("match_confirm", match)}"' in page
    assert '<span class="badge"' in page  # the navigation badge

    client.force_login(alice)
    page = client.get(reverse("inbox")).content.decode()
    assert "Cancel report" in page and "Nothing to confirm." in page

    client.force_login(bob)  # the reporter's partner has nothing to do
    page = client.get(reverse("inbox")).content.decode()
    assert "Nothing to confirm." in page and "None waiting." in page


def test_confirm_in_place_with_htmx(client, fresh, charlie):
    match = fresh("pending")
    client.force_login(charlie)
    response = client.post(url("match_confirm", match), **HX)
    assert response.status_code == 200
    page = response.content.decode()
    assert f'<tr id="inbox-match-{match.pk}"' in page
    assert "<html" not in page
    assert "Confirmed: thanks" in page and ">Confirm<" not in page
    assert "inbox-changed" in response["HX-Trigger"]
    match.refresh_from_db()
    assert match.state == "confirmed"


def test_cancel_in_place_with_htmx(client, fresh, alice):
    match = fresh("pending")
    client.force_login(alice)
    response = client.post(url("match_cancel", match), **HX)
    assert response.status_code == 200
    assert "Report cancelled" in response.content.decode()
    match.refresh_from_db()
    assert match.state == "cancelled"


def test_dispute_in_place_with_htmx(client, fresh, charlie):
    match = fresh("pending")
    client.force_login(charlie)
    form = client.get(url("match_dispute", match), **HX)
    assert form.status_code == 200
    page = form.content.decode()
    assert 'class="inbox-row dispute-row"' in page and "<html" not in page
    assert page.count('name="game_a"') == 3  # best of 3: room for the whole match

    with unchanged(match):
        refused = client.post(url("match_dispute", match), {"reason": " "}, **HX)
    assert refused.status_code == 400
    assert "Say what is wrong with the reported result." in refused.content.decode()

    bad = client.post(
        url("match_dispute", match), {"reason": "x", "game_a": ["21"], "game_b": ["20"]}, **HX
    )
    assert bad.status_code == 400
    assert "needs a 2-point lead" in bad.content.decode()

    done = client.post(
        url("match_dispute", match),
        {
            "reason": "Second game was 19-21",
            "game_a": ["21", "19", "21"],
            "game_b": ["15", "21", "10"],
        },
        **HX,
    )
    assert done.status_code == 200
    assert "Disputed: a moderator will look at it." in done.content.decode()
    dispute = Dispute.objects.get(match=match)
    assert dispute.proposed_games == [[21, 15], [19, 21], [21, 10]]
    assert dispute.raised_by == charlie

    back = client.get(url("match_dispute", match) + "?cancel=1", **HX)
    assert back.status_code == 200 and "Disputed" in back.content.decode()


def test_dispute_page_without_javascript(client, fresh, charlie):
    match = fresh("pending")
    client.force_login(charlie)
    page = client.get(url("match_dispute", match))
    assert page.status_code == 200
    assert "Dispute this match" in page.content.decode()
    response = client.post(
        url("match_dispute", match) + "?next=/inbox/",
        {"reason": "We lost the second game", "next": "/inbox/"},
    )
    assert response.status_code == 302 and response["Location"] == "/inbox/"
    match.refresh_from_db()
    assert match.state == "disputed"
    assert Dispute.objects.get(match=match).proposed_games is None


def test_the_dispute_form_starts_from_the_reported_score(client, fresh, charlie):
    """Issue 16 #3: the games come filled in as reported; left so they propose nothing, and
    a changed game proposes the whole corrected score."""
    match = fresh("pending")
    client.force_login(charlie)
    page = client.get(url("match_dispute", match)).content.decode()
    assert re.findall(r'name="game_a" value="(\d*)"', page)[:2] == ["21", "21"]
    assert re.findall(r'name="game_b" value="(\d*)"', page)[:2] == ["15", "18"]
    unchanged = {"reason": "Wrong day", "game_a": ["21", "21", ""], "game_b": ["15", "18", ""]}
    client.post(url("match_dispute", match), unchanged)
    assert Dispute.objects.get(match=match).proposed_games is None

    other = fresh("pending", games=[(21, 10), (21, 12)])
    changed = {"reason": "Three games", "game_a": ["21", "19", "21"], "game_b": ["10", "21", "17"]}
    assert client.post(url("match_dispute", other), changed).status_code == 302
    dispute = Dispute.objects.get(match=other)
    assert dispute.proposed_games == [[21, 10], [19, 21], [21, 17]]


def test_next_must_stay_on_the_site(client, fresh, charlie):
    match = fresh("pending")
    client.force_login(charlie)
    response = client.post(url("match_confirm", match), {"next": "https://evil.example/"})
    assert response["Location"] == match.get_absolute_url()


def test_badge_counts_what_the_inbox_lists(
    fresh, doubles, alice, bob, charlie, dave, mod, django_assert_num_queries
):
    fresh("pending")  # charlie and dave confirm
    fresh("overdue", games=[(21, 1), (21, 2)])  # nobody: past its window
    fresh("confirmed", games=[(21, 3), (21, 4)])
    reported_match(doubles, charlie, [charlie, dave], [alice, bob], games=[(21, 5), (21, 6)])
    for user in (alice, bob, charlie, dave, mod):
        with django_assert_num_queries(1):
            count = to_confirm_count(user)
        assert count == inbox_for(user).count
    assert (to_confirm_count(charlie), to_confirm_count(alice), to_confirm_count(mod)) == (1, 1, 0)


def test_badge_fragment(client, fresh, charlie):
    fresh("pending")
    client.force_login(charlie)
    page = client.get(reverse("inbox_badge")).content.decode()
    assert 'id="inbox-badge"' in page and ">1</span>" in page


def test_home_shows_the_inbox_summary(client, fresh, charlie, mod):
    fresh("pending")
    fresh("disputed", games=[(21, 3), (21, 4)])
    client.force_login(charlie)
    page = client.get(reverse("home")).content.decode()
    assert "Your inbox" in page and "1 match to confirm" in page
    client.force_login(mod)
    assert "1 dispute to resolve" in client.get(reverse("home")).content.decode()


# ---- moderation ---------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["reporter", "partner", "opponent", "outsider"])
def test_moderation_queue_is_for_moderators(client, roles, role):
    client.force_login(roles[role])
    response = client.get(reverse("moderation"))
    assert response.status_code == 403
    assert "for moderators" in response.content.decode()


def test_moderation_queue_shows_reported_and_proposed(client, fresh, charlie, mod):
    match = fresh("pending")
    matches.dispute_match(match, charlie, "Second game 19-21", [(21, 15), (19, 21), (21, 10)])
    client.force_login(mod)
    page = client.get(reverse("moderation")).content.decode()
    assert f'id="case-{match.pk}"' in page
    assert "Reported by Alice Archer" in page and "21-15 21-18" in page
    assert "Disputed by Charlie Chen" in page and "21-15 19-21 21-10" in page
    # The correction form is pre-filled with the proposal.
    assert 'name="game_a" value="19"' in page and 'name="game_b" value="10"' in page
    for decision in ("uphold", "correct", "void"):
        assert f'name="decision" value="{decision}"' in page


def test_resolve_requires_a_reason_and_a_decision(client, fresh, mod):
    match = fresh("disputed")
    client.force_login(mod)
    with unchanged(match):
        response = client.post(
            url("match_resolve", match), {"decision": "void", "reason": ""}, **HX
        )
    assert response.status_code == 400
    page = response.content.decode()
    assert "Give the reason for your decision" in page
    assert page.lstrip().startswith("<article")
    with unchanged(match):
        response = client.post(url("match_resolve", match), {"reason": "Enter pressed"})
    assert response.status_code == 400
    assert "Choose uphold, correct or void." in response.content.decode()


def test_moderator_corrects_in_the_queue_with_htmx(client, fresh, charlie, mod):
    match = fresh("pending")
    matches.dispute_match(match, charlie, "Second game 19-21", [(21, 15), (19, 21), (21, 10)])
    client.force_login(mod)
    response = client.post(
        url("match_resolve", match),
        {
            "decision": "correct",
            "reason": "Both pairs agree",
            "game_a": ["21", "19", "21"],
            "game_b": ["15", "21", "10"],
            "played_on": match.played_on.isoformat(),
        },
        **HX,
    )
    assert response.status_code == 200
    assert "Corrected: the new score counts" in response.content.decode()
    match = Match.objects.with_details().get(pk=match.pk)
    assert match.state == "corrected"
    assert match.game_scores == [(21, 15), (19, 21), (21, 10)]
    dispute = Dispute.objects.get(match=match)
    assert (dispute.resolution, dispute.resolved_by) == ("corrected", mod)


def test_moderator_voids_without_htmx(client, fresh, mod):
    match = fresh("disputed")
    client.force_login(mod)
    response = client.post(
        url("match_resolve", match),
        {"decision": "void", "reason": "Not a ladder match", "next": "/moderation/"},
    )
    assert response.status_code == 302 and response["Location"] == "/moderation/"
    match.refresh_from_db()
    assert match.state == "voided"


def test_resolve_of_an_undisputed_match_is_refused(client, fresh, mod):
    match = fresh("confirmed")
    client.force_login(mod)
    with unchanged(match):
        response = client.post(
            url("match_resolve", match), {"decision": "void", "reason": "x"}, **HX
        )
    assert response.status_code == 409
    assert "there is no open dispute" in response.content.decode()


def test_correct_page_rejects_an_invalid_score(client, fresh, mod):
    match = fresh("confirmed")
    client.force_login(mod)
    assert client.get(url("match_correct", match)).status_code == 200
    with unchanged(match):
        response = client.post(
            url("match_correct", match),
            {"reason": "Typo", "game_a": ["21", "21"], "game_b": ["20", "3"]},
        )
    assert response.status_code == 400
    assert "needs a 2-point lead" in response.content.decode()


# ---- reporting ----------------------------------------------------------------------------


def report_url(slug: str = "doubles") -> str:
    return reverse("ladder:report", args=[slug])


def report_data(**overrides):  # type: ignore[no-untyped-def]
    data = {
        "played_on": timezone.localdate().isoformat(),
        "partner_1": "bob",
        "opponent_1": "charlie",
        "opponent_2": "dave",
        "game_a": ["21", "21"],
        "game_b": ["15", "18"],
    }
    data.update(overrides)
    return data


def test_report_form_for_members(client, doubles, alice):
    client.force_login(alice)
    response = client.get(report_url())
    assert response.status_code == 200
    page = response.content.decode()
    for slot in ("partner_1", "opponent_1", "opponent_2"):
        assert f'name="{slot}"' in page
    assert page.count('name="game_a"') == 2  # best of 3: two games to start with
    assert f'value="{timezone.localdate().isoformat()}"' in page  # today
    assert "Choose every player to see who is expected to win." in page
    assert 'hx-trigger="input changed delay:250ms"' in page  # type-ahead
    assert "stat_" not in page  # no stats on this ladder


def test_report_form_refuses_others(client, doubles, outsider, private_ladder, bob):
    assert client.get(report_url()).status_code == 302  # anonymous: log in
    client.force_login(outsider)
    assert client.get(report_url()).status_code == 403
    assert client.post(report_url(), report_data()).status_code == 403
    assert client.get(report_url("squad")).status_code == 404  # private, invisible
    assert not Match.objects.exists()


def test_report_a_doubles_match(client, doubles, alice, bob, charlie, dave, mailoutbox):
    client.force_login(alice)
    response = client.post(report_url(), report_data())
    match = Match.objects.with_details().get()
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    assert (match.side_a_players, match.side_b_players) == ([alice, bob], [charlie, dave])
    assert match.game_scores == [(21, 15), (21, 18)]
    assert (match.state, match.reporter) == ("pending", alice)
    assert AuditEntry.objects.filter(match=match, action="report").count() == 1
    page = client.get(response["Location"]).content.decode()
    assert "Match reported. Charlie Chen or Dave Dunn can now confirm it" in page


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"game_b": ["20", "18"]}, "Game 1: 21-20 is not a valid badminton game to 21"),
        ({"game_a": ["21", ""], "game_b": ["15", "18"]}, "Game 2: enter both scores."),
        ({"game_a": ["x"], "game_b": ["1"]}, "points are whole numbers"),
        ({"opponent_2": "zed"}, "No member of Club Doubles is called 'zed'."),
        ({"opponent_2": "bob"}, "Bob Baker is named twice"),
        ({"played_on": "2001-01-01"}, "is too long ago"),
        (
            {"played_on": (timezone.localdate() + timedelta(days=2)).isoformat()},
            "The date cannot be in the future.",
        ),
        ({"opponent_2": "outsider"}, "No member of Club Doubles is called 'outsider'."),
    ],
)
def test_report_errors_change_nothing(client, doubles, alice, outsider, overrides, message):
    client.force_login(alice)
    with unchanged():
        response = client.post(report_url(), report_data(**overrides))
    assert response.status_code == 400
    assert message in html.unescape(response.content.decode())


@pytest.fixture
def tennis(alice, bob, charlie, dave):  # type: ignore[no-untyped-def]
    """Doubles tennis: best-of-3 and best-of-5 results in one ladder."""
    ladder = LadderFactory(
        name="Tennis Doubles",
        slug="tennis",
        team_size=2,
        scoring_format="generic",
        best_of=5,
        points_per_game=6,
    )
    for user in (alice, bob, charlie, dave):
        MembershipFactory(ladder=ladder, user=user)
    return ladder


@pytest.mark.parametrize(
    ("game_a", "game_b"),
    [
        (["6", "3", "7", ""], ["4", "6", "6", ""]),  # 2-1: a best-of-3
        (["6", "3", "7", "7"], ["4", "6", "5", "6"]),  # 3-1: a best-of-5
    ],
)
def test_report_a_tennis_match_of_any_length_up_to_best_of(client, tennis, alice, game_a, game_b):
    client.force_login(alice)
    page = client.get(report_url("tennis")).content.decode()
    assert "Up to best of 5 games, a shorter match counts" in page
    response = client.post(report_url("tennis"), report_data(game_a=game_a, game_b=game_b))
    assert response.status_code == 302
    games = [(int(a), int(b)) for a, b in zip(game_a, game_b, strict=True) if a]
    assert Match.objects.get().game_scores == games


@pytest.mark.parametrize(
    ("game_a", "game_b", "message"),
    [
        (["6", "4"], ["4", "6"], "The match is tied 1-1 in games"),
        (
            ["6", "6", "4"],
            ["4", "4", "6"],
            "Game 3: the match was already decided after game 2 (2-0 in games, a best-of-3)",
        ),
    ],
)
def test_report_a_tied_tennis_match_or_a_set_after_it_was_decided(
    client, tennis, alice, game_a, game_b, message
):
    client.force_login(alice)
    with unchanged():
        response = client.post(report_url("tennis"), report_data(game_a=game_a, game_b=game_b))
    assert response.status_code == 400
    assert message in response.content.decode()


def test_duplicate_report_is_refused(client, doubles, alice, bob, charlie, dave):
    reported_match(doubles, charlie, [charlie, dave], [alice, bob], games=[(15, 21), (18, 21)])
    client.force_login(alice)
    with unchanged():
        response = client.post(report_url(), report_data())
    assert response.status_code == 400
    assert "This match is already reported" in response.content.decode()


def test_add_and_remove_game_rows(client, doubles, alice):
    client.force_login(alice)
    added = client.post(report_url(), report_data(add_game="1"), **HX)
    assert added.status_code == 200
    page = added.content.decode()
    assert page.lstrip().startswith("<fieldset") and page.count('name="game_a"') == 3
    assert 'value="18"' in page  # what was typed is kept
    assert "+ Add a game" not in page  # best of 3: no fourth game

    removed = client.post(report_url(), report_data(remove_game="1"))  # without JavaScript
    assert removed.status_code == 200
    page = removed.content.decode()
    assert page.count('name="game_a"') == 1 and 'value="18"' in page and 'value="15"' not in page
    assert not Match.objects.exists()


def test_validate_as_you_type_creates_nothing(client, doubles, alice):
    client.force_login(alice)
    validate = reverse("ladder:report_validate", args=["doubles"])
    with unchanged():
        response = client.post(validate, report_data(game_b=["20", "18"]), **HX)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="errors-games" aria-live="polite" hx-swap-oob="true"' in page
    assert "21-20 is not a valid badminton game" in page
    assert 'id="prediction"' in page and "%" in page  # every player known: a prediction

    # Half filled in: no complaints about what is still empty, no prediction yet.
    with unchanged():
        response = client.post(
            validate, report_data(opponent_2="", game_a=["", ""], game_b=["", ""]), **HX
        )
    page = response.content.decode()
    assert "Side B needs" not in page and "needs at least one game" not in page
    assert "Choose every player" in page
    assert 'id="errors-opponent_2" aria-live="polite" hx-swap-oob="true" hidden' in page

    # A complete, valid report: no errors at all.
    with unchanged():
        response = client.post(validate, report_data(), **HX)
    assert "<li>" not in response.content.decode()


def test_prediction_is_the_domains(client, doubles, alice, bob, charlie, dave):
    client.force_login(alice)
    response = client.post(reverse("ladder:report_validate", args=["doubles"]), report_data())
    prediction = predictions.predict_sides(
        doubles, [alice, bob], [charlie, dave], timezone.localdate()
    )
    assert prediction is not None
    expected = prediction.probability
    assert f"{expected * 100:.0f}%" in response.content.decode()


def test_player_search_fragment(client, doubles, alice, outsider):
    client.force_login(alice)
    search = reverse("ladder:player_search", args=["doubles"])
    page = client.get(search, {"slot": "opponent_1", "opponent_1": "cha"}, **HX).content.decode()
    assert "Charlie Chen" in page and "@charlie" in page
    assert "Bob Baker" not in page and "<html" not in page
    assert "Alice" not in client.get(search, {"slot": "opponent_1", "q": "ali"}).content.decode()
    nobody = client.get(search, {"slot": "opponent_1", "q": "olive"}).content.decode()
    assert "No member of Club Doubles matches" in nobody  # outsiders are not members

    picked = client.get(search, {"slot": "opponent_1", "label": "Opponent 1", "pick": "charlie"})
    page = picked.content.decode()
    assert 'id="slot-opponent_1"' in page and 'value="charlie"' in page and "✓ Charlie Chen" in page
    assert "player-picked" in picked["HX-Trigger"]


def test_player_search_needs_a_visible_ladder(client, private_ladder, outsider):
    client.force_login(outsider)
    search = reverse("ladder:player_search", args=["squad"])
    assert client.get(search, {"q": "a"}).status_code == 404


def test_stats_on_a_performance_weighted_ladder(client, alice, bob):
    ladder = LadderFactory(
        name="Stats",
        slug="stats",
        team_method="performance_weighted",
        method_options={"stat_weights": {"kills": 1.0, "deaths": -0.7}},
    )
    for user in (alice, bob):
        MembershipFactory(ladder=ladder, user=user)
    client.force_login(alice)
    page = client.get(report_url("stats")).content.decode()
    assert 'name="stat_me_0"' in page and 'name="stat_opponent_1_1"' in page
    response = client.post(
        report_url("stats"),
        {
            "played_on": timezone.localdate().isoformat(),
            "opponent_1": "bob",
            "game_a": ["21", "21"],
            "game_b": ["15", "18"],
            "stat_me_0": "3",  # deaths (sorted: deaths, kills)
            "stat_me_1": "12",
            "stat_opponent_1_1": "7",
        },
    )
    assert response.status_code == 302
    match = Match.objects.with_details().get()
    stats = {p.user.username: p.stats for p in match.players.all()}
    assert stats == {"alice": {"deaths": 3.0, "kills": 12.0}, "bob": {"kills": 7.0}}


def test_stats_read_the_ladders_labels_and_the_players_names(client, alice, bob):
    ladder = LadderFactory(
        name="Stats",
        slug="stats",
        team_size=2,
        team_method="performance_weighted",
        method_options={
            "stat_weights": {"kills": 1.0, "adr": 0.02},
            "stat_labels": {"adr": "Damage per round"},
        },
    )
    for user in (alice, bob):
        MembershipFactory(ladder=ladder, user=user)
    client.force_login(alice)
    page = html.unescape(client.get(report_url("stats")).content.decode())
    # Columns: the ladder's label, else the name made readable; never the raw "adr".
    assert '<th scope="col">Damage per round</th><th scope="col">Kills</th>' in page
    assert ">adr<" not in page
    # Rows: the reporter by name; a place still to fill says so, not "Partner 1".
    assert 'id="stat-who-me" class="who" title="Alice Archer"' in page
    assert "Your partner (not chosen yet)" in page
    assert 'aria-label="Damage per round: Alice Archer"' in page
    # As players are chosen, validation renames their rows (out of band).
    validate = reverse("ladder:report_validate", args=["stats"])
    feedback = html.unescape(
        client.post(
            validate, {"played_on": timezone.localdate().isoformat(), "partner_1": "bob"}, **HX
        ).content.decode()
    )
    assert 'id="stat-who-partner_1" class="who" title="Bob Baker" hx-swap-oob="true"' in feedback
    assert "Opponent 1 (not chosen yet)" in feedback
    # The ladder page names them too.
    detail = client.get(ladder.get_absolute_url()).content.decode()
    assert "using Damage per round, Kills" in detail


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"adr": ""}, "must be an object of stat name → the label members read"),
        ({"adr": "x" * 41}, "must be an object of stat name → the label members read"),
        ({"speed": "Speed"}, "Stat labels name stats without a weight: speed"),
    ],
)
def test_bad_stat_labels_are_refused(db, labels, message):
    ladder = LadderFactory.build(
        slug="bad-labels",
        team_method="performance_weighted",
        method_options={"stat_weights": {"adr": 0.02}, "stat_labels": labels},
    )
    with pytest.raises(ValidationError) as caught:
        ladder.full_clean()
    assert message in str(caught.value)


def test_ladder_page_links_to_the_report_form_for_members(client, doubles, alice, outsider):
    client.force_login(alice)
    assert report_url() in client.get(doubles.get_absolute_url()).content.decode()
    client.force_login(outsider)
    assert report_url() not in client.get(doubles.get_absolute_url()).content.decode()


def _queries(client, path):  # type: ignore[no-untyped-def]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


def test_inbox_and_moderation_queries_do_not_grow_with_matches(client, fresh, charlie, mod):
    fresh("pending")
    fresh("disputed", games=[(21, 1), (21, 2)])
    client.force_login(charlie)
    inbox_one = _queries(client, reverse("inbox"))
    client.force_login(mod)
    # The first visit also runs the integrity detectors, once, for the menu's count of open
    # flags (they run again only when the ratings change, which pending reports do not).
    client.get(reverse("moderation"))
    queue_one = _queries(client, reverse("moderation"))
    for n in range(3, 6):
        fresh("pending", games=[(21, n), (21, n + 10)])
        fresh("disputed", games=[(n + 10, 21), (n, 21)])
    client.force_login(charlie)
    assert _queries(client, reverse("inbox")) == inbox_one
    client.force_login(mod)
    assert _queries(client, reverse("moderation")) == queue_one
