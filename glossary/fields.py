"""Model and form fields shared by the glossary models."""

import re
from typing import Any, TypeVar
from urllib.parse import urlsplit

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import models

from glossary.timestamps import TimestampError, format_timestamp, parse_timestamp

MAX_URL_LENGTH = 2000

# The value types django-stubs fills in per field (optional when null=True).
_ST = TypeVar("_ST")
_GT = TypeVar("_GT")


# Every character Python's str.splitlines() breaks a line at: an email header ends at
# CR or LF, and a page title or feed title would show the others as a break too.
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def refuse_line_breaks(value: Any) -> None:
    """A single-line field (a term, a name, a title) holds no line break.

    Such a value reaches page titles, the Atom feed and email subjects, where a line
    break starts a new header ("Hdr Test\\r\\nBcc: …") or reads as two lines.
    """
    if isinstance(value, str) and _LINE_BREAK.search(value):
        raise ValidationError(
            "This field must be one line: remove the line break (it would reach page "
            "titles, the feed and email subjects as a second line).",
            code="line_break",
        )


class SingleLineFormField(forms.CharField):
    """A CharField whose input carries no `maxlength`: a browser cuts pasted text at
    `maxlength` without a word, so the length is checked here instead, where an
    over-long value is refused with "Ensure this value has at most N characters (it has
    M)" and the form keeps everything that was typed."""

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        attrs = super().widget_attrs(widget)
        attrs.pop("maxlength", None)
        return attrs


class SingleLineCharField(models.CharField[_ST, _GT]):
    """A one-line text column: line breaks refused, length checked by the server."""

    default_validators = [refuse_line_breaks]

    def formfield(self, **kwargs: Any) -> forms.Field | None:
        if not self.choices:
            kwargs.setdefault("form_class", SingleLineFormField)
        return super().formfield(**kwargs)


class TimestampFormField(forms.CharField):
    """Accepts 25:38, 1:02:03 or 1538 and shows whole seconds back as 25:38."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.pop("max_value", None)
        kwargs.pop("min_value", None)
        kwargs.pop("step_size", None)
        # Always a text input: the admin would hand us its number widget, and a
        # browser empties a type="number" input that holds "25:38". No placeholder:
        # a grey "25:38" in an empty field read as a value; the help text shows the form.
        kwargs["widget"] = forms.TextInput(attrs={"size": 8})
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, int):
            return format_timestamp(value)
        return value

    def to_python(self, value: Any) -> int | None:  # type: ignore[override]  # seconds, not text
        if value in self.empty_values:
            return None
        try:
            return parse_timestamp(value)
        except TimestampError as exc:
            raise ValidationError(str(exc), code="invalid_timestamp") from None


class TimestampField(models.PositiveIntegerField[_ST, _GT]):
    """An offset into an episode in whole seconds."""

    def formfield(self, **kwargs: Any) -> forms.Field | None:
        kwargs["form_class"] = TimestampFormField
        return super(models.PositiveIntegerField, self).formfield(**kwargs)


class WebURLValidator(URLValidator):
    """Absolute http(s) URLs only: no javascript:, file:, relative or over-long URLs."""

    schemes = ["http", "https"]
    max_length = MAX_URL_LENGTH

    def __call__(self, value: Any) -> None:
        text = str(value)
        if len(text) > MAX_URL_LENGTH:
            raise ValidationError(
                f"This URL is {len(text)} characters long; the limit is {MAX_URL_LENGTH}.",
                code="url_too_long",
            )
        control = next((c for c in text if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0), None)
        if control is not None:
            # Django's own check lets NUL and most controls through in the path, and
            # PostgreSQL cannot store a NUL at all.
            raise ValidationError(
                f"This URL contains an invisible control character (U+{ord(control):04X}); "
                "paste it again without it.",
                code="url_control_character",
            )
        scheme = text.split(":", 1)[0].lower() if ":" in text else ""
        if scheme and scheme not in self.schemes and "/" not in scheme:
            raise ValidationError(
                f"“{scheme}:” links are not allowed; use an http:// or https:// address.",
                code="url_scheme",
            )
        if not text.lower().startswith(("http://", "https://")):
            raise ValidationError(
                "Enter a full address starting with http:// or https://.",
                code="url_relative",
            )
        super().__call__(value)
        try:
            _ = urlsplit(text).port  # reading it checks the range
        except ValueError:
            # Django's check reads up to five digits; ports stop at 65535.
            raise ValidationError(
                "This URL's port is not a port number (0 to 65535).", code="url_port"
            ) from None


class WebURLField(models.URLField[_ST, _GT]):
    default_validators = [WebURLValidator()]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", MAX_URL_LENGTH)
        super().__init__(*args, **kwargs)

    def formfield(self, **kwargs: Any) -> forms.Field | None:
        # The form field keeps the value as typed (no scheme guessing) and
        # leaves validation to WebURLValidator's clear messages.
        kwargs.setdefault("form_class", forms.CharField)
        kwargs.setdefault("widget", forms.URLInput(attrs={"size": 80}))
        return super().formfield(**kwargs)
