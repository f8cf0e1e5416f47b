"""The base of every model admin of the desk: a hand-typed list address is never a 500.

Django answers a list filter value it cannot read by showing the list unfiltered
(``IncorrectLookupParameters``: a redirect to ``?e=1``), but not every bad value
reaches that answer: a NUL passes every check and then fails in PostgreSQL,
which cannot hold one in text, and an overflowing number
(``?at__year=99999999999999999999``, ``?tags=99999999999999999999`` on SQLite)
raises ``OverflowError`` or ``ValueError`` past Django's guard (Django ticket
#37357). Both get Django's answer here.

A form posted back with a hand-typed id in an autocomplete (``abc``, a number past
the column) is shown again with its error, not a 500: Django's autocomplete widget
looks the posted value up to label it before anything checks it
(``CheckedAutocompleteSelect`` looks up only values that can be ids).
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import SEARCH_VAR
from django.contrib.admin.widgets import AutocompleteSelect
from django.db.models import Model
from django.http import HttpRequest

logger = logging.getLogger(__name__)

_ModelT = TypeVar("_ModelT", bound=Model)


def nul_parameter(request: HttpRequest) -> str | None:
    """The first query parameter whose value holds a NUL, if any.

    The search box (``q``) is left to Django, whose search form already refuses a
    NUL with a message.
    """
    for name, values in request.GET.lists():
        if name != SEARCH_VAR and any("\x00" in value for value in values):
            return name
    return None


# The largest id a 64-bit integer column holds, on PostgreSQL and SQLite alike.
_MAX_ID = 2**63 - 1


def possible_ids(values: Any) -> list[str]:
    """The values that could be a row's id; the rest cannot name a row, so no lookup."""
    kept = []
    for value in values:
        text = str(value).strip()
        if text.isascii() and text.isdecimal() and 0 < int(text) <= _MAX_ID:
            kept.append(text)
    return kept


class CheckedAutocompleteSelect(AutocompleteSelect):
    """Django's autocomplete, labelling only posted values that can be ids (the form's
    own validation says what is wrong with the others)."""

    def optgroups(self, name: str, value: Any, attr: Any = None) -> list[Any]:
        return super().optgroups(name, possible_ids(value), attr)


class CheckedAutocompletes:
    """Every autocomplete field of this admin uses CheckedAutocompleteSelect."""

    admin_site: Any

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        autocompletes = self.get_autocomplete_fields(request)  # type: ignore[attr-defined]
        if db_field.name in autocompletes and "widget" not in kwargs:
            kwargs["widget"] = CheckedAutocompleteSelect(
                db_field, self.admin_site, using=kwargs.get("using")
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]


class DeskModelAdmin(CheckedAutocompletes, admin.ModelAdmin[_ModelT]):
    def get_changelist_instance(self, request: HttpRequest) -> Any:
        name = nul_parameter(request)
        if name is not None:
            raise IncorrectLookupParameters(f"{name} holds a NUL character")
        try:
            return super().get_changelist_instance(request)
        except (OverflowError, ValueError) as exc:
            logger.warning("unreadable list filter on %s: %s", request.path, exc)
            raise IncorrectLookupParameters(str(exc)) from exc
