"""Rating pages: the leaderboard (the main content of /ladders/<slug>/), player pages and
head-to-head.

Thin views (STYLE.md): the ladder comes through ``get_ladder_for_user``, the data through
``ratings.leaderboards``, ``ratings.histories`` and ``ratings.predictions`` (the same
functions the API uses), and each page is a fixed number of
queries however many players and matches there are. With HTMX the same view renders
just the fragment the request targets (the leaderboard table, a player's match list);
every link keeps its ``href``, so the pages work without JavaScript.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Page, Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import patch_vary_headers
from django.utils.functional import cached_property
from django.views.decorators.http import require_GET, require_http_methods

from accounts.models import name_contains
from ladder.clubs import access
from ladder.clubs.access import viewer_for
from ladder.clubs.forms import AwayForm, JoinForm
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.services import can_join
from ladder.clubs.views import HtmxHttpRequest, get_ladder_for_user
from ratings import histories, leaderboards, predictions
from ratings.chart import (
    DEFAULT_RANGE,
    NARROW_HEIGHT,
    NARROW_WIDTH,
    RANGES,
    rating_chart,
    since_of,
)
from ratings.forms import LeaderboardFilterForm, SeasonForm
from ratings.models import TREND_DAYS, PlayerRating, RatingChange, Season, today
from ratings.seasons import SeasonError, season_table
from ratings.stakes import points_at_stake
from ratings.upkeep import delete_season, save_season


def _fragment(request: HtmxHttpRequest, target: str) -> bool:
    """Whether to answer with just the fragment ``target`` (an HTMX swap, not a history restore)."""
    htmx = request.htmx
    return bool(htmx) and htmx.target == target and not htmx.history_restore_request


def _respond(
    request: HtmxHttpRequest, page: str, fragment: str, target: str, context: Mapping[str, object]
) -> HttpResponse:
    template = fragment if _fragment(request, target) else page
    response = render(request, template, context)
    patch_vary_headers(response, ("HX-Request", "HX-Target"))
    return response


# ---- leaderboard -------------------------------------------------------------------------


class CountedPaginator(Paginator):
    """A paginator told its count (the leaderboard counts each status anyway)."""

    def __init__(self, object_list: Any, per_page: int, count: int) -> None:
        super().__init__(object_list, per_page)
        self._count = count

    @cached_property
    def count(self) -> int:
        return self._count


def leaderboard(
    request: HtmxHttpRequest,
    ladder: Ladder,
    membership: Membership | None,
    context: dict[str, object],
) -> HttpResponse:
    """The ladder page (``ladder_detail`` passes the side panel's context and the viewer's
    ``membership`` of the ladder, or None)."""
    text, status = LeaderboardFilterForm(request.GET or None).values()
    board = leaderboards.board_page(
        ladder,
        viewer_for(request),
        membership,
        text=text,
        status=status,
        page=request.GET.get("page", ""),
        season=not _fragment(request, "leaderboard"),
    )
    paginator = CountedPaginator([], leaderboards.LEADERBOARD_PAGE_SIZE, board["total"])
    page = Page(board["rows"], board["number"], paginator)
    counts, unrated = board["counts"], board["unrated"]
    if board["season"] is not None:
        context["season"], context["season_rows"], context["season_more"] = board["season"]
    context.update(
        {
            "ladder": ladder,
            "page": page,
            "q": text,
            "status": status,
            "status_filters": leaderboards.STATUS_FILTERS,
            "counts": counts,
            "rated_total": sum(counts.values()),
            "unrated": unrated[: leaderboards.UNRATED_LIMIT],
            "unrated_more": len(unrated) > leaderboards.UNRATED_LIMIT,
            "trend_days": TREND_DAYS,
            # A plain number for the rows' "You" (the lazy request.user is slow to ask 50 times).
            "viewer_id": request.user.pk,
        }
    )
    return _respond(
        request, "ratings/ladder_detail.html", "ratings/_leaderboard.html", "leaderboard", context
    )


@require_GET
def ladder_detail(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The ladder page: its leaderboard, with the details and joining beside it."""
    own = None
    if request.user.is_authenticated:
        # A member may see their ladder: their membership brings it along, in one query.
        own = (
            Membership.objects.select_related("ladder")
            .filter(ladder__slug=slug, user=request.user)
            .order_by()  # the default order joins the users
            .first()
        )
    ladder = own.ladder if own is not None else get_ladder_for_user(request, slug)
    joinable = own is None and can_join(request.user, ladder)
    on = today()
    context: dict[str, object] = {
        "membership": own,
        "can_join": joinable,
        "form": JoinForm(ladder=ladder) if joinable else None,
        "away_until": own.away_on(on) if own is not None else None,
        "away_form": AwayForm() if own is not None else None,
    }
    return leaderboard(request, ladder, own, context)


