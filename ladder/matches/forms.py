"""Forms of the match pages: report, dispute, and a moderator's decision.

They only parse what was typed (dates, usernames, whole numbers) into the arguments of
the domain operations in ``ladder/matches/operations.py``; every rule (team size, members, scores
valid for the format, dates, duplicates, limits, reasons) is the domain's (``validation.py``), and its
``MatchValidationError`` comes back onto the form through ``add_domain_errors``.

Game scores are repeated ``game_a`` / ``game_b`` inputs, one pair per row, so rows can be
added and removed without renumbering a formset: the "Add a game" / "Remove" buttons
submit the form with ``add_game`` / ``remove_game=<row>`` and the page (or, with HTMX, the
games fragment) comes back with the rows changed and nothing reported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from itertools import zip_longest
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.safestring import SafeString

from accounts.models import User
from core.inputs import DayField
from ladder.clubs import access
from ladder.clubs.access import Viewer
from ladder.clubs.models import Ladder, Membership
from ladder.matches.models import MAIL_EVENTS, MailSettings, Match
from ladder.matches.serializers import SCHEDULED_LINKS
from ladder.matches.validation import MAX_REASON_LENGTH, no_member_called

# A guard against absurd posts, well above any format's best-of (7).
MAX_GAME_ROWS = 9

# Where each of the domain's error keys is shown on a form ("ladder" has no field of its
# own: it joins the form-wide errors).
SECTION_OF_ERROR = {
    "ladder": "__all__",
    "played_on": "played_on",
    "side_a": "side_a",
    "side_b": "side_b",
    "players": "players",
    "games": "games",
    "stats": "stats",
    "reason": "reason",
    "decision": "__all__",
    "__all__": "__all__",
}


class GameRow:
    """One row of score inputs as typed (strings), for re-rendering."""

    def __init__(self, number: int, a: str, b: str) -> None:
        self.number, self.a, self.b = number, a, b

    @property
    def blank(self) -> bool:
        return not self.a and not self.b


class MatchForm(forms.Form):
    """A form with game rows and errors by section (the domain's error keys)."""

    def __init__(
        self,
        data: Mapping[str, object] | None = None,
        *,
        ladder: Ladder,
        games: Sequence[Sequence[int]] | None = None,
        min_rows: int = 1,
        **kwargs: Any,
    ) -> None:
        super().__init__(data, **kwargs)
        self.ladder = ladder
        self.max_rows = ladder.scoring().best_of
        self.section_errors: dict[str, list[str]] = {}
        self.game_rows = self._rows(data, games or [], min_rows)
        self._parsed: tuple[list[tuple[int, int]] | None] | None = None

    # ---- game rows ----------------------------------------------------------------------

    def _rows(
        self, data: Mapping[str, object] | None, games: Sequence[Sequence[int]], min_rows: int
    ) -> list[GameRow]:
        if data is None:
            typed = [(str(a), str(b)) for a, b in games]
            typed += [("", "")] * (min_rows - len(typed))
        else:
            getlist: Callable[[str], list[str]] = getattr(data, "getlist", lambda key: [])
            pairs = zip_longest(getlist("game_a"), getlist("game_b"), fillvalue="")
            typed = [(a.strip(), b.strip()) for a, b in pairs][:MAX_GAME_ROWS]
            if data.get("add_game") and len(typed) < self.max_rows:
                typed.append(("", ""))
            remove = data.get("remove_game")
            if remove and str(remove).isdigit() and len(typed) > 1:
                index = int(str(remove)) - 1
                if 0 <= index < len(typed):
                    del typed[index]
            if not typed:
                typed = [("", "")]
        return [GameRow(n, a, b) for n, (a, b) in enumerate(typed, start=1)]

    @property
    def editing_rows(self) -> bool:
        """The post only adds or removes a game row: show the form again, report nothing."""
        return bool(self.data.get("add_game") or self.data.get("remove_game"))

    @property
    def can_add_row(self) -> bool:
        return len(self.game_rows) < self.max_rows

    @property
    def games_entered(self) -> bool:
        return any(not row.blank for row in self.game_rows)

    def parse_games(self) -> list[tuple[int, int]] | None:
        """The typed games as ``(a, b)`` pairs, skipping blank rows; None after an input error.

        Parsed once per form: asking again (a report that failed, then the prediction from
        the players entered) must not add its errors twice."""
        if self._parsed is None:
            self._parsed = (self._parse_games(),)
        return self._parsed[0]

    def _parse_games(self) -> list[tuple[int, int]] | None:
        games: list[tuple[int, int]] = []
        problems = []
        for row in self.game_rows:
            if row.blank:
                continue
            try:
                games.append((int(row.a), int(row.b)))
            except ValueError:
                if not row.a or not row.b:
                    problems.append(f"Game {row.number}: enter both scores.")
                else:
                    problems.append(f"Game {row.number}: points are whole numbers, like 21-15.")
        if problems:
            self.add_section_errors("games", problems)
            return None
        return games

    # ---- errors by section --------------------------------------------------------------

    def add_section_errors(self, section: str, messages: Sequence[str]) -> None:
        if section in self.fields:
            for message in messages:
                self.add_error(section, message)
        elif section == "__all__":
            for message in messages:
                self.add_error(None, message)
        else:
            self.section_errors.setdefault(section, []).extend(messages)

    def add_domain_errors(self, errors: Mapping[str, Sequence[str]]) -> None:
        """Put a ``MatchValidationError.errors`` onto this form, each where it belongs."""
        for key, messages in errors.items():
            self.add_section_errors(SECTION_OF_ERROR.get(key, "__all__"), list(messages))

    def errors_for(self, section: str) -> list[str]:
        if section in self.fields:
            return [str(e) for e in self.errors.get(section, [])] if self.is_bound else []
        return self.section_errors.get(section, [])

    @property
    def error_slots(self) -> dict[str, list[str]]:
        """Every error by where it shows: field names, the domain's sections, and "all"."""
        slots: dict[str, list[str]] = {}
        if self.is_bound:
            slots = {name: [str(e) for e in errors] for name, errors in self.errors.items()}
        for section, messages in self.section_errors.items():
            slots.setdefault(section, []).extend(messages)
        slots["all"] = slots.pop("__all__", [])
        return slots

    @property
    def all_errors(self) -> list[str]:
        return [str(e) for e in self.non_field_errors()] if self.is_bound else []


@dataclass
class PlayerInput:
    """One player input of the report form, for its template."""

    slot: str
    label: str
    value: str
    errors: list[str]
    picked: User | None


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self, attrs: dict[str, str] | None = None) -> None:
        super().__init__(attrs, format="%Y-%m-%d")


