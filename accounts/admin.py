"""The User admin, with the display name beside the usual fields. A change to a member's
name or active state is announced (``accounts.signals.account_saved``): the ladders
relist them, and a deactivated account's games are called off."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.forms import ModelForm
from django.http import HttpRequest

from accounts.forms import AdminUserChangeForm, AdminUserCreationForm
from accounts.models import User
from accounts.signals import account_saved


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = AdminUserChangeForm
    add_form = AdminUserCreationForm
    list_display = ["username", "display_name", "email", "is_staff", "is_active", "date_joined"]
    search_fields = ["username", "display_name", "email", "first_name", "last_name"]
    fieldsets = [
        (None, {"fields": ["username", "password"]}),
        ("Profile", {"fields": ["display_name", "email", "first_name", "last_name"]}),
        (
            "Permissions",
            {
                "fields": ["is_active", "is_staff", "is_superuser", "groups", "user_permissions"],
                "description": "Put a member in the Moderators group to make them a moderator; "
                "that also lets them into this admin (staff status follows the group).",
            },
        ),
        ("Important dates", {"fields": ["last_login", "date_joined"]}),
    ]
    add_fieldsets = [
        (
            None,
            {
                "classes": ["wide"],
                "fields": [
                    "username",
                    "email",
                    "display_name",
                    "usable_password",
                    "password1",
                    "password2",
                ],
            },
        ),
    ]

    def save_model(
        self, request: HttpRequest, obj: User, form: ModelForm[User], change: bool
    ) -> None:
        super().save_model(request, obj, form, change)
        if change:  # a new account is on no ladder yet
            account_saved(obj, form.changed_data)
