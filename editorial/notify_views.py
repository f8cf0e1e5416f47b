"""The pages behind the links in every notification email.

- `unsubscribe`: the opt-out link. It works without signing in (the signed
  token names the person). GET only shows a confirmation page, so a mail
  scanner that follows links turns nothing off; POST turns email off. Mail
  clients that offer RFC 8058 one-click unsubscribe POST
  ``List-Unsubscribe=One-Click`` to the same address, which is why the POST
  is exempt from CSRF: the unguessable token is what authorises it.
- `preferences`: a signed-in person chooses immediate, daily digest or off.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.admin import site
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from editorial import notify
from editorial.models import NotificationPreference
from editorial.permissions import acting_user

Delivery = NotificationPreference.Delivery


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    user = notify.user_for_token(token)
    context = {**site.each_context(request), "title": "Stop desk emails", "person": user}
    if user is None:
        context["title"] = "This link does not work"
        return TemplateResponse(request, "editorial/unsubscribe.html", context, status=404)
    if request.method == "POST":
        notify.set_delivery(user, Delivery.OFF)
        context["done"] = True
        context["title"] = "Desk emails stopped"
    return TemplateResponse(request, "editorial/unsubscribe.html", context)


class PreferenceForm(forms.Form):
    delivery = forms.ChoiceField(
        label="How should the desk email you?",
        choices=Delivery.choices,
        widget=forms.RadioSelect,
        help_text=NotificationPreference._meta.get_field("delivery").help_text,
    )


def preferences(request: HttpRequest) -> HttpResponse:
    user = acting_user(request)
    pref = NotificationPreference.objects.filter(user=user).first()
    current = pref.delivery if pref else settings.NOTIFY_DEFAULT_DELIVERY
    form = PreferenceForm(request.POST or None, initial={"delivery": current})
    if request.method == "POST" and form.is_valid():
        chosen = form.cleaned_data["delivery"]
        notify.set_delivery(user, chosen)
        messages.success(request, f"Saved: {Delivery(chosen).label}.")
        return HttpResponseRedirect(reverse("desk:notifications"))
    context = {
        **site.each_context(request),
        "title": "Your email notifications",
        "form": form,
        "no_address": not user.email,
    }
    return TemplateResponse(request, "editorial/notification_preferences.html", context)
