"""factory-boy factories and the fixed cast (healthchecks' Alice/Bob/Charlie).

The cast, as pytest fixtures (imported by tests/accounts/conftest.py and
tests/conftest.py):

- ``ladder``: the public singles ladder "Club Singles" (slug ``singles``);
  ``alice``, ``bob`` and ``charlie`` are its members (alice at level 5.0, rated).
- ``private_ladder``: "Squad" (slug ``squad``), private, with alice as its only member.
- ``mod``: a moderator (Moderators group, hence staff), in no ladder.
- ``outsider``: signed up, in no ladder.

Every cast member's password is ``PASSWORD``.
"""

from __future__ import annotations

from decimal import Decimal

import factory
import pytest
from django.test import Client

from accounts.models import User
from accounts.roles import make_moderator
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.services import save_membership

PASSWORD = "correct-horse-battery-9"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    display_name = factory.LazyAttribute(lambda u: u.username.capitalize())
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def saved(self, create: bool, extracted: object, **kwargs: object) -> None:
        if create:
            self.save()


class LadderFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Ladder
        django_get_or_create = ("slug",)

    name = factory.Sequence(lambda n: f"Ladder {n}")
    slug = factory.LazyAttribute(lambda ladder: ladder.name.lower().replace(" ", "-"))
    description = "Weekly club games."
    scoring_format = "badminton_21"
    best_of = 3
    points_per_game = 21
    team_size = 1


class MembershipFactory(factory.django.DjangoModelFactory):
    """A membership with the starting rating its self-assessment gives (RATINGS.md §4)."""

    class Meta:
        model = Membership

    ladder = factory.SubFactory(LadderFactory)
    user = factory.SubFactory(UserFactory)
    self_level = None
    self_certainty = ""
    initial_rating = 0.0
    initial_rd = 0.0

    @classmethod
    def _create(cls, model_class: type[Membership], *args: object, **kwargs: object) -> Membership:
        membership = model_class(*args, **kwargs)
        membership.apply_self_assessment(membership.self_level, membership.self_certainty)
        save_membership(membership)  # as joining does: the ratings app hears of it
        return membership


def hide(**memberships: object) -> None:
    """The memberships that match stop being public, saved as the profile page saves them
    (a queryset update would not copy it to the rating rows: ``save_membership`` does)."""
    for membership in Membership.objects.filter(**memberships):
        membership.is_public = False
        save_membership(membership, update_fields=["is_public"])


def login(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


# ---- the fixed cast ----------------------------------------------------------------------


@pytest.fixture
def ladder(db: None) -> Ladder:
    return LadderFactory(name="Club Singles", slug="singles")


@pytest.fixture
def private_ladder(db: None, alice: User) -> Ladder:
    squad = LadderFactory(name="Squad", slug="squad", is_public=False)
    MembershipFactory(ladder=squad, user=alice)
    return squad


@pytest.fixture
def alice(ladder: Ladder) -> User:
    user = UserFactory(username="alice", display_name="Alice Archer")
    MembershipFactory(ladder=ladder, user=user, self_level=Decimal("5.0"), self_certainty="rated")
    return user


@pytest.fixture
def bob(ladder: Ladder) -> User:
    user = UserFactory(username="bob", display_name="Bob Baker")
    MembershipFactory(ladder=ladder, user=user)
    return user


@pytest.fixture
def charlie(ladder: Ladder) -> User:
    user = UserFactory(username="charlie", display_name="Charlie Chen")
    MembershipFactory(ladder=ladder, user=user, self_level=Decimal("4.0"))
    return user


@pytest.fixture
def mod(db: None) -> User:
    user = UserFactory(username="mod", display_name="Morgan Moderator")
    make_moderator(user)
    user.refresh_from_db()
    return user


@pytest.fixture
def outsider(db: None) -> User:
    return UserFactory(username="outsider", display_name="Olive Outsider")


# ---- doubles and matches (the matches work) ----------------------------------------------
#
# - ``doubles``: the public doubles ladder "Club Doubles" (slug ``doubles``, team size 2)
#   with alice, bob, charlie and dave as members: alice+bob v charlie+dave.
# - ``dave``: signed up; a member of ``doubles`` only (not of the singles ladder).
# - ``reported_match(...)``: a pending match through the domain operation (audit entry
#   and all), dated today unless told otherwise.


@pytest.fixture
def dave(db: None) -> User:
    return UserFactory(username="dave", display_name="Dave Dunn")


@pytest.fixture
def doubles(alice: User, bob: User, charlie: User, dave: User) -> Ladder:
    ladder = LadderFactory(name="Club Doubles", slug="doubles", team_size=2)
    for user in (alice, bob, charlie, dave):
        MembershipFactory(ladder=ladder, user=user)
    return ladder


def reported_match(
    ladder: Ladder,
    reporter: User,
    side_a: list[User],
    side_b: list[User],
    games: list[tuple[int, int]] | None = None,
    **kwargs: object,
):  # type: ignore[no-untyped-def]
    """Report a match as ``reporter`` (pending), 21-15 21-18 on the day of ``now`` unless told
    otherwise."""
    from django.utils import timezone

    from ladder.matches.operations import report_match
    from ladder.matches.validation import Report

    played_on = (
        kwargs.pop("played_on") if "played_on" in kwargs else timezone.localdate(kwargs.get("now"))  # type: ignore[arg-type]
    )
    report = Report(
        ladder=ladder,
        reporter=reporter,
        played_on=played_on,  # type: ignore[arg-type]
        side_a=side_a,
        side_b=side_b,
        games=games or [(21, 15), (21, 18)],
        stats=kwargs.pop("stats", None),
    )
    return report_match(report, **kwargs)  # type: ignore[arg-type]