def _site_today() -> date:
    return timezone.localdate()


class ReportForm(MatchForm):
    """Report a match: you (always on side A), your partner(s), the opponents, the games.

    Player inputs take usernames (the type-ahead fills them in; without JavaScript the
    datalist suggests them). Per-player stats only appear on performance-weighted ladders.
    """

    played_on = DayField(label="Date played", widget=DateInput())

    def __init__(
        self, data: Mapping[str, object] | None = None, *, ladder: Ladder, reporter: User, **kw: Any
    ) -> None:
        scoring = ladder.scoring()
        super().__init__(data, ladder=ladder, min_rows=scoring.games_to_win, **kw)
        self.reporter = reporter
        self.fields["played_on"].initial = _site_today
        self.partner_slots = [f"partner_{i}" for i in range(1, ladder.team_size)]
        self.opponent_slots = [f"opponent_{i}" for i in range(1, ladder.team_size + 1)]
        for slot in self.player_slots:
            self.fields[slot] = forms.CharField(
                label=self._slot_label(slot), required=False, max_length=150
            )
        self.stat_names = ladder.stat_names
        self.stat_labels = ladder.stat_labels  # what members read: the ladder's own labels
        for slot in ["me", *self.player_slots]:
            for index, label in enumerate(self.stat_labels):
                self.fields[self.stat_field(slot, index)] = forms.FloatField(
                    label=label, required=False
                )
        # What the match was scheduled as (?challenge=ID): kept through the POST and handed
        # to report_match as its links.
        for link in SCHEDULED_LINKS:
            self.fields[link] = forms.IntegerField(
                required=False, min_value=1, widget=forms.HiddenInput
            )
        self.users: dict[str, User] = {}

    def pick_initial(self, viewer: Viewer) -> None:
        """An unbound form filled in from the address (a challenge, club night): the players
        named show as picked, their chips as the type-ahead's pick shows them, for those
        ``viewer`` may name (the same members the type-ahead offers)."""
        named = {str(self.initial.get(slot, "")): slot for slot in self.player_slots}
        chosen = (
            access.players(viewer, Membership.objects.filter(ladder=self.ladder))
            .filter(user__username__in=[name for name in named if name])
            .exclude(user=self.reporter)
            .select_related("user")
        )
        for membership in chosen:
            self.users[named[membership.user.username]] = membership.user

    def links(self) -> dict[str, int]:
        """What the report says it was scheduled as: {"challenge": id} or {}."""
        data = self.cleaned_data if hasattr(self, "cleaned_data") else {}
        return {link: data[link] for link in SCHEDULED_LINKS if data.get(link)}

    @property
    def player_slots(self) -> list[str]:
        return [*self.partner_slots, *self.opponent_slots]

    def _slot_label(self, slot: str) -> str:
        kind, number = slot.split("_")
        if kind == "partner":
            return "Your partner" if self.ladder.team_size == 2 else f"Partner {number}"
        return "Opponent" if self.ladder.team_size == 1 else f"Opponent {number}"

    @staticmethod
    def stat_field(slot: str, index: int) -> str:
        return f"stat_{slot}_{index}"

    def slot_filled(self, slot: str) -> bool:
        return bool(str(self.data.get(slot, "")).strip())

    @property
    def lineup_complete(self) -> bool:
        return all(self.slot_filled(slot) for slot in self.player_slots)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for slot in self.player_slots:
            username = (cleaned.get(slot) or "").strip().lstrip("@")
            if not username:
                self.add_error(slot, "Enter a player's username.")
                continue
            user = _find_user(username)
            if (
                user is None
                or not Membership.objects.filter(ladder=self.ladder, user=user).exists()
            ):
                # A name typed in full without picking it from the list ("Tom Okafor").
                user = self._member_named(username)
            if user is None:
                # The same words for no account and for no membership (ladder.matches).
                self.add_error(slot, no_member_called(self.ladder, username))
            else:
                self.users[slot] = user
        return cleaned

    def _member_named(self, name: str) -> User | None:
        """The one member of the ladder the reporter can see whose display name is ``name``
        (any case); None when no one or several are called that."""
        named = Membership.objects.filter(ladder=self.ladder, user__display_name__iexact=name)
        members = list(access.players(Viewer.of(self.reporter), named).select_related("user")[:2])
        return members[0].user if len(members) == 1 else None

    def side_a(self) -> list[User]:
        return [self.reporter, *(self.users[s] for s in self.partner_slots if s in self.users)]

    def side_b(self) -> list[User]:
        return [self.users[s] for s in self.opponent_slots if s in self.users]

    def stats(self) -> dict[str, dict[str, float]] | None:
        """``{username: {stat: number}}`` for the players with stats entered, else None."""
        if not self.stat_names:
            return None
        stats: dict[str, dict[str, float]] = {}
        players = {"me": self.reporter, **self.users}
        for slot, user in players.items():
            values = {
                name: self.cleaned_data[self.stat_field(slot, index)]
                for index, name in enumerate(self.stat_names)
                if self.cleaned_data.get(self.stat_field(slot, index)) is not None
            }
            if values:
                stats[user.username] = values
        return stats or None

    def report_arguments(self, partial: bool = False) -> dict[str, Any] | None:
        """A ``Report``'s values (``validation.Report``, without ladder and reporter), or None
        when the input itself could not be read.

        ``partial``: for validation as you type, also with players still missing or
        unknown (the sides then hold the players known so far).
        """
        games = self.parse_games()
        valid = self.is_valid()
        if games is None or "played_on" not in self.cleaned_data or not (valid or partial):
            return None
        return {
            "played_on": self.cleaned_data["played_on"],
            "side_a": self.side_a(),
            "side_b": self.side_b(),
            "games": games,
            "stats": self.stats(),
        }

    def _inputs(self, slots: list[str]) -> list[PlayerInput]:
        errors = self.error_slots
        return [
            PlayerInput(
                slot=slot,
                label=str(self.fields[slot].label),
                value=str(
                    self.data.get(slot, "") if self.is_bound else self.initial.get(slot, "")
                ).strip(),
                errors=errors.get(slot, []),
                picked=self.users.get(slot),
            )
            for slot in slots
        ]

    @property
    def partner_inputs(self) -> list[PlayerInput]:
        return self._inputs(self.partner_slots)

    @property
    def opponent_inputs(self) -> list[PlayerInput]:
        return self._inputs(self.opponent_slots)

    def stat_row_label(self, slot: str) -> str:
        """Whose stats a row holds: the player's name once known, else the place still to fill."""
        if slot == "me":
            return self.reporter.name
        user = self.users.get(slot)  # filled in by clean(): a member of the ladder
        if user is not None:
            return user.name
        return f"{self.fields[slot].label} (not chosen yet)"

    def stat_rows(self) -> list[tuple[str, str, list[SafeString]]]:
        """For the template: (slot, whose row it is, its stat inputs) per player."""
        rows = []
        for slot in ["me", *self.player_slots]:
            who = self.stat_row_label(slot)
            inputs = []
            for index, label in enumerate(self.stat_labels):
                field = self[self.stat_field(slot, index)]
                attrs: dict[str, str | bool] = {
                    "aria-label": f"{label}: {who}",
                    "class": "stat",
                    "step": "any",
                }
                inputs.append(field.as_widget(attrs=attrs))
            rows.append((slot, who, inputs))
        return rows


