#!/bin/sh
# The one-shot release step (the compose `migrate` service), run before web,
# worker and beat start: refuse an unsafe configuration, then migrate once.
# Web replicas never migrate, so scaling them cannot race on the schema.
set -eu
python manage.py check --deploy --fail-level WARNING
python manage.py migrate --noinput
# Live pages are rendered at publish; a deploy may change their templates.
python manage.py rerender
