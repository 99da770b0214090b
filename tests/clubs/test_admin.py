"""Ladder admin: moderators manage ladders and members; members cannot get in."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ladder.clubs.models import Ladder, Membership

CHANGELIST = reverse("admin:clubs_ladder_changelist")
ADD = reverse("admin:clubs_ladder_add")

INLINE_EMPTY = {
    "memberships-TOTAL_FORMS": "0",
    "memberships-INITIAL_FORMS": "0",
    "memberships-MIN_NUM_FORMS": "0",
    "memberships-MAX_NUM_FORMS": "1000",
}


def ladder_form(**overrides):
    """The admin's add form as a browser posts it, with the model defaults."""
    data = {
        "name": "Mixed Doubles",
        "slug": "mixed",
        "description": "",
        "is_public": "on",
        "team_size": "2",
        "scoring_format": "badminton_21",
        "best_of": "",
        "points_per_game": "",
        "team_method": "composite_opponent",
        "composite_rd": "mean",
        "method_options": "{}",
        "tau": "0.5",
        "scale_factor": "400",
        "repetition_alpha": "0.2",
        "diversity_threshold": "0.2",
        "outcome_model": "margin_information",
        "margin_boost": "1",
        "match_win_bonus": "0.4",
        "margin_weight": "0.25",
        "margin_clamp": "0.25",
        "newcomer_start": "initial",
        "rating_center": "4500",
        "rating_min": "2000",
        "rating_max": "9000",
        "rd_max": "500",
        "initial_rating": "4500",
        "initial_rd": "250",
        "initial_volatility": "0.06",
        "lookback_days": "90",
        "rating_period_days": "7",
        "season_start_periods": "0",
        "ranked_min_matches": "5",
        "ranked_rd": "120",
        "max_report_age_days": "14",
        "confirm_within_hours": "168",
        "max_pending_reports": "10",
        "reports_per_hour": "20",
        **INLINE_EMPTY,
    }
    data.update(overrides)
    return data


def test_moderator_opens_the_changelist_and_a_ladder(client, mod, ladder):
    client.force_login(mod)
    response = client.get(CHANGELIST)
    assert response.status_code == 200
    assert "Club Singles" in response.content.decode()
    page = client.get(reverse("admin:clubs_ladder_change", args=[ladder.pk])).content.decode()
    for heading in ("Basics", "Scoring", "Rating method and parameters", "Ranking", "Match policy"):
        assert heading in page
    for field in (
        "outcome_model",
        "margin_boost",
        "ranked_min_matches",
        "ranked_rd",
        "season_start_periods",
    ):
        assert f'name="{field}"' in page
    # RATINGS.md §3 step 1's raise at a season's start, explained beside its field.
    assert "RD raise at a season" in page
    assert "0 (the default): a season's start changes nothing" in page
    # The wrong-way floor is always on for a ladder: nothing to switch it off with.
    assert "wrong_way_floor" not in page


def test_moderator_adds_a_ladder(client, mod):
    client.force_login(mod)
    assert client.get(ADD).status_code == 200
    response = client.post(ADD, ladder_form())
    assert response.status_code == 302, response.context["adminform"].form.errors
    ladder = Ladder.objects.get(slug="mixed")
    assert (ladder.team_size, ladder.best_of, ladder.points_per_game) == (2, 3, 21)


def test_a_five_a_side_ladder_added_with_the_forms_defaults_gets_the_team_preset(client, mod):
    # RATINGS.md §2 "Presets": margin boost 0 from three a side; the add page says so.
    client.force_login(mod)
    assert "starts with margin boost 0" in client.get(ADD).content.decode()
    response = client.post(ADD, ladder_form(name="Friday 5v5", slug="five", team_size="5"))
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Ladder.objects.get(slug="five").params().margin_boost == 0.0
    # Another boost given when it is made stays; doubles keep §2's.
    assert (
        client.post(ADD, ladder_form(slug="five-b", team_size="5", margin_boost="0.8")).status_code
        == 302
    )
    assert Ladder.objects.get(slug="five-b").margin_boost == 0.8
    assert client.post(ADD, ladder_form()).status_code == 302
    assert Ladder.objects.get(slug="mixed").margin_boost == 1.0


def test_moderator_sets_the_outcome_model_and_ranking(client, mod):
    client.force_login(mod)
    form = ladder_form(
        outcome_model="score", margin_boost="2.5", ranked_min_matches="8", ranked_rd="90"
    )
    assert client.post(ADD, form).status_code == 302
    ladder = Ladder.objects.get(slug="mixed")
    assert (ladder.ranked_min_matches, ladder.ranked_rd) == (8, 90.0)
    params = ladder.params()
    assert (params.outcome_model, params.margin_boost, params.wrong_way_floor) == (
        "score",
        2.5,
        True,
    )