def _find_user(username: str) -> User | None:
    """The account called ``username`` (exactly, else the only one differing in case)."""
    try:
        return User.objects.get(username=username)
    except User.DoesNotExist:
        matches = list(User.objects.filter(username__iexact=username)[:2])
        return matches[0] if len(matches) == 1 else None


class DisputeForm(MatchForm):
    """Why the score is wrong, and optionally the right one.

    ``reason`` is not required here: the domain requires it, and says so in its words.
    """

    reason = forms.CharField(
        label="What is wrong?",
        required=False,
        max_length=MAX_REASON_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3, "required": True}),
        help_text="A moderator reads this, and so does the reporter.",
    )

    def __init__(
        self, data: Mapping[str, object] | None = None, *, match: Match, **kw: Any
    ) -> None:
        # The games start as reported: the member changes only what is wrong.
        super().__init__(
            data,
            ladder=match.ladder,
            games=match.game_scores,
            min_rows=match.ladder.scoring().best_of,
            **kw,
        )
        self.match = match

    def dispute_arguments(self) -> dict[str, Any] | None:
        """The reason, and the right score if the member changed the reported one (the
        games left as reported propose nothing)."""
        games = self.parse_games()
        if not self.is_valid() or games is None:
            return None
        proposed = games if games and games != self.match.game_scores else None
        return {"reason": self.cleaned_data["reason"], "proposed_games": proposed}


