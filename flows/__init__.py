"""Prefect flows: compose tasks into the DAG; deployments and schedules."""

from tasks.settings import configure_prefect_env

configure_prefect_env()
