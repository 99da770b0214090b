"""Flags stored from the site's own matches (issue 26 item 1): found from the database's
matches, ratings, self-assessments and audit trail; a dismissed flag stays dismissed until
new evidence; computed again only when the ratings changed; `manage.py integrity` prints
them."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from ladder.clubs.models import Membership
from ladder.integrity import flags
from ladder.integrity.admin import IntegritySettingsForm
from ladder.integrity.errors import ModerationPermissionError, ModerationValidationError
from ladder.integrity.models import Flag, IntegrityEntry, IntegritySettings
from ladder.matches import operations
from ratings.pipeline import rate_ladder, recompute_ladder
from tests.factories import reported_match
from tests.integrity.support import confirmed

pytestmark = pytest.mark.django_db


def trade(club, times: int, start_days_ago: int = 40) -> None:  # type: ignore[no-untyped-def]
    ann, ben = club.members[1], club.members[2]
    start = timezone.localdate() - timedelta(days=start_days_ago)
    for i in range(times):
        a, b = (ann, ben) if i % 2 == 0 else (ben, ann)
        confirmed(club.ladder, a, b, [(21, 19), (22, 20)], start + timedelta(days=i))
    rate_ladder(club.ladder.pk)


def trading(club, mod):  # type: ignore[no-untyped-def]
    """The ladder's win-trading flags (in this small club, Ben is still new when the trading
    starts, so Ann's wins over him may also read as farming)."""
    return [f for f in flags.flags_for(club.ladder, mod) if f.kind == "win_trading"]


def test_an_honest_club_has_no_flags(club, mod) -> None:
    assert flags.flags_for(club.ladder, mod) == []


def test_a_dismissed_flag_stays_dismissed_until_new_evidence(club, mod) -> None:
    trade(club, 12)
    (flag,) = trading(club, mod)
    assert flag.kind == "win_trading" and flag.state == "open"
    flags.decide_flag(club.ladder, flag.pk, mod, "dismissed", "They are a doubles pair.")

    flags.refresh_flags(club.ladder, force=True)  # the same evidence
    flag.refresh_from_db()
    assert flag.state == "dismissed"
    assert not IntegrityEntry.objects.filter(action="reopen").exists()

    trade(club, 2, start_days_ago=5)  # two more meetings: new evidence
    (again,) = trading(club, mod)
    assert again.pk == flag.pk and again.state == "open"
    assert len(again.matches) == len(flag.matches) + 2
    reopened = IntegrityEntry.objects.get(action="reopen")
    assert reopened.flag_id == flag.pk and reopened.actor is None
    actions = list(IntegrityEntry.objects.values_list("action", flat=True))
    assert actions == ["dismiss", "reopen"]


def test_flags_are_computed_again_only_when_the_ratings_changed(club, mod) -> None:
    trade(club, 12)
    assert flags.refresh_flags(club.ladder) is True
    assert flags.refresh_flags(club.ladder) is False  # nothing changed
    stored = IntegritySettings.objects.get(ladder=club.ladder)
    trade(club, 1, start_days_ago=3)  # a rating run bumps the board version
    assert flags.refresh_flags(club.ladder) is True
    assert IntegritySettings.objects.get(pk=stored.pk).computed_version != stored.computed_version


def test_an_open_flag_no_longer_found_goes_and_a_decided_one_stays(club, mod) -> None:
    trade(club, 12)
    settings = IntegritySettings.objects.filter(ladder=club.ladder)
    assert len(trading(club, mod)) == 1
    settings.update(thresholds={"trade_min_matches": 50})
    flags.refresh_flags(club.ladder, force=True)
    assert not Flag.objects.filter(kind="win_trading").exists()  # open, undecided: gone

    settings.update(thresholds={})
    flags.refresh_flags(club.ladder, force=True)
    (flag,) = trading(club, mod)
    flags.decide_flag(club.ladder, flag.pk, mod, "kept", "Warned them.")
    settings.update(thresholds={"trade_min_matches": 50})
    flags.refresh_flags(club.ladder, force=True)
    kept = Flag.objects.get(kind="win_trading")
    assert (kept.pk, kept.state, kept.current) == (flag.pk, "kept", False)