def test_moderator_adds_a_member_inline_with_a_self_assessment(client, mod, ladder, outsider):
    client.force_login(mod)
    url = reverse("admin:clubs_ladder_change", args=[ladder.pk])
    data = ladder_form(name="Club Singles", slug="singles", team_size="1")
    data.update(
        {
            "memberships-TOTAL_FORMS": "1",
            "memberships-0-user": str(outsider.pk),
            "memberships-0-is_public": "on",
            "memberships-0-self_level": "5.5",
            "memberships-0-self_certainty": "rated",
            "memberships-0-ladder": str(ladder.pk),
        }
    )
    response = client.post(url, data)
    assert response.status_code == 302, response.context["inline_admin_formsets"][0].formset.errors
    membership = Membership.objects.get(ladder=ladder, user=outsider)
    assert (membership.initial_rating, membership.initial_rd) == (5500, 150)


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"team_size": "6"}, "team_size"),
        ({"team_size": "0"}, "team_size"),
        ({"scoring_format": "generic", "best_of": "2", "points_per_game": "16"}, "best_of"),
        ({"scoring_format": "generic", "best_of": "3", "points_per_game": ""}, "points_per_game"),
        ({"method_options": '{"bogus": 1}'}, "method_options"),
        ({"method_options": "not json"}, "method_options"),
        ({"rating_min": "5000", "rating_max": "4000"}, "rating_max"),
        ({"tau": "0"}, "tau"),
        ({"outcome_model": "best_guess"}, "outcome_model"),
        ({"margin_boost": "-0.5"}, "margin_boost"),
        ({"margin_boost": "11"}, "margin_boost"),
        ({"ranked_min_matches": "0"}, "ranked_min_matches"),
        ({"ranked_rd": "0"}, "ranked_rd"),
        ({"ranked_rd": "501"}, "ranked_rd"),
        ({"team_method": "performance_weighted"}, "team_method"),
        ({"method_options": '{"wrong_way_floor": false}'}, "method_options"),
        ({"season_start_periods": "-1"}, "season_start_periods"),
        ({"season_start_periods": "1001"}, "season_start_periods"),
        ({"season_start_periods": "2.5"}, "season_start_periods"),
        ({"season_start_periods": ""}, "season_start_periods"),
    ],
)
def test_invalid_parameters_are_refused(client, mod, overrides, field):
    client.force_login(mod)
    response = client.post(ADD, ladder_form(**overrides))
    assert response.status_code == 200
    assert field in response.context["adminform"].form.errors
    assert not Ladder.objects.exists()


def test_bad_settings_on_an_existing_ladder_change_nothing(client, mod, ladder):
    client.force_login(mod)
    url = reverse("admin:clubs_ladder_change", args=[ladder.pk])
    before = Ladder.objects.filter(pk=ladder.pk).values().get()
    form = ladder_form(
        name="Club Singles", slug="singles", team_size="1", team_method="performance_weighted"
    )
    response = client.post(url, form)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors["team_method"] == [
        "Performance weighted needs stat weights: without them it would silently be "
        "composite_opponent; set the ladder's stat weights or choose another team method."
    ]
    assert Ladder.objects.filter(pk=ladder.pk).values().get() == before


def test_a_season_start_raise_out_of_range_is_refused_in_words(client, mod, ladder):
    """RATINGS.md §3 step 1: the raise is a whole number of periods from 0 to 1000; the
    engine's refusal reads on the field, and the ladder stays as it was."""
    client.force_login(mod)
    url = reverse("admin:clubs_ladder_change", args=[ladder.pk])
    before = Ladder.objects.filter(pk=ladder.pk).values().get()
    form = ladder_form(name="Club Singles", slug="singles", team_size="1")
    response = client.post(url, {**form, "season_start_periods": "1001"})
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["season_start_periods"] == [
        "RD raise at a season's start must be a whole number of rating periods from 0 to 1000."
    ]
    response = client.post(url, {**form, "season_start_periods": "-3"})
    assert "season_start_periods" in response.context["adminform"].form.errors
    assert Ladder.objects.filter(pk=ladder.pk).values().get() == before
    response = client.post(url, {**form, "season_start_periods": "4"})
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Ladder.objects.get(pk=ladder.pk).params().season_start_periods == 4


