"""Who a request comes from: the peer, or the client a trusted reverse proxy names.

Every quota and rate limit counts a client address. Behind a reverse proxy the peer of every
connection is the proxy, so the proxy says who its client was in ``X-Forwarded-For``. That
header is the client's to write too, so it is believed only from the proxies the operator
names (``FLOE_TRUSTED_PROXIES``), and only as far as they vouch for it: walking the list from
the right (the hop nearest to us), each trusted address passes on to the one before it, and
the first untrusted address is the client. A header from anyone else is ignored.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class TrustedProxies:
    """The networks whose ``X-Forwarded-For`` is believed; empty believes no one."""

    networks: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> TrustedProxies:
        return cls(tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries))

    def trusts(self, address: str | None) -> bool:
        """Whether ``address`` is one of the proxies (an unparsable address is not)."""
        if not address or not self.networks:
            return False
        try:
            ip = ipaddress.ip_address(address.strip().removeprefix("[").removesuffix("]"))
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in network for network in self.networks)

    def client(self, peer: str | None, forwarded_for: str | None) -> str | None:
        """The client's address: ``peer`` unless a trusted proxy forwarded the request."""
        if not forwarded_for or not self.trusts(peer):
            return peer
        hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
        client = peer
        for hop in reversed(hops):
            client = hop
            if not self.trusts(hop):
                break
        return _address_or(client, peer)


def _address_or(candidate: str | None, fallback: str | None) -> str | None:
    """``candidate`` when it is an IP address, else ``fallback``: a forged hop such as
    ``unknown`` or a host name must not become a fresh identity with quotas of its own."""
    if candidate is None:
        return fallback
    try:
        return str(ipaddress.ip_address(candidate.removeprefix("[").removesuffix("]")))
    except ValueError:
        return fallback
