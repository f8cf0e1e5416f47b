"""Reference data in the admin: shows, episodes (with sponsors and appearances), people,
organisations."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from editorial.admin.base import DeskModelAdmin
from glossary.models import Appearance, Episode, Organisation, Person, Show, Sponsorship


class SponsorshipInline(admin.TabularInline[Sponsorship, Episode]):
    model = Sponsorship
    extra = 0
    autocomplete_fields = ["organisation"]


class AppearanceInline(admin.TabularInline[Appearance, Episode]):
    model = Appearance
    extra = 0
    autocomplete_fields = ["person", "affiliation"]


class ShowAdmin(DeskModelAdmin[Show]):
    list_display = ["name", "slug", "deep_link_style"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


class EpisodeAdmin(DeskModelAdmin[Episode]):
    list_display = ["number", "title", "show", "season", "air_date"]
    list_filter = ["show", "season"]
    list_select_related = ["show"]
    search_fields = ["title", "number", "show__name"]
    inlines = [SponsorshipInline, AppearanceInline]

    def get_search_results(self, request: HttpRequest, queryset: Any, search_term: str) -> Any:
        return super().get_search_results(request, queryset.select_related("show"), search_term)


class PersonAdmin(DeskModelAdmin[Person]):
    list_display = ["name", "slug"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


class OrganisationAdmin(DeskModelAdmin[Organisation]):
    list_display = ["name", "slug", "url"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}
