"""Deterministic fake public IP addresses, so redacted code still parses (as The Stack v2 did).

The same real address always maps to the same fake one (a stable hash into a fixed pool), and
pool members are never reported as findings, which keeps redaction idempotent.
"""

from __future__ import annotations

import hashlib
import ipaddress

from quarry.curation.pii.suppress import is_public_ip

POOL_SIZE = 64


def _build_pool(version: int, size: int) -> tuple[str, ...]:
    pool: list[str] = []
    counter = 0
    while len(pool) < size:
        digest = hashlib.sha256(f"quarry-fake-ipv{version}-{counter}".encode()).digest()
        counter += 1
        if version == 4:
            address = ipaddress.IPv4Address(digest[:4])
        else:  # inside 2000::/3, the global unicast block
            address = ipaddress.IPv6Address(bytes([0x20 | (digest[0] & 0x1F)]) + digest[1:16])
        if is_public_ip(address) and str(address) not in pool:
            pool.append(str(address))
    return tuple(pool)


FAKE_IPV4 = _build_pool(4, POOL_SIZE)
FAKE_IPV6 = _build_pool(6, POOL_SIZE // 4)
FAKE_IP_POOL = frozenset(FAKE_IPV4 + FAKE_IPV6)


def fake_ip(address: str) -> str:
    """The fake public address standing in for ``address`` (same family)."""
    pool = FAKE_IPV6 if ":" in address else FAKE_IPV4
    index = int.from_bytes(hashlib.sha256(address.encode()).digest()[:8], "big") % len(pool)
    return pool[index]
