"""`{% gate_fix result "Fix" %}`: the fix of a publish check its reader can make, or who must
act (editorial.admin.gates.fix_html), for pages that list checks with their request."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from editorial.admin.gates import fix_html
from editorial.gates import GateResult

register = template.Library()


@register.simple_tag(takes_context=True)
def gate_fix(context: dict[str, Any], result: GateResult, label: str = "Fix this") -> SafeString:
    request = context.get("request")
    return fix_html(result, getattr(request, "user", None), label)
