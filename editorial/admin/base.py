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

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import SEARCH_VAR
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse

from editorial.permissions import for_user, holds, show_name, show_of, user_shows

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


# The glossary's models a show member picks from only within their shows, and the path
# from each to its show.
SCOPED_CHOICES = {"entry": "show", "episode": "show", "show": "pk"}


class ScopedModelChoiceField(forms.ModelChoiceField):  # type: ignore[type-arg]
    """A foreign key a show member may keep as it is but change only to a row of their
    shows: an entry of theirs that quotes another show's episode still saves."""

    allowed: Any = None
    outside_message = ""


def scope_choices(db_field: Any, request: HttpRequest, kwargs: dict[str, Any]) -> None:
    """Narrow a foreign key's new choices (an episode, an entry, a show) to the user's
    shows: a posted id of another show's row is then a field error naming the problem
    (`ScopedChoices`), while a value the row already had is kept."""
    related = db_field.related_model
    opts = related._meta
    path = SCOPED_CHOICES.get(opts.model_name) if opts.app_label == "glossary" else None
    if path is None or "queryset" in kwargs or user_shows(request.user) is None:
        return
    kwargs["form_class"] = type(
        "ScopedChoiceField",
        (ScopedModelChoiceField,),
        {
            "allowed": for_user(related._default_manager.all(), request.user, path),
            "outside_message": f"That {opts.verbose_name} belongs to a show whose team you "
            "are not on: choose one of your shows'.",
        },
    )


class ScopedChoices:
    """A form refusing a changed foreign key whose new row is outside the user's shows."""

    fields: Any
    changed_data: Any
    cleaned_data: Any

    def clean(self) -> Any:
        data = super().clean()  # type: ignore[misc]
        for name, field in self.fields.items():
            if not isinstance(field, ScopedModelChoiceField) or name not in self.changed_data:
                continue
            value = self.cleaned_data.get(name)
            if value is not None and not field.allowed.filter(pk=value.pk).exists():
                self.add_error(name, field.outside_message)  # type: ignore[attr-defined]
        return data


def with_scoped_choices(form: Any) -> Any:
    """`form` (a form class) refusing new choices outside the user's shows."""
    return type(form.__name__, (ScopedChoices, form), {})


class ShowScoped:
    """An admin whose rows belong to shows: a show member sees, searches, picks in
    autocompletes and acts on only their shows' rows (editorial.permissions.for_user,
    through `show_path`), and a direct address of another show's row answers 403 naming
    the show, not "does not exist" (docs/shows-and-teams.md)."""

    show_path = "show"
    model: Any

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)  # type: ignore[misc]
        return for_user(queryset, request.user, self.show_path)

    def get_object(self, request: HttpRequest, object_id: str, from_field: Any = None) -> Any:
        obj = super().get_object(request, object_id, from_field)  # type: ignore[misc]
        if obj is None and user_shows(request.user) is not None:
            elsewhere = _row(self.model, object_id, from_field)
            if elsewhere is not None:
                raise PermissionDenied(
                    f"“{elsewhere}” belongs to {show_name(show_of(elsewhere))}, whose team "
                    "you are not on."
                )
        return obj

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        scope_choices(db_field, request, kwargs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)  # type: ignore[misc]
        return with_scoped_choices(form)

    def response_action(
        self, request: HttpRequest, queryset: QuerySet[Any], *args: Any, **kwargs: Any
    ) -> HttpResponse | None:
        # A selection naming rows of other shows (a page from before a team changed, a
        # forged form): the action runs on the user's rows only, and says which it left.
        selected = possible_ids(request.POST.getlist(helpers.ACTION_CHECKBOX_NAME))
        if selected and user_shows(request.user) is not None:
            outside = self.model._default_manager.filter(pk__in=selected).exclude(
                pk__in=queryset.values("pk")
            )
            names = sorted(str(row) for row in outside)
            if names:
                messages.warning(
                    request,
                    "Left alone, as they belong to shows whose team you are not on: "
                    + ", ".join(f"“{name}”" for name in names)
                    + ".",
                )
        response: HttpResponse | None = super().response_action(  # type: ignore[misc]
            request, queryset, *args, **kwargs
        )
        return response

    def _holds(self, request: HttpRequest, verb: str, obj: Any) -> bool:
        opts = self.model._meta
        return obj is None or holds(request.user, f"{opts.app_label}.{verb}_{opts.model_name}", obj)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_view_permission(request, obj) and (  # type: ignore[misc]
            self._holds(request, "view", obj) or self._holds(request, "change", obj)
        )

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_change_permission(request, obj) and self._holds(  # type: ignore[misc]
            request, "change", obj
        )

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_delete_permission(request, obj) and self._holds(  # type: ignore[misc]
            request, "delete", obj
        )


def _row(model: Any, object_id: str, from_field: Any) -> Any:
    """The row an admin address names, whoever may see it; None when there is none."""
    field = model._meta.pk if from_field is None else model._meta.get_field(from_field)
    try:
        return model._default_manager.get(**{field.name: field.to_python(object_id)})
    except (model.DoesNotExist, ValidationError, ValueError, OverflowError):
        return None