# ---- seasons -------------------------------------------------------------------------------


def _refuse(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "forbidden.html", {"message": message}, status=403)


@require_http_methods(["GET", "POST"])
def seasons(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """A ladder's seasons, newest first, each linking to its table; moderators add one here."""
    ladder = get_ladder_for_user(request, slug)
    is_moderator = request.user.is_authenticated and request.user.is_moderator
    form = None
    if is_moderator:
        form = SeasonForm(
            request.POST if request.method == "POST" else None, instance=Season(ladder=ladder)
        )
    if request.method == "POST":
        if form is None:
            return _refuse(request, "Only a moderator defines a ladder's seasons.")
        if form.is_valid():
            try:
                season = save_season(form.save(commit=False))
            except SeasonError as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, f"{season.name} is saved ({season.days_label}).")
                return redirect("ladder:seasons", ladder.slug)
    on = today()
    context = {
        "ladder": ladder,
        "seasons": list(Season.objects.filter(ladder=ladder)),
        "today": on,
        "form": form,
    }
    return render(
        request, "ratings/seasons.html", context, status=400 if form and form.errors else 200
    )


@require_GET
def season(request: HtmxHttpRequest, slug: str, season: str) -> HttpResponse:
    """A season's table: as it stands (the current season) or as it stood on its last day."""
    ladder = get_ladder_for_user(request, slug)
    found = Season.objects.filter(ladder=ladder, slug=season).first()
    if found is None:
        raise Http404("No such season.")
    found.ladder = ladder
    on = today()
    context = {
        "ladder": ladder,
        "season": found,
        "rows": season_table(found, viewer_for(request), on),
        "today": on,
        "is_moderator": request.user.is_authenticated and request.user.is_moderator,
    }
    return render(request, "ratings/season.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def edit_season(request: HtmxHttpRequest, slug: str, season: str) -> HttpResponse:
    """A moderator changes a season's name and days, or deletes it."""
    ladder = get_ladder_for_user(request, slug)
    if not (request.user.is_authenticated and request.user.is_moderator):
        return _refuse(request, "Only a moderator changes a ladder's seasons.")
    found = Season.objects.filter(ladder=ladder, slug=season).first()
    if found is None:
        raise Http404("No such season.")
    found.ladder = ladder
    if request.method == "POST" and "delete" in request.POST:
        delete_season(found)
        ratings = (
            "the ratings are recalculated without its start"
            if ladder.season_start_periods
            else "the ratings are unchanged"
        )
        messages.success(request, f"{found.name} is deleted; {ratings}.")
        return redirect("ladder:seasons", ladder.slug)
    form = SeasonForm(request.POST if request.method == "POST" else None, instance=found)
    if request.method == "POST" and form.is_valid():
        try:
            saved = save_season(form.save(commit=False))
        except SeasonError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"{saved.name} is saved ({saved.days_label}).")
            return redirect("ladder:seasons", ladder.slug)
    context = {"ladder": ladder, "season": found, "form": form}
    return render(request, "ratings/season_edit.html", context, status=400 if form.errors else 200)


# ---- player page -------------------------------------------------------------------------


