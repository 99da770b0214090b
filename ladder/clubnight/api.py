"""POST /api/v1/ladders/<slug>/club-night/: a proposed round for the players present.

Stateless: the caller sends who is present (members by username, guests by name) and, for
a next round, the rounds already played tonight (the answers it got before); nothing is
stored. The page keeps tonight's
rounds in a ClubNight instead (ladder/clubnight/views.py). Same rules and messages as
the page: ladder/clubnight/services.py (and the search, matchmaking.py).
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import exceptions, permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.tokens import API_AUTHENTICATION
from core.api_schema import ERROR
from core.api_support import InputSerializer, TextField
from ladder.clubnight import services as clubnight
from ladder.clubnight.matchmaking import MAX_COURTS, ClubNightError
from ladder.clubs import access
from ladder.clubs.access import viewer_for
from ratings.models import rating_params

MAX_PRESENT = 200  # a hall, not the whole club twice over


# A previous round is sent back as this endpoint answered it: the pairings count, the rest of
# the answer is read for its form only (a body's fields are the schema's: api_support).
class PairingSerializer(InputSerializer):
    side_a = serializers.ListField(child=TextField(max_length=150), min_length=1)
    side_b = serializers.ListField(child=TextField(max_length=150), min_length=1)
    quality = serializers.FloatField(required=False, help_text="Ignored.")
    win_probability = serializers.FloatField(required=False, help_text="Ignored.")
    repeats = serializers.ListField(required=False, help_text="Ignored.")


class AnsweredPlayerSerializer(InputSerializer):
    username = TextField(max_length=150, required=False)
    rating = serializers.FloatField(required=False)
    rating_display = TextField(max_length=20, required=False)
    rd = serializers.FloatField(required=False)
    rd_display = TextField(max_length=20, required=False)
    status = TextField(max_length=20, required=False)


class AnsweredGuestSerializer(InputSerializer):
    id = TextField(max_length=20, required=False)
    name = TextField(max_length=clubnight.MAX_GUEST_NAME, required=False)


class PreviousRoundSerializer(InputSerializer):
    matches = PairingSerializer(many=True)
    byes = serializers.ListField(
        child=TextField(max_length=150), required=False, help_text="Ignored."
    )
    ladder = TextField(max_length=80, required=False, help_text="Ignored.")
    team_size = serializers.IntegerField(required=False, help_text="Ignored.")
    floor = serializers.FloatField(required=False, help_text="Ignored.")
    exact = serializers.BooleanField(required=False, help_text="Ignored.")
    players = AnsweredPlayerSerializer(many=True, required=False, help_text="Ignored.")
    guests = AnsweredGuestSerializer(many=True, required=False, help_text="Ignored.")


class ClubNightRequestSerializer(InputSerializer):
    present = serializers.ListField(
        child=TextField(max_length=150),
        max_length=MAX_PRESENT,
        help_text="Usernames of the ladder's members in the hall.",
    )
    guests = serializers.ListField(
        child=TextField(max_length=clubnight.MAX_GUEST_NAME),
        required=False,
        max_length=clubnight.MAX_GUESTS,
        help_text="Names of players who are not members (unrated, paired as newcomers). "
        'They are "guest:1", "guest:2", ... in the answer, in this order; send the same '
        "list with every round of the evening.",
    )
    previous_rounds = PreviousRoundSerializer(
        many=True,
        required=False,
        help_text="Tonight's earlier rounds, as this endpoint answered them: their pairings "
        "are avoided, and whoever sat out plays first.",
    )
    courts = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=MAX_COURTS,
        help_text="Courts in the hall: at most this many matches (everyone else sits out).",
    )


class ProposedMatchSerializer(serializers.Serializer):
    side_a = serializers.ListField(
        child=serializers.CharField(), help_text="Usernames; side A is the favourite."
    )
    side_b = serializers.ListField(child=serializers.CharField(), help_text="Usernames.")
    quality = serializers.FloatField(
        help_text="Match quality Q (RATINGS.md §6), in (0, 1]; 1 is an even match between "
        "well-known players."
    )
    win_probability = serializers.FloatField(help_text="Probability that side A wins (≥ 0.5).")
    repeats = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Pairs of this match (usernames or guest ids) who met so, as opponents or "
        "partners, earlier tonight: empty unless no round without a repeat kept every match "
        "at the floor.",
    )


class PresentPlayerSerializer(serializers.Serializer):
    username = serializers.CharField()
    rating = serializers.FloatField(help_text="In rating points.")
    rating_display = serializers.CharField(help_text='As shown: "4.52".')
    rd = serializers.FloatField(help_text="RD grown for inactivity up to today, in points.")
    rd_display = serializers.CharField(help_text='As shown: "0.19".')
    status = serializers.ChoiceField(
        choices=["ranked", "provisional", "inactive", clubnight.UNRATED],
        help_text="RATINGS.md §8, as on the leaderboard; unrated before a first rated match.",
    )


class GuestSerializer(serializers.Serializer):
    id = serializers.CharField(help_text='"guest:1": how the round names them.')
    name = serializers.CharField()


class RoundSerializer(serializers.Serializer):
    ladder = serializers.CharField(help_text="The ladder's slug.")
    team_size = serializers.IntegerField()
    matches = ProposedMatchSerializer(many=True, help_text="Best quality first.")
    byes = serializers.ListField(child=serializers.CharField(), help_text="Who sits out.")
    floor = serializers.FloatField(
        help_text="The match quality every match keeps to where the players present allow "
        "it; a match below it is the closest those players allow."
    )
    exact = serializers.BooleanField(
        help_text="Whether the round is provably the best (halls of up to 12), or the "
        "local search's best."
    )
    players = PresentPlayerSerializer(many=True, help_text="The members present, as listed.")
    guests = GuestSerializer(many=True, help_text="The guests present, as listed (unrated).")


class ClubNightView(APIView):
    """A round of balanced matches for the ladder's members who are present."""

    authentication_classes = API_AUTHENTICATION
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        tags=["club night"],
        summary="Propose a club night round",
        request=ClubNightRequestSerializer,
        responses={
            200: RoundSerializer,
            400: OpenApiResponse(
                description='Bad input, e.g. {"present": ["No member of Club Doubles is '
                'called zed."]} or {"present": ["A doubles match needs 4 players; 3 are '
                'present."]}.'
            ),
            401: OpenApiResponse(ERROR, description="Not signed in."),
            403: OpenApiResponse(ERROR, description="Not a member of the ladder nor a moderator."),
            404: OpenApiResponse(ERROR, description="No such ladder, or not one you may see."),
        },
        examples=[
            OpenApiExample(
                "Next round",
                request_only=True,
                value={
                    "present": ["alice", "bob", "charlie", "dave", "erin"],
                    "previous_rounds": [
                        {
                            "matches": [
                                {"side_a": ["alice", "dave"], "side_b": ["bob", "charlie"]}
                            ],
                            "byes": ["erin"],
                        }
                    ],
                },
            )
        ],
    )
    def post(self, request: Request, slug: str) -> Response:
        viewer = viewer_for(request)
        ladder = access.ladder_or_404(viewer, slug)
        refusal = clubnight.run_refusal(ladder, request.user)
        if refusal is not None:
            raise exceptions.PermissionDenied(refusal)
        data = ClubNightRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        previous = clubnight.pairings_from_json(data.validated_data.get("previous_rounds", []))
        today = timezone.localdate()
        guests: list[clubnight.Guest] = []
        try:
            for typed in data.validated_data.get("guests", []):
                name = clubnight.checked_guest_name(typed, guests)
                guests.append(clubnight.Guest(f"{clubnight.GUEST_PREFIX}{len(guests) + 1}", name))
        except ClubNightError as exc:
            raise exceptions.ValidationError({"guests": [str(exc)]}) from None
        try:
            users = clubnight.members_named(ladder, data.validated_data["present"], viewer)
            rnd = clubnight.propose_round(
                ladder, users, previous, today, data.validated_data.get("courts"), guests
            )
        except ClubNightError as exc:
            raise exceptions.ValidationError({"present": [str(exc)]}) from None
        states = clubnight.hall_states(ladder, users)
        params = rating_params(ladder)
        players = []
        for user in users:
            shown = clubnight.standing(ladder, states[user.pk][0], today, params)
            players.append(
                {
                    "username": user.username,
                    "rating": shown.rating,
                    "rating_display": shown.rating_display,
                    "rd": shown.rd,
                    "rd_display": shown.rd_display,
                    "status": shown.status,
                }
            )
        body = {
            "ladder": ladder.slug,
            "team_size": ladder.team_size,
            **clubnight.round_to_json(rnd),
            "exact": rnd.exact,
            "players": players,
            "guests": [{"id": g.id, "name": g.name} for g in guests],
        }
        return Response(RoundSerializer(body).data)
