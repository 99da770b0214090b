"""Joining a ladder with the optional self-assessment (RATINGS.md §4)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from ladder.clubs.models import Membership
from ladder.clubs.services import LadderError, join_ladder
from tests.factories import LadderFactory, UserFactory


def join_url(slug="singles"):
    return reverse("ladder:join", args=[slug])


@pytest.mark.parametrize(
    ("level", "certainty", "rating", "rd"),
    [
        ("5.5", "rated", 5500, 150),
        ("3.0", "regular", 3000, 200),
        ("2.0", "unsure", 2000, 250),
        ("6.0", "", 6000, 250),  # level only: the ladder's RD
        ("", "rated", 4500, 150),  # certainty only: the ladder's rating
        ("", "", 4500, 250),  # skipped: the ladder's defaults
    ],
)
def test_join_stores_the_starting_rating(client, outsider, ladder, level, certainty, rating, rd):
    client.force_login(outsider)
    response = client.post(join_url(), {"level": level, "certainty": certainty})

    assert response.status_code == 302
    assert response["Location"] == ladder.get_absolute_url()
    membership = Membership.objects.get(ladder=ladder, user=outsider)
    assert (membership.initial_rating, membership.initial_rd) == (rating, rd)
    assert membership.self_level == (Decimal(level) if level else None)
    assert membership.self_certainty == certainty
    assert membership.is_public


def test_skipped_assessment_uses_this_ladders_own_defaults(client, outsider):
    LadderFactory(name="Gentle", slug="gentle", initial_rating=4000, initial_rd=300)
    client.force_login(outsider)
    client.post(join_url("gentle"), {})
    membership = Membership.objects.get(ladder__slug="gentle", user=outsider)
    assert (membership.initial_rating, membership.initial_rd) == (4000, 300)


def test_join_page_shows_levels_and_certainty(client, outsider, ladder):
    client.force_login(outsider)
    response = client.get(join_url())
    assert response.status_code == 200
    page = response.content.decode()
    assert "Skip – ladder default (4.50)" in page
    # Issue 37: skipping read as the level of the same number ("4.5 – Strong club player").
    assert "Skip it and you start at 4.50, ladder default: not a level" in page
    assert "5.5 – Top club player" in page
    assert "I have a rating from league or tournament play" in page
    assert 'name="certainty"' in page and 'type="radio"' in page


@pytest.mark.parametrize(
    "data",
    [{"level": "7.0"}, {"level": "4.3"}, {"level": "abc"}, {"certainty": "expert"}],
)
def test_invalid_answers_are_refused_and_nothing_is_created(client, outsider, ladder, data):
    client.force_login(outsider)
    response = client.post(join_url(), data)
    assert response.status_code == 200
    assert response.context["form"].errors
    assert "Select a valid choice" in response.content.decode()
    assert not Membership.objects.filter(user=outsider).exists()


def test_joining_twice_is_refused(client, alice, ladder):
    before = Membership.objects.get(user=alice, ladder=ladder)
    client.force_login(alice)
    response = client.post(join_url(), {"level": "2.0"}, follow=True)
    assert "You are already a member of Club Singles." in response.content.decode()
    assert Membership.objects.filter(user=alice, ladder=ladder).count() == 1
    after = Membership.objects.get(user=alice, ladder=ladder)
    assert after.initial_rating == before.initial_rating == 5000


def test_join_ladder_refuses_a_second_membership(alice, ladder):
    with pytest.raises(LadderError, match="already a member of Club Singles"):
        join_ladder(alice, ladder)


def test_join_ladder_refuses_a_level_outside_the_ladders_range(outsider):
    narrow = LadderFactory(name="Open", slug="open", rating_min=3000)
    with pytest.raises(LadderError, match="does not fit Open"):
        join_ladder(outsider, narrow, Decimal("2.0"))
    assert not Membership.objects.filter(user=outsider).exists()


def test_anonymous_is_sent_to_login(client, ladder):
    for response in (client.get(join_url()), client.post(join_url(), {})):
        assert response.status_code == 302
        assert response["Location"] == f"{reverse('login')}?next={join_url()}"
    assert not Membership.objects.exists()


def test_private_ladder_is_invisible_to_outsiders(client, outsider, private_ladder):
    client.force_login(outsider)
    assert client.get(join_url("squad")).status_code == 404
    assert client.post(join_url("squad"), {}).status_code == 404
    assert not Membership.objects.filter(user=outsider).exists()


def test_private_ladder_cannot_be_joined_through_the_service(outsider, private_ladder):
    with pytest.raises(LadderError, match="private"):
        join_ladder(outsider, private_ladder)


def test_moderator_may_join_a_private_ladder(client, mod, private_ladder):
    client.force_login(mod)
    response = client.post(join_url("squad"), {"level": "4.0", "certainty": "regular"})
    assert response.status_code == 302
    membership = Membership.objects.get(user=mod, ladder=private_ladder)
    assert (membership.initial_rating, membership.initial_rd) == (4000, 200)


def test_unknown_ladder_is_404(client, outsider):
    client.force_login(outsider)
    assert client.get(join_url("nope")).status_code == 404


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_wrong_methods_are_refused(client, outsider, ladder, method):
    client.force_login(outsider)
    assert getattr(client, method)(join_url()).status_code == 405


# ---- HTMX: joining from a ladder card, in place ------------------------------------------

HX = {"HTTP_HX_REQUEST": "true"}


def test_htmx_get_swaps_in_the_form_and_cancel_restores_the_button(client, outsider, ladder):
    client.force_login(outsider)
    response = client.get(join_url(), **HX)
    page = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in page
    assert 'id="join-singles"' in page and 'hx-post="/ladders/singles/join/"' in page

    page = client.get(join_url() + "?cancel=1", **HX).content.decode()
    assert "<form" not in page and ">Join</a>" in page


def test_htmx_post_swaps_in_the_member_tag(client, outsider, ladder):
    client.force_login(outsider)
    response = client.post(join_url(), {"level": "4.5", "certainty": "regular"}, **HX)
    page = response.content.decode()
    assert response.status_code == 200
    assert "✓ Member" in page and "You start at 4.50 ± 0.20." in page
    assert '<dd id="members-singles" hx-swap-oob="true">1</dd>' in page
    assert Membership.objects.filter(user=outsider, ladder=ladder).exists()


def test_htmx_post_with_errors_keeps_the_form_in_place(client, outsider, ladder):
    client.force_login(outsider)
    response = client.post(join_url(), {"level": "9.9"}, **HX)
    page = response.content.decode()
    assert 'id="join-singles"' in page and "Select a valid choice" in page
    assert not Membership.objects.filter(user=outsider).exists()


def test_join_from_the_factory_cast(alice, bob, charlie, ladder):
    # The cast's starting ratings, as the fixtures promise.
    starts = {
        m.user.username: (m.initial_rating, m.initial_rd)
        for m in Membership.objects.filter(ladder=ladder).select_related("user")
    }
    assert starts == {"alice": (5000, 150), "bob": (4500, 250), "charlie": (4000, 250)}


def test_a_new_user_can_join_several_ladders(db):
    user = UserFactory(username="zoe")
    first, second = LadderFactory(name="One", slug="one"), LadderFactory(name="Two", slug="two")
    join_ladder(user, first)
    join_ladder(user, second, Decimal("5.0"), "regular")
    assert user.memberships.count() == 2


def test_a_ladder_of_another_sport_describes_levels_without_badminton(client, outsider):
    """Issue 23, bug 6: the 5v5 league's join form offered "clears and serves"."""
    LadderFactory(
        name="5v5 League", slug="fives", scoring_format="generic", best_of=1, points_per_game=16
    )
    client.force_login(outsider)
    page = client.get(join_url("fives")).content.decode()
    assert "4.0 – Regular club player: all the basics, play every week." in page
    for badminton in ("shuttle", "clears", "serve", "footwork"):
        assert badminton not in page.lower(), badminton
    response = client.post(join_url("fives"), {"level": "4.0", "certainty": "regular"})
    assert response.status_code == 302
    membership = Membership.objects.get(ladder__slug="fives", user=outsider)
    assert (membership.self_level, membership.initial_rating) == (Decimal("4.0"), 4000)


def test_the_member_card_says_a_skipped_level_is_no_level(client, outsider, alice, ladder):
    """Issue 37: a newcomer who skipped read "starting at 4.50" as the level 4.5."""
    client.force_login(outsider)
    client.post(join_url(), {})
    page = client.get("/ladders/singles/").content.decode()
    assert "(no level given: your first matches place you)" in page
    client.force_login(alice)  # joined with level 5.0
    assert "no level given" not in client.get("/ladders/singles/").content.decode()
