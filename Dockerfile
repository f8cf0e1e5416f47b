# syntax=docker/dockerfile:1
# One image for web, worker, beat and the release step (docker-compose.yml).
# Dependencies come from pyproject.toml; the app runs from /app as a non-root user.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml ./
# Install the dependencies pyproject.toml lists (not the dev or bench extras)
# into a virtualenv that the final stage copies whole.
RUN python -m venv /venv \
 && python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > requirements.txt \
 && /venv/bin/pip install -r requirements.txt

FROM python:3.11-slim
ENV PATH=/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.settings
RUN groupadd --system --gid 10001 app \
 && useradd --system --uid 10001 --gid app --home-dir /app --shell /usr/sbin/nologin app \
 && install -d -o app -g app /var/lib/glossary
COPY --from=build /venv /venv
WORKDIR /app
COPY manage.py pyproject.toml ./
COPY config ./config
COPY editorial ./editorial
COPY glossary ./glossary
# The demo app: INSTALLED_APPS names it (demo/__init__.py).
COPY demo ./demo
COPY templates ./templates
COPY docker ./docker
# Hashed, compressed static files baked into the image; WhiteNoise serves them.
RUN STATIC_MANIFEST=true python manage.py collectstatic --noinput
USER app
EXPOSE 8000
CMD ["gunicorn", "--config", "docker/gunicorn.conf.py", "config.wsgi:application"]
