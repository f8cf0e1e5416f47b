"""How Django writes dates in English here, where it differs from its own locale.

DATETIME_FORMAT is what the admin shows a date-time column or read-only field in, and
what `|date:"DATETIME_FORMAT"` writes: the same words as the desk's own messages
(editorial.newsroom.format_instant), on the 24-hour clock the schedule form is typed in,
with the zone's abbreviation ("Dec 1, 2026, 09:00 EST"), so a time reads the same on
every desk page and in every email. Readers' pages write their own formats.
"""

DATETIME_FORMAT = "M j, Y, H:i T"
