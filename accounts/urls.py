"""Account addresses under /accounts/.

Django's auth views keep their default names ('login', 'logout', 'password_reset', …)
so LOGIN_URL and the contrib templates find them; our own views are in the
"accounts" namespace ('accounts:signup'; the profile, which lists a member's ladders, is the clubs app's: 'profile').
"""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import include, path

from accounts import views
from accounts.forms import LoginForm
from accounts.security import limit_password_reset

account_patterns = [
    path("signup/", views.signup, name="signup"),
    path("signup/sent/", views.signup_sent, name="signup_sent"),
    path("signup/confirm/<str:token>/", views.signup_confirm, name="signup_confirm"),
    path("tokens/", views.tokens, name="tokens"),
]

urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(
            redirect_authenticated_user=True, authentication_form=LoginForm
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),  # POST only
    path(
        "password/change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path(
        "password/reset/",
        limit_password_reset(
            auth_views.PasswordResetView.as_view(
                email_template_name="registration/password_reset_email.txt",
                subject_template_name="registration/password_reset_subject.txt",
            )
        ),
        name="password_reset",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("", include((account_patterns, "accounts"))),
]
