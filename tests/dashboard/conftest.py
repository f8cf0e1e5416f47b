from tests.scheduling.conftest import editor, people, ready_entry, writer  # noqa: F401
