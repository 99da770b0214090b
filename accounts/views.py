"""Sign-up and the member's own profile. Log in/out and password reset are Django's views."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from accounts.forms import ProfileForm, SignUpForm


def _next_url(request: HttpRequest, default: str) -> str:
    """A safe ``next`` address from the form or query string, else ``default``."""
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return default


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("ladder:list")
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.name}! Join a ladder to start playing.")
        return redirect(_next_url(request, reverse("ladder:list")))
    return render(request, "accounts/signup.html", {"form": form, "next": _next_url(request, "")})


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    """Your own profile: there is deliberately no address for anyone else's."""
    form = ProfileForm(request.POST if request.method == "POST" else None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Your profile is saved.")
        return redirect("accounts:profile")
    context = {"form": form, "memberships": form.memberships}
    return render(request, "accounts/profile.html", context)
