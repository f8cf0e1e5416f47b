"""Public addresses, remembered per script prefix (glossary.paths)."""

from django.urls import get_script_prefix, reverse, set_script_prefix

from glossary.paths import path_for, paths_for


def test_addresses_follow_the_script_prefix_they_were_made_under():
    before = get_script_prefix()
    try:
        set_script_prefix("/glossary-site/")
        entry = paths_for("glossary:entry")
        assert entry("gadget") == "/glossary-site/glossary/gadget/"
        assert path_for("glossary:entry", "gadget") == entry("gadget")
        set_script_prefix("/")
        # A route bound under one prefix keeps it; a new one reads the prefix again.
        assert entry("gadget") == "/glossary-site/glossary/gadget/"
        assert paths_for("glossary:entry")("gadget") == reverse("glossary:entry", args=["gadget"])
        assert path_for("glossary:entry", "gadget") == "/glossary/gadget/"
    finally:
        set_script_prefix(before)
