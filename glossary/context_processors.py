from typing import Any

from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, Any]:
    """The public site's name, for every page including 404 and the alias list."""
    return {"site_name": settings.PUBLIC_SITE_NAME}