class EditForm(MatchForm):
    """The reporter's change to their pending report: the games and the date."""

    played_on = DayField(label="Date played", widget=DateInput())

    def __init__(
        self, data: Mapping[str, object] | None = None, *, match: Match, **kw: Any
    ) -> None:
        super().__init__(
            data,
            ladder=match.ladder,
            games=match.game_scores,
            min_rows=match.ladder.scoring().games_to_win,
            **kw,
        )
        self.match = match
        self.fields["played_on"].initial = match.played_on

    def edit_arguments(self) -> dict[str, Any] | None:
        """``games`` and ``played_on`` for ``edit_match``, or None after an input error."""
        games = self.parse_games()
        if not self.is_valid() or games is None:
            return None
        return {"games": games, "played_on": self.cleaned_data["played_on"]}


DECISIONS = {
    "uphold": "Uphold the reported score",
    "correct": "Correct to the games above",
    "void": "Void the match",
}


class ModerationForm(MatchForm):
    """A moderator's decision on a match: resolve a dispute, or correct / void a match.

    One form with the reason, the games (pre-filled with the proposal, or the reported
    score) and the date; the button pressed is the decision.
    """

    decision = forms.ChoiceField(choices=list(DECISIONS.items()), required=False)
    reason = forms.CharField(
        label="Reason",
        required=False,
        max_length=MAX_REASON_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2, "required": True}),
        help_text="Required. The players see it in the match's history.",
    )
    played_on = DayField(label="Date played", widget=DateInput(), required=False)

    def __init__(
        self,
        data: Mapping[str, object] | None = None,
        *,
        match: Match,
        games: Sequence[Sequence[int]] | None = None,
        decision: str | None = None,
        **kw: Any,
    ) -> None:
        ladder = match.ladder
        super().__init__(
            data,
            ladder=ladder,
            games=games,
            min_rows=ladder.scoring().best_of,
            # Several of these forms share the moderation page: ids per match, names plain.
            auto_id=f"m{match.pk}_%s",
            **kw,
        )
        self.match = match
        self.fixed_decision = decision
        self.fields["played_on"].initial = match.played_on

    def decision_value(self) -> str:
        return self.fixed_decision or self.cleaned_data.get("decision") or ""

    def moderation_arguments(self) -> dict[str, Any] | None:
        """``decision``, ``reason``, and for a correction ``games`` and ``played_on``."""
        decision = self.decision_value() if self.is_valid() else ""
        if decision == "correct":
            games = self.parse_games()
            if games is None:
                return None
        else:
            games = None
        if not self.is_valid():
            return None
        arguments: dict[str, Any] = {"decision": decision, "reason": self.cleaned_data["reason"]}
        if decision == "correct":
            arguments["games"] = games
            played_on = self.cleaned_data.get("played_on")
            if played_on and played_on != self.match.played_on:
                arguments["played_on"] = played_on
        return arguments


class MailSettingsForm(forms.Form):
    """Which events e-mail the member (the site's notifications are always written)."""

    mailed = forms.MultipleChoiceField(
        choices=MAIL_EVENTS,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="E-mail me when",
        help_text="Unticked: you still see it under Notifications and in your inbox.",
    )

    def __init__(self, data: Mapping[str, object] | None = None, *, user: User) -> None:
        super().__init__(data)
        self.user = user
        stored = MailSettings.objects.filter(user=user).first()
        muted = set(stored.muted) if stored else set()
        self.fields["mailed"].initial = [key for key, _ in MAIL_EVENTS if key not in muted]

    def save(self) -> list[str]:
        """Store the choice; the keys now muted."""
        chosen = set(self.cleaned_data["mailed"])
        muted = [key for key, _ in MAIL_EVENTS if key not in chosen]
        MailSettings.objects.update_or_create(user=self.user, defaults={"muted": muted})
        return muted
