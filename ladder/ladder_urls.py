"""Ladder pages under /ladders/."""

from __future__ import annotations

from django.urls import path

from ladder import views

app_name = "ladder"

urlpatterns = [
    path("", views.ladder_list, name="list"),
    path("<slug:slug>/", views.ladder_detail, name="detail"),
    path("<slug:slug>/join/", views.join, name="join"),
]
