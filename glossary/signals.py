"""Signals the content sends, so caches and notifications can listen without importing it."""

from django.dispatch import Signal

# Sent after a publish, unpublish or re-render commits; `entry_id` is the entry, or None
# when every live page changed. The public page cache drops itself on it.
live_content_changed = Signal()