def test_a_member_cannot_get_into_the_admin(client, alice, ladder):
    client.force_login(alice)
    for url in (CHANGELIST, ADD):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))
    client.post(ADD, ladder_form())
    assert not Ladder.objects.filter(slug="mixed").exists()


def test_visitor_cannot_get_into_the_admin(client, db):
    assert client.get(CHANGELIST).status_code == 302


def test_moderator_may_view_users_but_not_change_them(client, mod, alice):
    client.force_login(mod)
    assert client.get(reverse("admin:accounts_user_changelist")).status_code == 200
    change = reverse("admin:accounts_user_change", args=[alice.pk])
    response = client.post(change, {"username": "alice", "is_superuser": "on"})
    assert response.status_code == 403
    alice.refresh_from_db()
    assert not alice.is_superuser


def test_superuser_uses_the_user_admin_with_display_name(client, db):
    from tests.factories import UserFactory

    boss = UserFactory(username="boss", is_staff=True, is_superuser=True)
    client.force_login(boss)
    page = client.get(reverse("admin:accounts_user_add")).content.decode()
    assert 'name="display_name"' in page and 'name="email"' in page
    response = client.post(
        reverse("admin:accounts_user_add"),
        {
            "username": "newbie",
            "email": "BOSS@example.org",  # taken, in another case
            "display_name": "New",
            "usable_password": "true",
            "password1": "a-long-and-unusual-pass-42",
            "password2": "a-long-and-unusual-pass-42",
        },
    )
    assert response.status_code == 200
    assert "email" in response.context["adminform"].form.errors


def test_a_big_ladder_links_to_its_members_and_its_settings_still_save(
    client, mod, ladder, monkeypatch
):
    """Past MEMBER_INLINE_LIMIT members the ladder's page links to them instead of a form
    row each: with a row each, saving the settings sent more fields than Django accepts."""
    from tests.factories import MembershipFactory, UserFactory

    for i in range(3):
        MembershipFactory(ladder=ladder, user=UserFactory(username=f"m{i}"))
    url = reverse("admin:clubs_ladder_change", args=[ladder.pk])
    members = f"/admin/clubs/membership/?ladder__id__exact={ladder.pk}"
    client.force_login(mod)
    page = client.get(url).content.decode()
    assert "memberships-TOTAL_FORMS" in page and f'3 (below, or <a href="{members}">' in page
    monkeypatch.setattr("ladder.clubs.admin.MEMBER_INLINE_LIMIT", 2)
    page = client.get(url).content.decode()
    assert "memberships-TOTAL_FORMS" not in page
    assert f'3 — <a href="{members}">see and edit them</a>' in page
    data = ladder_form(name="Club Singles League", slug="singles", team_size="1")
    for key in INLINE_EMPTY:
        del data[key]  # no member rows on the page, so none in the form
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Ladder.objects.get(pk=ladder.pk).name == "Club Singles League"
    assert Membership.objects.filter(ladder=ladder).count() == 3
    listed = client.get(members).content.decode()
    assert all(f"M{i}" in listed for i in range(3))


def test_a_ladder_with_more_members_than_form_fields_allow_saves(client, mod, ladder):
    """At the real limit: 200 members with a form row each would send ~1,250 fields, over
    Django's DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000), and saving the settings failed."""
    from tests.factories import MembershipFactory, UserFactory

    for i in range(200):
        MembershipFactory(ladder=ladder, user=UserFactory(username=f"many{i:03d}"))
    client.force_login(mod)
    url = reverse("admin:clubs_ladder_change", args=[ladder.pk])
    assert "memberships-TOTAL_FORMS" not in client.get(url).content.decode()
    data = ladder_form(name="Big Club", slug="singles", team_size="1")
    for key in INLINE_EMPTY:
        del data[key]
    assert client.post(url, data).status_code == 302
    assert Ladder.objects.get(pk=ladder.pk).name == "Big Club"


def test_the_match_list_searches_players_without_repeating_a_match(client, mod, ladder, alice, bob):
    """A search through both players of a match lists it once; the plain list counts the
    matches without DISTINCT (over every column of 200,000 matches, each count took 100+ ms)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.factories import reported_match

    match = reported_match(ladder, alice, [alice], [bob])
    client.force_login(mod)
    url = reverse("admin:matches_match_changelist")
    found = client.get(url, {"q": "a"})  # in "Alice Archer" and "Bob Baker"
    assert [m.pk for m in found.context["cl"].result_list] == [match.pk]
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    counts = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"]]
    assert counts and not any("DISTINCT" in sql for sql in counts)
