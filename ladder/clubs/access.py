"""Who may see which ladder, member and number: the one access policy (issue 22).

Every page, API answer, export, cache key, prediction, report form and club night asks
this module, from a ``Viewer`` built once per request (``viewer_for``); none of them
states a rule of its own. The rules:

- **Ladders.** A public ladder is seen by everyone; a private one by its members and the
  moderators. To anyone else it does not exist (404).
- **Members.** A member is *listed* to a viewer (leaderboards, member lists, search,
  head-to-head, predictions, club night, their player page) when their account is active
  and their membership is public; a hidden member (``Membership.is_public`` off) is
  listed to themselves and the moderators only. A deactivated account is listed to no
  one, moderators included: it is off every leaderboard, has no player page (404),
  gets no prediction, is at no club night, and no match can be reported against it.
- **Banned members.** A member a moderator banned from a ladder (``Membership.banned_at``,
  set by ``ladder.integrity.bans``) is treated on that ladder as a deactivated account is:
  listed to no one but the moderators (who see the ban), never among the players of a
  prediction, challenge, open game or club night (``players``, ``named(playing=True)``),
  answered as an unknown name to everyone else, and refused with the ban's reason
  (``barred``) on every action of theirs: join, challenge, answer, post or join a game, club
  night, time away, report, confirm, dispute.
- **Names on a match.** Where a match must show a member the viewer may not see, they
  read as ``HIDDEN_PLAYER_NAME``, with no username (no link): a ``Person``. The players of
  one match see every name on it (they played face to face, and must know whose report
  they confirm); moderators see every name (``knows_players``).
- **Numbers.** A rating, a prediction or points at stake about a member is shown only to a
  viewer to whom the member is listed: a name the viewer may not see is answered as an
  unknown name, so no answer tells whether such a member exists.
- **A match's record.** Its result and rating changes are public with its ladder; the
  dispute and moderator reasons and the audit trail are for its players and moderators
  (``knows_players``).
- **The operator** (exports and management commands) sees everything.

This module answers about ladders and people and knows no match (the matches app sits
above it): ``ladder.matches.visibility`` shows a match by asking it about the match's
ladder and each of its people.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import Http404, HttpRequest
from django.utils import timezone
from rest_framework.request import Request

from accounts.models import RequestUser, User, name_contains
from accounts.tokens import TokenAuthentication
from ladder.clubs.models import Ladder, LadderQuerySet, Membership, MembershipQuerySet

HIDDEN_PLAYER_NAME = "Hidden player"
HIDDEN_IN_A_SENTENCE = "a hidden player"  # "third match against a hidden player in 90 days"

# Who sees a rating row, copied onto the row (ratings.PlayerRating.listing) so that listing
# a ladder joins nothing: everyone; only its player and the moderators (a hidden member);
# the moderators only (a banned member); no one (a player who left the ladder, whose row
# replays still need, or a deactivated account).
PUBLIC = "public"
HIDDEN = "hidden"
BANNED = "banned"
LEFT = "left"
LISTINGS = (
    (PUBLIC, "Everyone"),
    (HIDDEN, "The player and moderators"),
    (BANNED, "Moderators only: banned from the ladder"),
    (LEFT, "No one: not a member, or deactivated"),
)


@dataclass(frozen=True)
class Viewer:
    """Who is asking: built once per request (``viewer_for``), or for the operator."""

    user_id: int | None = None
    username: str = ""
    moderator: bool = False  # the Moderators group or a superuser (User.is_moderator)
    superuser: bool = False
    token: bool = False  # signed in with an API token rather than the session
    operator: bool = False  # exports and commands: the club's operator sees everything

    @classmethod
    def of(cls, user: RequestUser | None, *, token: bool = False) -> Viewer:
        """The viewer for ``user`` (a User, AnonymousUser or None)."""
        if not isinstance(user, User) or not user.is_authenticated:
            return VISITOR
        return cls(
            user_id=user.pk,
            username=user.username,
            moderator=bool(user.is_moderator),
            superuser=bool(user.is_superuser),
            token=token,
        )

    @property
    def signed_in(self) -> bool:
        return self.user_id is not None

    @property
    def sees_everyone(self) -> bool:
        """Sees every private ladder, hidden member and name (not deactivated accounts in
        lists: no one does)."""
        return self.moderator or self.operator

    def is_user(self, user_id: int | None) -> bool:
        return self.user_id is not None and self.user_id == user_id


VISITOR = Viewer()
OPERATOR = Viewer(operator=True)


def viewer_for(request: HttpRequest | Request) -> Viewer:
    """The viewer of a request (a Django HttpRequest or a DRF Request), built once: kept on
    the request for its user (DRF authenticates a token after the middleware has run, so a
    viewer built for the session's user is not reused for the token's)."""
    user = request.user
    kept: tuple[int | None, Viewer] | None = getattr(request, "_access_viewer", None)
    if kept is not None and kept[0] == user.pk:
        return kept[1]
    by = getattr(request, "successful_authenticator", None)  # DRF's, for an API request
    viewer = Viewer.of(user, token=isinstance(by, TokenAuthentication))
    setattr(request, "_access_viewer", (user.pk, viewer))  # noqa: B010 (not HttpRequest's)
    return viewer


# ---- ladders ----------------------------------------------------------------------------------


def ladders(viewer: Viewer, queryset: LadderQuerySet | None = None) -> LadderQuerySet:
    """The ladders ``viewer`` may see: public ones, private ones they belong to; every one
    for moderators and the operator."""
    queryset = queryset if queryset is not None else Ladder.objects.all()
    if viewer.sees_everyone:
        return queryset
    if viewer.user_id is None:
        return queryset.filter(is_public=True)
    # Exists, not a join: joining memberships repeats each ladder once per member.
    member = Membership.objects.filter(ladder=OuterRef("pk"), user_id=viewer.user_id)
    return queryset.filter(Q(is_public=True) | Exists(member))


def ladder_or_404(viewer: Viewer, slug: str, queryset: LadderQuerySet | None = None) -> Ladder:
    """The ladder ``slug`` if ``viewer`` may see it; 404 otherwise (a private one too)."""
    try:
        return ladders(viewer, queryset).get(slug=slug)
    except Ladder.DoesNotExist:
        raise Http404("No such ladder.") from None


# ---- members ----------------------------------------------------------------------------------

# An account that may appear anywhere: active.
_ACTIVE = "is_active"
# A membership of a member banned from its ladder.
_BANNED = Q(banned_at__isnull=False)


def listed_q(
    viewer: Viewer,
    *,
    public: Q,
    banned: Q,
    user: str = "user",
    among: Q | None = None,
    active: bool = True,
) -> Q:
    """The listing rule as a condition on rows naming a member at ``user``: rows ``among``
    (all by default) that are ``public`` or the viewer's own, not ``banned``, of an active
    account; every such row, banned ones too, for moderators. ``active=False`` for rows that
    carry their activity already (a rating row's listing)."""
    condition = among if among is not None else Q()
    if active:
        condition &= Q(**{f"{user}__{_ACTIVE}": True})
    if viewer.sees_everyone:
        return condition
    condition &= ~banned
    if viewer.signed_in:
        return condition & (public | Q(**{f"{user}_id": viewer.user_id}))
    return condition & public


def members(viewer: Viewer, queryset: MembershipQuerySet | None = None) -> MembershipQuerySet:
    """The memberships ``viewer`` may see listed (of ``queryset``, by default all)."""
    queryset = queryset if queryset is not None else Membership.objects.all()
    return queryset.filter(listed_q(viewer, public=Q(is_public=True), banned=_BANNED))


def players(viewer: Viewer, queryset: MembershipQuerySet | None = None) -> MembershipQuerySet:
    """The memberships of ``queryset`` listed to ``viewer`` whose members may take part
    (challenge, be challenged, join a game, play at club night): never a banned member,
    moderators included."""
    return members(viewer, queryset).exclude(_BANNED)


def found_q(viewer: Viewer, memberships: MembershipQuerySet, text: str) -> Q:
    """The users a search for ``text`` finds among ``memberships`` (a condition on users):
    the members listed to ``viewer`` whose name contains it, and, for a signed-in viewer, the
    member whose username is exactly ``text`` (a member names a hidden opponent to report a
    match they played face to face; a visitor never finds a hidden member). Never a
    deactivated account."""
    listed = members(viewer, memberships).values("user_id")
    found = Q(pk__in=listed)
    if text:
        found &= name_contains(text)
        if viewer.signed_in:
            named = memberships.exclude(_BANNED).values("user_id")
            found |= Q(username__iexact=text, pk__in=named)
    return found & Q(**{_ACTIVE: True})


def rows_listed_q(viewer: Viewer) -> Q:
    """The listing rule on rows that carry a copy of it (``listing``, from ``listing_of``):
    ratings.PlayerRating."""
    return listed_q(
        viewer,
        public=Q(listing=PUBLIC),
        banned=Q(listing=BANNED),
        among=~Q(listing=LEFT),
        active=False,
    )


def listing_of(membership: Membership | None, active: bool | None = None) -> str:
    """Who sees the rating row of a member whose membership of its ladder is ``membership``
    (None: not a member): ``PUBLIC``, ``HIDDEN`` or ``LEFT``. ``active``: whether the account
    is active, when known without reading ``membership.user``."""
    if membership is None:
        return LEFT
    if active is None:
        active = bool(getattr(membership.user, _ACTIVE))
    if not active:
        return LEFT
    if membership.banned_at is not None:
        return BANNED
    return PUBLIC if membership.is_public else HIDDEN


def rows_seen(viewer: Viewer, own: Membership | None) -> str:
    """Which rows of a ladder ``viewer`` may see, as a cache-key part, given their own
    membership of it (or None): every listed row for moderators, their own hidden row as
    well for a hidden member, else the public rows. Two viewers with the same part see the
    same rows."""
    if viewer.sees_everyone:
        return "all"
    if viewer.signed_in and own is not None and not own.is_public:
        return f"self{viewer.user_id}"
    return PUBLIC


def named(
    viewer: Viewer, ladder: Ladder, names: Sequence[str], *, playing: bool = False
) -> dict[str, User]:
    """The members of ``ladder`` among ``names`` (usernames) whom ``viewer`` may see, by
    username: a prediction, club night and head-to-head take no one else, and answer a
    name left out as they answer an unknown one. ``playing``: only those who may take part
    (``players``: no banned member, whoever asks)."""
    among = Membership.objects.filter(ladder=ladder, user__username__in=names)
    found = players(viewer, among) if playing else members(viewer, among)
    return {m.user.username: m.user for m in found.select_related("user").order_by()}


def _unseen_members(viewer: Viewer, queryset: MembershipQuerySet) -> MembershipQuerySet:
    """The memberships of ``queryset`` whose member's name ``viewer`` may not see."""
    if viewer.sees_everyone:
        return queryset.none()
    rows = queryset.filter(~Q(is_public=True, banned_at__isnull=True, **{f"user__{_ACTIVE}": True}))
    if viewer.user_id is not None:
        rows = rows.exclude(user_id=viewer.user_id)
    return rows


def unseen(viewer: Viewer, ladder_ids: Iterable[int]) -> dict[int, set[int]]:
    """Per ladder, the members whose names ``viewer`` may not see (hidden from them, banned,
    or deactivated): where a match shows them, they read as ``HIDDEN_PLAYER_NAME``."""
    found: dict[int, set[int]] = defaultdict(set)
    if viewer.sees_everyone:
        return found
    rows = _unseen_members(viewer, Membership.objects.filter(ladder_id__in=list(ladder_ids)))
    # No ordering: Membership's default one would join ladders and users to sort the rows.
    for ladder_id, user_id in rows.order_by().values_list("ladder_id", "user_id"):
        found[ladder_id].add(user_id)
    return found


def unseen_ladders(viewer: Viewer, username: str) -> QuerySet[Membership, int]:
    """The ladders (ids, a subquery) on which ``viewer`` may not see the member ``username``:
    a list of matches filtered by that player leaves them out, so that the filter does not
    tell which matches a hidden member played."""
    unseen_on = _unseen_members(viewer, Membership.objects.filter(user__username=username))
    return unseen_on.order_by().values_list("ladder_id", flat=True)


def sees_all_of(viewer: Viewer, ladder: Ladder, users: Iterable[User]) -> bool:
    """Whether every one of ``users`` is listed to ``viewer`` on ``ladder``: a prediction or
    points at stake about them may be shown (the report form names players it may not
    list: the opponents of a match played face to face)."""
    ids = {u.pk for u in users}
    return members(
        viewer, Membership.objects.filter(ladder=ladder, user_id__in=ids)
    ).count() == len(ids)


def barred(ladder: Ladder, user: RequestUser | None) -> str | None:
    """Why ``user`` may not take part on ``ladder`` (join, challenge, answer a challenge,
    post or join a game, club night, time away, report, confirm, dispute), or None: a ban
    from it, the membership's state. To everyone else a banned member reads as no member of
    the ladder: the ban shows nowhere but to moderators."""
    user_id = getattr(user, "pk", None)
    if not isinstance(user_id, int):
        return None
    membership = (
        Membership.objects.filter(ladder=ladder, user_id=user_id)
        .filter(_BANNED)
        .only("banned_at", "ban_reason")
        .first()
    )
    return ban_message(ladder, membership) if membership is not None else None


def ban_message(ladder: Ladder, membership: Membership) -> str:
    """What a banned member is told when they try to take part on ``ladder``."""
    assert membership.banned_at is not None
    on = timezone.localtime(membership.banned_at)
    return (
        f"A moderator banned you from {ladder.name} on {on:%-d %B %Y}: {membership.ban_reason} "
        "You cannot join, challenge, play, report, confirm or dispute matches on it."
    )


def playing_refusal(user: User) -> str | None:
    """Why no match can be reported with ``user`` in it, or None: a deactivated account
    (a ban is ``barred``'s)."""
    if not getattr(user, _ACTIVE):
        return f"{user.name}'s account is deactivated: no match can be reported against it."
    return None


# ---- people as a viewer may see them ------------------------------------------------------------


@dataclass(frozen=True)
class Person:
    """A player as the viewer may see them: no username (no link) for one they may not."""

    name: str
    username: str | None


def in_a_sentence(name: str, username: str | None) -> str:
    """A name for the middle of a sentence: the placeholder reads "a hidden player"."""
    return HIDDEN_IN_A_SENTENCE if not username else name


def person(user_id: int, username: str, display_name: str, unseen_ids: Collection[int]) -> Person:
    """A player by their columns (``User.name``'s rule), or the placeholder when their id is
    among ``unseen_ids`` (``unseen``'s set for the match's ladder)."""
    if user_id in unseen_ids:
        return Person(HIDDEN_PLAYER_NAME, None)
    return Person(display_name or username, username)


def person_of(user: User, unseen_ids: Collection[int]) -> Person:
    """``person`` of a loaded user."""
    return person(user.pk, user.username, user.display_name, unseen_ids)


def knows_players(viewer: Viewer, player_ids: Iterable[int]) -> bool:
    """Whether ``viewer`` sees every name on a match, game or challenge these users play, and
    a match's record (its dispute and moderator reasons, its audit trail): one of its players
    (they meet face to face), or one who sees everyone."""
    return viewer.sees_everyone or any(viewer.is_user(user_id) for user_id in player_ids)


def people(viewer: Viewer, users: Sequence[User], unseen_ids: Collection[int]) -> list[Person]:
    """The players of one game or challenge as ``viewer`` may see them (``unseen_ids``:
    ``unseen``'s set for its ladder): one of its players sees every name on it, as on a
    match; anyone else sees a hidden, banned or deactivated player as the placeholder."""
    if knows_players(viewer, [user.pk for user in users]):
        unseen_ids = set()
    return [person_of(u, unseen_ids) for u in users]


def player_for(viewer: Viewer, username: str) -> tuple[User, list[Membership]]:
    """The player called ``username`` and the memberships of theirs that ``viewer`` may see,
    by ladder name; 404 unless the viewer may see one of those ladders with them listed, or
    is that player (a member of nothing yet), or a moderator. A deactivated account has no
    page for anyone."""
    memberships = list(
        members(
            viewer,
            Membership.objects.filter(user__username=username, ladder__in=ladders(viewer)),
        )
        .select_related("ladder", "user")
        .order_by("ladder__name")
    )
    if memberships:
        return memberships[0].user, memberships
    player = User.objects.filter(username=username, **{_ACTIVE: True}).first()
    if player is None or not (viewer.is_user(player.pk) or viewer.sees_everyone):
        raise Http404("No such player.")
    return player, memberships
