"""The User admin, with the display name beside the usual fields."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts.forms import AdminUserChangeForm, AdminUserCreationForm
from accounts.models import User


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
