"""Prefect tasks: one module per stage, one cacheable unit of work (usually a shard)."""

from tasks.settings import configure_prefect_env

configure_prefect_env()
