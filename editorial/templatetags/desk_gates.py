"""`{% gate_fix result "Fix" %}`: the fix of a publish check its reader can make, or who must
act (editorial.admin.gates.fix_html), for pages that list checks with their request."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from editorial.admin.gates import fix_html
from editorial.gates import GateResult
from editorial.permissions import Action

register = template.Library()


@register.simple_tag(takes_context=True)
def gate_fix(
    context: dict[str, Any], result: GateResult | dict[str, Any], label: str = "Fix this"
) -> SafeString:
    """`result` may also be a failure as a scheduled action stored it (a dict; one stored
    before `fixed_by` was kept links as it did then)."""
    if isinstance(result, dict):
        fixed_by = result.get("fixed_by")
        result = GateResult.block(
            result.get("code", ""),
            result.get("message", ""),
            result.get("fix_url"),
            fixed_by=Action(fixed_by) if fixed_by else None,
        )
    request = context.get("request")
    return fix_html(result, getattr(request, "user", None), label)
