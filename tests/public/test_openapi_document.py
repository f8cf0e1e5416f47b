"""The served OpenAPI document is valid OpenAPI 3.1.

tests/public/test_api.py holds the API's answers to the document; this holds the document
to the specification: the OpenAPI Initiative's JSON Schema for 3.1 documents (the copy
schemathesis ships, validated with jsonschema, both dev dependencies already), every
schema in it a valid JSON Schema 2020-12 (3.1's dialect), every `$ref` found in the
document, and the rules the OAI schema cannot express: path templates and path
parameters match, operation ids and parameters are unique.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from schemathesis.specs.openapi.definitions import OPENAPI_31

METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
STATUS = re.compile(r"(default|[1-5]XX|[1-5]\d\d)\Z")


def _walk(value: Any, keys: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict]]:
    """Every object in the document with the keys leading to it."""
    if isinstance(value, dict):
        yield keys, value
        for key, item in value.items():
            yield from _walk(item, (*keys, str(key)))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _walk(item, (*keys, str(n)))


def _pointer(keys: tuple[str, ...]) -> str:
    return "#/" + "/".join(k.replace("~", "~0").replace("/", "~1") for k in keys)


def _resolves(doc: dict[str, Any], ref: str) -> bool:
    if not ref.startswith("#/"):
        return False  # nothing outside the document: a client could not fetch it offline
    node: Any = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _schemas(doc: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """Every Schema Object: the components', parameters' and media types'."""
    for name, schema in doc.get("components", {}).get("schemas", {}).items():
        yield _pointer(("components", "schemas", name)), schema
    for keys, node in _walk(doc.get("paths", {}), ("paths",)):
        is_media_type = len(keys) > 1 and keys[-2] == "content"
        if "schema" in node and ("in" in node or is_media_type):
            yield _pointer((*keys, "schema")), node["schema"]


def openapi_violations(doc: dict[str, Any]) -> list[str]:
    """Every way the document breaks the OpenAPI 3.1 specification, each saying where."""
    found = [
        f"#/{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in Draft202012Validator(OPENAPI_31).iter_errors(doc)
    ]
    for where, schema in _schemas(doc):
        for error in Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors(schema):
            found.append(f"{where}: not a JSON Schema 2020-12: {error.message}")
    for keys, node in _walk(doc):
        if isinstance(node.get("$ref"), str) and not _resolves(doc, node["$ref"]):
            found.append(f"{_pointer(keys)}: $ref {node['$ref']!r} is not in the document")
    operation_ids: Counter[str | None] = Counter()
    for path, item in doc.get("paths", {}).items():
        templated = set(re.findall(r"{([^}]+)}", path))
        for method, operation in item.items():
            if method not in METHODS:
                continue
            where = f"{method.upper()} {path}"
            operation_ids[operation.get("operationId")] += 1
            parameters = item.get("parameters", []) + operation.get("parameters", [])
            named = Counter((p.get("name"), p.get("in")) for p in parameters)
            found += [
                f"{where}: parameter {k} appears {n} times" for k, n in named.items() if n > 1
            ]
            in_path = {p.get("name") for p in parameters if p.get("in") == "path"}
            if in_path != templated:
                found.append(f"{where}: path parameters {in_path} are not the template's")
            for p in parameters:
                if p.get("in") == "path" and p.get("required") is not True:
                    found.append(f"{where}: path parameter {p.get('name')!r} is not required")
            for status in operation.get("responses", {}):
                if not STATUS.match(status):
                    found.append(f"{where}: {status!r} is not a response status")
    found += [f"operationId {o!r} names {n} operations" for o, n in operation_ids.items() if n > 1]
    return found


@pytest.fixture
def document(client) -> dict[str, Any]:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    doc: dict[str, Any] = response.json()
    return doc


def test_the_served_document_is_valid_openapi_3_1(document):
    assert document["openapi"].startswith("3.1.")
    assert len(document["paths"]) == 11
    assert openapi_violations(document) == []


def _first_get(doc: dict[str, Any], templated: bool) -> dict[str, Any]:
    return next(i["get"] for p, i in doc["paths"].items() if ("{" in p) == templated)


def _op_id(doc: dict[str, Any]) -> str:
    operation_id: str = _first_get(doc, True)["operationId"]
    return operation_id


@pytest.mark.parametrize(
    ("mutation", "expected"),
    [
        (lambda d: d.pop("info"), "'info' is a required property"),
        (lambda d: d.update(openapi=3.1), "is not of type 'string'"),
        (lambda d: _first_get(d, True).update(parameters=[]), "are not the template's"),
        (
            lambda d: _first_get(d, True)["parameters"][0].update(required=False),
            "is not required",
        ),
        (
            lambda d: _first_get(d, False).update(operationId=_first_get(d, True)["operationId"]),
            "names 2",
        ),
        (lambda d: d["components"]["schemas"].clear(), "is not in the document"),
        (lambda d: next(iter(d["components"]["schemas"].values())).update(type="text"), "2020-12"),
        (
            lambda d: _first_get(d, False)["responses"].update({"OK": {"description": "x"}}),
            "status",
        ),
    ],
)
def test_the_check_reports_each_broken_rule(document, mutation, expected):
    broken = copy.deepcopy(document)
    mutation(broken)
    problems = openapi_violations(broken)
    assert any(expected in problem for problem in problems), (expected, problems)
