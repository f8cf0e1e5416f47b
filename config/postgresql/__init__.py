"""The PostgreSQL database backend: Django's own, with a health check that needs no round trip."""
