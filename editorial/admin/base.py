"""The base of every model admin of the desk: a hand-typed list address is never a 500.

Django answers a list filter value it cannot read by showing the list unfiltered
(``IncorrectLookupParameters``: a redirect to ``?e=1``), but not every bad value
reaches that answer: a NUL passes every check and then fails in PostgreSQL,
which cannot hold one in text, and an overflowing number
(``?at__year=99999999999999999999``, ``?tags=99999999999999999999`` on SQLite)
raises ``OverflowError`` or ``ValueError`` past Django's guard (Django ticket
#37357). Both get Django's answer here.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import SEARCH_VAR
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


class DeskModelAdmin(admin.ModelAdmin[_ModelT]):
    def get_changelist_instance(self, request: HttpRequest) -> Any:
        name = nul_parameter(request)
        if name is not None:
            raise IncorrectLookupParameters(f"{name} holds a NUL character")
        try:
            return super().get_changelist_instance(request)
        except (OverflowError, ValueError) as exc:
            logger.warning("unreadable list filter on %s: %s", request.path, exc)
            raise IncorrectLookupParameters(str(exc)) from exc
