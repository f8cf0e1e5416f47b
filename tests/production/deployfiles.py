"""Read docker-compose.yml, .env.example and the Dockerfile the way Docker would.

There is no Docker engine here, so the tests resolve a service's command and
environment themselves (env_file, then `environment` with ${VAR}
interpolation) and run those exact commands on this machine.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"
DOCKERFILE = ROOT / "Dockerfile"

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([^}]*))?\}|\$\$")


def load_compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def read_dotenv(path: Path = ENV_EXAMPLE) -> dict[str, str]:
    values: dict[str, str] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            raise ValueError(f"{path.name}:{number} is not KEY=VALUE: {line!r}")
        key, value = line.split("=", 1)
        values[key.strip()] = value.strip()
    return values


def interpolate(text: str, variables: dict[str, str]) -> str:
    """Compose's ${VAR}, ${VAR:-default}, ${VAR:?error} and $$ (a literal $)."""

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, op, arg = match.group(1), match.group(2), match.group(3)
        value = variables.get(name, "")
        if op == ":-" and not value:
            return arg
        if op == ":?" and not value:
            raise ValueError(f"{name}: {arg}")
        return value

    return _VAR.sub(replace, text)


def service_command(service: dict[str, Any], variables: dict[str, str]) -> list[str]:
    command = service["command"]
    if isinstance(command, str):
        command = shlex.split(command)
    return [interpolate(str(part), variables) for part in command]


def service_environment(service: dict[str, Any], dotenv: dict[str, str]) -> dict[str, str]:
    """What the container would see: env_file first, `environment` on top."""
    env: dict[str, str] = {}
    if service.get("env_file"):
        env.update(dotenv)
    for key, value in (service.get("environment") or {}).items():
        env[key] = interpolate(str(value), dotenv)
    return env


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        keyword, _, rest = line.partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
    return instructions


def dockerfile_cmd() -> list[str]:
    cmds = [rest for keyword, rest in dockerfile_instructions() if keyword == "CMD"]
    return json.loads(cmds[-1])


def dockerfile_runs_after_copying_the_app() -> list[str]:
    """The RUN commands of the final stage that run the app's code (e.g. collectstatic)."""
    runs: list[str] = []
    final_stage = False
    for keyword, rest in dockerfile_instructions():
        if keyword == "FROM":
            final_stage = " AS " not in rest.upper()
            runs.clear()
        elif keyword == "RUN" and final_stage and "manage.py" in rest:
            runs.append(rest)
    return runs


def dockerfile_env() -> dict[str, str]:
    """The final stage's ENV, as written (``$PATH`` and paths unexpanded)."""
    env: dict[str, str] = {}
    for keyword, rest in dockerfile_instructions():
        if keyword == "FROM":
            env.clear()
        elif keyword == "ENV":
            for pair in shlex.split(rest):
                key, _, value = pair.partition("=")
                env[key] = value
    return env