def test_sandbagging_is_read_from_the_self_assessment(club, mod) -> None:
    eve = club.members[5]
    Membership.objects.filter(ladder=club.ladder, user=eve).update(
        self_level=Decimal("2.0"), initial_rating=2000.0
    )
    start = timezone.localdate() - timedelta(days=20)
    for i, j in enumerate((1, 2, 3, 4, 6)):
        confirmed(
            club.ladder,
            eve,
            club.members[j],
            [(21, 9), (21, 7)],
            start + timedelta(days=i),
        )
    recompute_ladder(club.ladder.pk)
    found = {f.kind: f for f in flags.flags_for(club.ladder, mod)}
    assert "sandbagging" in found, [f.reason for f in found.values()]
    assert found["sandbagging"].players == [eve.pk]
    assert "Eve assessed themselves at 2.0" in found["sandbagging"].reason


def test_report_patterns_are_read_from_the_audit_trail(club, mod) -> None:
    ann, ben = club.members[1], club.members[2]
    start = timezone.now() - timedelta(days=8)
    for i in range(6):
        when = start + timedelta(days=1, hours=i)
        match = reported_match(
            club.ladder,
            ann,
            [ann],
            [ben],
            [(21, 10 + i), (21, 12)],
            now=when,
            played_on=timezone.localdate(when),
        )
        operations.confirm_match(match, ben, now=when + timedelta(seconds=5 + i))
    rate_ladder(club.ladder.pk)
    found = [f for f in flags.flags_for(club.ladder, mod) if f.kind == "report_pattern"]
    assert len(found) == 1
    assert sorted(found[0].usernames) == ["ann", "ben"]  # type: ignore[attr-defined]
    assert "6 of Ann's 6 reports were confirmed within 60 seconds, all by Ben" in found[0].reason


def test_deciding_needs_a_moderator_a_state_and_a_note(club, mod) -> None:
    trade(club, 12)
    (flag,) = trading(club, mod)
    with pytest.raises(ModerationPermissionError):
        flags.flags_for(club.ladder, club.members[1])
    with pytest.raises(ModerationPermissionError):
        flags.decide_flag(club.ladder, flag.pk, club.members[1], "kept", "x")
    with pytest.raises(ModerationValidationError) as refused:
        flags.decide_flag(club.ladder, flag.pk, mod, "open", "  ")
    assert set(refused.value.errors) == {"state", "note"}
    flag.refresh_from_db()
    assert flag.state == "open" and not IntegrityEntry.objects.exists()


def test_the_command_prints_the_flags(club, mod) -> None:
    trade(club, 12)
    out = io.StringIO()
    call_command("integrity", "honest", stdout=out)
    text = out.getvalue()
    assert "Integrity Singles: 2 flag(s)" in text  # win trading, and farming (see trading())
    assert "Win trading [open]: ann, ben" in text
    assert "Ann and Ben played each other 12 times" in text
    out = io.StringIO()
    call_command("integrity", "honest", "--json", stdout=out)
    shown = json.loads(out.getvalue())["flags"]
    assert sorted(f["kind"] for f in shown) == ["farming", "win_trading"]
    assert all(set(f) == {"id", "kind", "players", "matches", "reason", "state"} for f in shown)
    with pytest.raises(CommandError, match="no ladder 'nope'"):
        call_command("integrity", "nope", stdout=io.StringIO())


def test_the_admin_refuses_unknown_or_negative_thresholds(club) -> None:
    for bad in ({"nope": 1}, {"trade_min_matches": -2}, [1, 2]):
        form = IntegritySettingsForm(data={"ladder": club.ladder.pk, "thresholds": json.dumps(bad)})
        assert not form.is_valid() and "thresholds" in form.errors
    good = IntegritySettingsForm(
        data={"ladder": club.ladder.pk, "thresholds": json.dumps({"trade_min_matches": 12})}
    )
    assert good.is_valid(), good.errors
    good.save()
    assert flags.thresholds_of(club.ladder).trade_min_matches == 12
