"""What is not the product: the demo glossary `make run` serves, the synthetic glossary the
benchmarks generate, and the benchmarks' trivial view.

It may import `glossary` and `editorial`; neither imports it (pyproject.toml's import-linter
contracts). Its commands keep their names: `load_demo`, `ensure_demo_admin`,
`generate_glossary` (`make run` and bench/ call them).
"""
