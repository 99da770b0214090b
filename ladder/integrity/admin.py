"""Integrity in the admin: a ladder's thresholds (checked on the way in); flags, bans and the
trail to read. Bans and decisions are made on the integrity page or through the API, which
replay and notify; the admin does not offer a second way."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from ladder.integrity.detectors import Thresholds
from ladder.integrity.models import Ban, Flag, IntegrityEntry, IntegritySettings


class IntegritySettingsForm(forms.ModelForm):
    class Meta:
        model = IntegritySettings
        fields = ["ladder", "thresholds"]
        help_texts = {
            "thresholds": "Overrides of the defaults, by name (docs/INTEGRITY.md): "
            + ", ".join(f"{k}={v}" for k, v in Thresholds().as_dict().items())
        }

    def clean_thresholds(self) -> dict[str, object]:
        value = self.cleaned_data["thresholds"] or {}
        if not isinstance(value, dict):
            raise forms.ValidationError("Give an object of threshold names and numbers.")
        try:
            Thresholds.with_overrides(value)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
        return value


@admin.register(IntegritySettings)
class IntegritySettingsAdmin(admin.ModelAdmin):
    form = IntegritySettingsForm
    list_display = ("ladder", "thresholds", "computed_at")
    readonly_fields = ("computed_version", "computed_at")


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Flag)
class FlagAdmin(ReadOnly):
    list_display = ("ladder", "kind", "key", "state", "current", "updated_at")
    list_filter = ("kind", "state", "current")


@admin.register(Ban)
class BanAdmin(ReadOnly):
    list_display = ("ladder", "user", "created_at", "by", "lifted_at")
    list_filter = ("ladder",)


@admin.register(IntegrityEntry)
class IntegrityEntryAdmin(ReadOnly):
    list_display = ("at", "ladder", "action", "actor", "member", "flag", "text")
    list_filter = ("action", "ladder")
