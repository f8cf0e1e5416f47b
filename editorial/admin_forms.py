"""Admin forms and formsets that keep the entry page's query count flat."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.widgets import AutocompleteSelect
from django.db.models import Model

from glossary.fields import WebURLValidator
from glossary.models import Citation, EpisodeReference, Source, normalise_url


class KnownAutocompleteSelect(AutocompleteSelect):
    """An autocomplete that labels its selected value from a preloaded map.

    Django's widget runs one query per row to label the selected option; on
    an entry with forty quotes that is forty queries. The formset loads every
    selected object in one query per field and hands the labels in here.
    """

    known: dict[str, str] | None = None

    def optgroups(self, name: str, value: Any, attr: Any = None) -> list[Any]:
        if self.known is None:
            return super().optgroups(name, value, attr)
        selected = [str(v) for v in value if v not in ("", None)]
        default: tuple[None, list[dict[str, Any]], int] = (None, [], 0)
        groups = [default]
        if not self.is_required and not self.allow_multiple_selected:
            default[1].append(self.create_option(name, "", "", False, 0))
        for index, pk in enumerate(selected, start=1):
            if pk in self.known:
                default[1].append(self.create_option(name, pk, self.known[pk], True, index))
        return groups


class PreloadingInlineFormSet(forms.BaseInlineFormSet):
    """Loads the labels of every autocomplete's selected value once for all rows."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._preload_autocompletes()
        self._share_choices()

    def _preload_autocompletes(self) -> None:
        empty = self.empty_form
        for name, field in empty.fields.items():
            widget = getattr(field.widget, "widget", None)  # inside the related-field wrapper
            if not isinstance(widget, KnownAutocompleteSelect):
                continue
            values = {
                str(v) for form in self.forms for v in [form[name].value()] if v not in ("", None)
            }
            objects = self._label_queryset(field.queryset.model, values) if values else []
            known = {str(obj.pk): str(obj) for obj in objects}
            for form in [*self.forms, empty]:
                form.fields[name].widget.widget.known = known

    @staticmethod
    def _label_queryset(model: type[Model], pks: set[str]) -> Any:
        qs = model._default_manager.filter(pk__in=pks)
        if model is EpisodeReference:
            qs = qs.select_related("episode")
        if hasattr(model, "show"):
            qs = qs.select_related("show")
        return qs

    def _share_choices(self) -> None:
        """Plain selects (not autocompletes) evaluate their choices once, not per row."""
        for name, field in self.empty_form.fields.items():
            if isinstance(field, forms.ModelChoiceField) and not isinstance(
                getattr(field.widget, "widget", None), AutocompleteSelect
            ):
                choices = list(field.choices)
                for form in [*self.forms, self.empty_form]:
                    form.fields[name].choices = choices


class CitationForm(forms.ModelForm):
    """Cite a known source, or paste a URL: a URL we already have resolves to its source."""

    new_url = forms.CharField(
        label="or paste a URL",
        required=False,
        max_length=2000,
        validators=[WebURLValidator()],
        help_text="A URL already in the library is reused; a new one needs a title.",
        widget=forms.URLInput(attrs={"size": 40}),
    )
    new_title = forms.CharField(label="title for a new source", required=False, max_length=300)

    class Meta:
        model = Citation
        fields = ["order", "source", "new_url", "new_title", "note", "checked_on", "checked_by"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["source"].required = False

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        url = (cleaned.get("new_url") or "").strip()
        if url and not cleaned.get("source"):
            existing = Source.objects.filter(url=normalise_url(url)).first()
            if existing is not None:
                cleaned["source"] = existing
            elif not (cleaned.get("new_title") or "").strip():
                self.add_error("new_title", "This URL is new to the library: give it a title.")
            else:
                # Created now so the row's constraints validate against a saved source;
                # if the page has other errors the new source is kept, not lost.
                cleaned["source"], _ = Source.objects.get_or_create(
                    url=normalise_url(url), defaults={"title": cleaned["new_title"].strip()}
                )
        elif not cleaned.get("source") and not self.errors and self.has_changed():
            self.add_error("source", "Choose a source or paste its URL.")
        return cleaned
