"""Fixtures for license tests (helpers live in licenses_helpers)."""

from licenses_helpers import detector, license_texts  # noqa: F401 - fixtures
