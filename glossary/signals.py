"""Signals the content sends, so caches and notifications can listen without importing it."""

from django.dispatch import Signal

# Sent after a publish, unpublish or re-render commits; `entry_ids` are the entries
# published or withdrawn (`entry_id` the entry, when there is one), or None when every
# live page changed; `pages` the episodes', people's and organisations' first pages it
# touched, as (kind, slug), found before the commit. The public page cache drops itself
# on it, and those pages are stored again (glossary.reference_views).
live_content_changed = Signal()

# Sent after load_demo has written the demo; the desk adds what it keeps of the demo (its
# comment threads) without the content importing the desk.
demo_loaded = Signal()
