from django.urls import path

from glossary import views

app_name = "glossary"

urlpatterns = [
    path("", views.home, name="home"),
    path("glossary/<slug:slug>/", views.entry, name="entry"),
]
