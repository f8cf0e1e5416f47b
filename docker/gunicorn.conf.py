"""gunicorn settings for the web service, read from the environment.

Logs go through config.logging, so gunicorn's own messages are JSON lines
like the app's. Access lines come from the app (RequestIdMiddleware), with the
request id, so gunicorn's access log stays off.
"""

import gc
import os

from config.logging import logging_config

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")  # noqa: S104 - inside the container
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
# One thread: gunicorn's sync worker, a request per process at a time. The pages are
# Python-bound and threads share one GIL: with 4 threads (the gthread worker, even with
# 1) a 2-core machine served every page slower and its throughput halved at random
# moments, as a thread back from the database queued behind another for the GIL
# (bench/README.md, "gunicorn's sync worker"). More concurrency is more workers. The sync worker
# closes each connection and leaves slow clients to the proxy in front, which buffers.
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
keepalive = 5
# Recycle workers now and then so a slow leak never takes the site down.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "2000"))
max_requests_jitter = max_requests // 10
# The proxy in front terminates TLS; Django reads X-Forwarded-Proto itself
# (SECURE_PROXY_SSL_HEADER), gunicorn needs only to pass it through.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "*")
accesslog = None
# gunicorn's control socket would live in $HOME, which the app user cannot write
# and which several gunicorns on one machine would share; nothing here uses it.
control_socket_disable = True
logconfig_dict = logging_config(
    os.environ.get("LOG_LEVEL", "INFO"),
    json_logs=os.environ.get("LOG_FORMAT", "json") == "json",
)
# Heartbeat files in memory, not on the container's overlay filesystem.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None  # noqa: S108


def post_worker_init(worker: object) -> None:
    """Leave what the worker loaded to start (Django, the app, its modules: about 130,000
    objects) out of the garbage collector's full passes. They live as long as the process,
    yet every full pass walked them all, about 80 ms a pass, a pause every few hundred
    requests (bench/README.md). The standard library's `gc.freeze`, as its documentation
    advises for a server's workers; garbage made by requests is collected as before."""
    gc.collect()
    gc.freeze()
