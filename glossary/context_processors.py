from typing import Any

from django.conf import settings
from django.http import HttpRequest

from glossary.paths import current_show, path_for

_NAV = {
    "home": "glossary:home",
    "tags": "glossary:tags",
    "episodes": "glossary:episodes",
    "people": "glossary:people",
    "organisations": "glossary:organisations",
    "search": "glossary:search",
    "feed": "glossary:feed",
    "api": "glossary:api",
    "sitemap": "glossary:sitemap",
}


def site(request: HttpRequest | None) -> dict[str, Any]:
    """The site's name and the addresses every page's header and footer link to.

    Reversed once per process (path_for remembers), not by {% url %} on every page.
    """
    show = current_show()
    return {
        "site_name": show.name if show else settings.PUBLIC_SITE_NAME,
        "nav": {key: path_for(name) for key, name in _NAV.items()},
    }
