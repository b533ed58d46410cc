"""Benchmarks, load tests and simulations: run by hand (or by `make bench`), never by the site.

Nothing in the runtime apps (`games`, `accounts`, `rankings`, `moderation`, `musweb`) imports
this package; only the management commands that start these tools (`loadtest`,
`seed_bench_data`, `bench_pages`, `ladder_farming`) do, as thin wrappers (an import-linter contract in
pyproject.toml holds the site to it). The engine tools run on their own:
`python -m tools.engine_bench` and `python -m tools.arena`.
"""
