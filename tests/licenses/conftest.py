"""Fixtures for license tests (helpers live in licenses_helpers)."""

from licenses_helpers import license_texts  # noqa: F401 - a fixture
