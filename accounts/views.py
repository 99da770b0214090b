"""Sign-up and the member's own profile. Log in/out and password reset are Django's views."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from accounts import signup as signups
from accounts.forms import ConfirmSignupForm, SignUpForm
from accounts.models import ApiToken
from accounts.security import limit_signup
from accounts.tokens import issue_token, revoke_all


def _next_url(request: HttpRequest, default: str) -> str:
    """A safe ``next`` address from the form or query string, else ``default``."""
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return default


@require_http_methods(["GET", "POST"])
@limit_signup
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("ladder:list")
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        signups.purge_unconfirmed()  # an expired sign-up frees its username at once
        if form.is_valid():
            email = form.cleaned_data["email"]
            signups.start_signup(
                form.cleaned_data["username"],
                email,
                _next_url(request, ""),
                display_name=form.cleaned_data["display_name"],
            )
            request.session["signup_email"] = email
            return redirect("accounts:signup_sent")
    return render(request, "accounts/signup.html", {"form": form, "next": _next_url(request, "")})


@require_http_methods(["GET"])
def signup_sent(request: HttpRequest) -> HttpResponse:
    """The one answer to every well-formed sign-up, whether or not the address was taken."""
    context = {"email": request.session.get("signup_email", ""), "debug": settings.DEBUG}
    return render(request, "accounts/signup_sent.html", context)


@require_http_methods(["GET", "POST"])
def signup_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link of the e-mail: a form that chooses the password, activates the account and
    signs the member in (a GET changes nothing, so a mail scanner that opens links cannot
    use them up)."""
    try:
        user, next_url = signups.account_for(token)
    except signups.SignupLinkError as error:
        return render(request, "accounts/signup_confirm.html", {"problem": str(error)}, status=400)
    form = ConfirmSignupForm(user, request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        signups.confirm(user, form.cleaned_data["new_password1"])
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.name}! Join a ladder to start playing.")
        safe = next_url and url_has_allowed_host_and_scheme(
            next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
        return redirect(next_url if safe else reverse("ladder:list"))
    return render(request, "accounts/signup_confirm.html", {"account": user, "form": form})


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    """Your API tokens: when each was made and last used, when it expires; make one (its
    secret is shown on this answer only) or revoke one or all."""
    user = request.user
    secret = ""
    if request.method == "POST":
        if "revoke_all" in request.POST:
            count = revoke_all(user)  # type: ignore[arg-type]
            messages.success(request, f"Revoked all your API tokens ({count}).")
            return redirect("accounts:tokens")
        if "revoke" in request.POST:
            deleted, _ = ApiToken.objects.filter(user=user, digest=request.POST["revoke"]).delete()
            if deleted:
                messages.success(request, "Token revoked: it no longer works.")
            else:
                messages.error(request, "No such token: it may have expired or been revoked.")
            return redirect("accounts:tokens")
        name = request.POST.get("name", "").strip()
        if len(name) > 60 or "\x00" in name:
            messages.error(request, "Name the token in at most 60 characters.")
            return redirect("accounts:tokens")
        token, secret = issue_token(user, name)  # type: ignore[arg-type]
    context = {
        "tokens": list(ApiToken.objects.filter(user=user).live()),
        "secret": secret,
        "days": settings.API_TOKEN_DAYS,
    }
    response = render(request, "accounts/tokens.html", context)
    if secret:
        response["Cache-Control"] = "no-store"  # the secret must not stay in any cache
    return response
