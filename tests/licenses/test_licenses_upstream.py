"""Upstream licence labels against Quarry's decision: category labels and SPDX lists."""

from __future__ import annotations

import pytest

from quarry.curation.licenses.upstream import agreement


@pytest.mark.parametrize("labels, decided, said", [
    ({"license_type": "permissive"}, {"spdx": "MIT", "category": "permissive"}, "agrees"),
    ({"license_type": "permissive"}, {"spdx": "GPL-3.0-only", "category": "strong-copyleft"}, "differs"),
    ({"license_type": "no_license", "detected_licenses": []}, {"spdx": None, "category": "no-license"}, "agrees"),
    ({"detected_licenses": ["MIT", "Apache-2.0"]}, {"spdx": "Apache-2.0 OR MIT", "category": "permissive"}, "agrees"),
    ({"detected_licenses": ["MIT"]}, {"spdx": "MIT AND BSD-3-Clause", "category": "permissive"}, "differs"),
    ({"gha_license_id": "mit"}, {"spdx": "MIT", "category": "permissive"}, None),
])
def test_agreement(labels, decided, said):
    assert agreement(labels, decided) == said
