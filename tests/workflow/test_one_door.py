"""One door to readers: the workflow's publishes are the only code that makes a version
live. Readers see only what someone other than its author approved, and that rule lives
in editorial.workflow (roles, state, the self-approval rule, the publish checks); a second
caller of the make-live step (glossary.publishing.make_live) would publish around it.

Read from the source, so a new caller fails here before anyone publishes through it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("config", "glossary", "editorial", "demo")

# The make-live step and the functions allowed to call it: the workflow's publishes.
MAKE_LIVE = "make_live"
DOOR = {
    "editorial/workflow.py": {"publish_entries", "publish_check_dates"},
}
# Where the step is defined, and where an entry's live version is written.
STEP = "glossary/publishing.py"


def _product_files() -> list[Path]:
    return sorted(
        path
        for package in PRODUCT
        if (ROOT / package).is_dir()
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    )


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _names_make_live(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id == MAKE_LIVE
    if isinstance(node, ast.Attribute):
        return node.attr == MAKE_LIVE
    if isinstance(node, ast.ImportFrom):
        return any(alias.name == MAKE_LIVE for alias in node.names)
    return False


def _sets_a_live_version(node: ast.AST) -> bool:
    """`x.live_version = v`, `live_version=v` in a call (update, create...) with v not None."""
    if isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return (
            node.value is not None
            and not _is_none(node.value)
            and any(
                isinstance(t, ast.Attribute) and t.attr in ("live_version", "live_version_id")
                for t in targets
            )
        )
    if isinstance(node, ast.keyword):
        return node.arg in ("live_version", "live_version_id") and not _is_none(node.value)
    return False


def _line(node: ast.AST) -> int:
    """A node's line (a keyword argument's is its value's on older Pythons)."""
    line = getattr(node, "lineno", None)
    if line is None and isinstance(node, ast.keyword):
        line = node.value.lineno
    return int(line or 0)


def bypasses(source: str, path: str) -> list[str]:
    """Where `source` (the file at `path`, relative to the repository) makes a version
    live outside the door: each as "path:line what"."""
    tree = ast.parse(source)
    allowed = DOOR.get(path, set())
    found = []

    def walk(node: ast.AST, function: str | None) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if path == STEP and node.name == MAKE_LIVE:
                return  # the step itself
            function = function or node.name
        if _names_make_live(node) and path != STEP and function not in allowed:
            found.append(f"{path}:{_line(node)} calls the make-live step")
        if _sets_a_live_version(node) and path != STEP:
            found.append(f"{path}:{_line(node)} sets an entry's live version")
        for child in ast.iter_child_nodes(node):
            walk(child, function)

    walk(tree, None)
    return found


def test_only_the_workflows_publishes_make_a_version_live():
    found = []
    for path in _product_files():
        relative = path.relative_to(ROOT).as_posix()
        found += bypasses(path.read_text(), relative)
    assert found == []


def test_the_door_is_where_the_workflow_says():
    workflow = (ROOT / "editorial/workflow.py").read_text()
    tree = ast.parse(workflow)
    calling = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and any(_names_make_live(inner) for inner in ast.walk(node))
    }
    assert calling == DOOR["editorial/workflow.py"]


def test_a_call_of_the_step_from_elsewhere_is_found():
    source = (
        "from glossary import publishing\ndef load():\n    publishing.make_live([(entry, None)])\n"
    )
    assert bypasses(source, "editorial/tasks.py") == [
        "editorial/tasks.py:3 calls the make-live step"
    ]


def test_an_import_of_the_step_from_elsewhere_is_found():
    source = "from glossary.publishing import make_live as go\n"
    assert bypasses(source, "demo/loader.py") == ["demo/loader.py:1 calls the make-live step"]


def test_a_live_version_written_elsewhere_is_found():
    source = (
        "def restore(entry, version):\n"
        "    entry.live_version = version\n"
        "    Entry.objects.filter(pk=1).update(live_version_id=version.pk)\n"
        "    entry.live_version_id = None\n"
    )
    assert bypasses(source, "editorial/exchange.py") == [
        "editorial/exchange.py:2 sets an entry's live version",
        "editorial/exchange.py:3 sets an entry's live version",
    ]


def test_the_door_may_call_it_and_nothing_else_in_the_workflow_may():
    source = (
        "def publish_entries():\n"
        "    publishing.make_live([])\n"
        "def rollback_to():\n"
        "    publishing.make_live([])\n"
    )
    assert bypasses(source, "editorial/workflow.py") == [
        "editorial/workflow.py:4 calls the make-live step"
    ]