@require_GET
def player(request: HtmxHttpRequest, username: str) -> HttpResponse:
    """A player's ratings per ladder; on one ladder, the chart, matches, head-to-head, partners."""
    viewer = viewer_for(request)
    person, memberships = access.player_for(viewer, username)
    on = today()
    ratings = histories.player_ratings(person, memberships, viewer, on)
    ladder = _selected_ladder(request, memberships, ratings)
    context: dict[str, object] = {
        "player": person,
        "memberships": [(m, ratings.get(m.ladder_id), m.away_on(on)) for m in memberships],
        "ladder": ladder,
        "trend_days": TREND_DAYS,
        "is_me": request.user.is_authenticated and request.user.pk == person.pk,
    }
    if ladder is not None:
        hidden = access.unseen(viewer, [ladder.pk])
        changes = RatingChange.objects.history(person, ladder)
        # The whole page reads every match on the ladder (the chart, the head-to-head table)
        # with their players, so it counts them for the pages and names the page's players
        # too; the match list alone (an HTMX swap) counts them and reads its own players.
        played, players = None, None
        if not _fragment(request, "matches"):
            played = histories.matches_played(person, ladder)
            players = histories.match_players(
                RatingChange.objects.filter(user=person, ladder=ladder).values_list(
                    "match_id", flat=True
                )
            )
        paginator = (
            Paginator(changes, histories.HISTORY_PAGE_SIZE)
            if played is None
            else CountedPaginator(changes, histories.HISTORY_PAGE_SIZE, len(played))
        )
        page = paginator.get_page(request.GET.get("page"))
        entries = histories.history_entries(page.object_list, {ladder.pk: ladder}, hidden, players)
        context.update({"rating": ratings.get(ladder.pk), "page": page, "entries": entries})
        if played is not None and players is not None:
            chosen = request.GET.get("range", "")
            period = chosen if chosen in {key for key, _, _ in RANGES} else DEFAULT_RANGE
            context["chart"] = rating_chart(played, since=since_of(period, on))
            # A phone's own drawing: labels stay readable when the chart is 320 px wide.
            context["chart_narrow"] = rating_chart(
                played, since=since_of(period, on), width=NARROW_WIDTH, height=NARROW_HEIGHT
            )
            context["ranges"] = RANGES
            context["period"] = period
            opponents, partners = histories.records(
                person, played, players, hidden.get(ladder.pk, set())
            )
            context["opponents"] = opponents
            if ladder.team_size > 1:
                context["partners"] = partners
    return _respond(
        request, "ratings/player.html", "ratings/_player_matches.html", "matches", context
    )


def _selected_ladder(
    request: HtmxHttpRequest, memberships: list[Membership], ratings: dict[int, PlayerRating]
) -> Ladder | None:
    """The ladder named by ``?ladder=``, else the one played most recently, else the first."""
    slug = request.GET.get("ladder")
    ladders = [m.ladder for m in memberships]
    if slug:
        for ladder in ladders:
            if ladder.slug == slug:
                return ladder
        raise Http404("No such ladder for this player.")
    rated = [l for l in ladders if l.pk in ratings]  # noqa: E741
    if rated:
        return max(rated, key=lambda l: (ratings[l.pk].last_played, ratings[l.pk].matches))  # noqa: E741
    return ladders[0] if ladders else None


# ---- head-to-head ------------------------------------------------------------------------

H2H_MEMBER_LIST = 200  # up to this many members, the page lists them all for the name boxes
H2H_SUGGESTIONS = 20  # members suggested for what is typed


@require_GET
def head_to_head(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Two players (or two sides) on a ladder: their record and the predicted win probability.

    ``?a=alice&b=bob``; for doubles ``?a=alice&a=bob&b=carol&b=dave`` (or ``a=alice,bob``).
    A side may name fewer players than the team size: the record then counts every match
    with those players on opposite sides, whoever their partners were.
    """
    ladder = get_ladder_for_user(request, slug)
    viewer = viewer_for(request)
    members = (
        access.members(viewer, Membership.objects.filter(ladder=ladder))
        .select_related("user")
        .order_by("user__display_name", "user__username")
    )
    if _fragment(request, "h2h-members"):
        # A name box as the visitor types in it (its own value is the only one sent).
        typed = request.GET.get("a") or request.GET.get("b") or ""
        found = members.filter(name_contains(typed, "user__"))[:H2H_SUGGESTIONS]
        return render(request, "ratings/_h2h_members.html", {"members": found})
    names_a = predictions.split_names(request.GET.getlist("a"))
    names_b = predictions.split_names(request.GET.getlist("b"))
    result = None
    stakes = None
    error = ""
    if names_a or names_b:
        try:
            side_a, side_b = predictions.resolve_sides(ladder, viewer, names_a, names_b, full=False)
        except predictions.SideError as exc:
            error = exc.message
        else:
            result = predictions.head_to_head(ladder, side_a, side_b, viewer)
            if result.prediction is not None:
                stakes = points_at_stake(ladder, side_a, side_b, result.prediction.on)
    size = ladder.team_size
    slots = range(size)
    context = {
        "ladder": ladder,
        # Every member of a club-sized ladder, to pick from without typing (or JavaScript);
        # past that, the names come as the visitor types (sorting thousands costs too much).
        "members": members if members.count() <= H2H_MEMBER_LIST else [],
        "inputs_a": [names_a[i] if i < len(names_a) else "" for i in slots],
        "inputs_b": [names_b[i] if i < len(names_b) else "" for i in slots],
        "result": result,
        "stakes": stakes,
        "error": error,
    }
    return render(request, "ratings/head_to_head.html", context, status=400 if error else 200)
