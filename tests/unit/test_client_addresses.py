"""Who a request comes from: X-Forwarded-For believed only from the proxies named."""

from __future__ import annotations

import pytest

from service.limits.addresses import TrustedProxies
from service.settings import Settings

PROXY = TrustedProxies.parse(["10.0.0.0/8", "::1"])


def test_with_no_proxies_named_the_header_is_never_believed() -> None:
    assert TrustedProxies().client("10.1.2.3", "203.0.113.9") == "10.1.2.3"


def test_a_trusted_proxy_names_its_client() -> None:
    assert PROXY.client("10.1.2.3", "203.0.113.9") == "203.0.113.9"
    assert PROXY.client("::1", "2001:db8::7") == "2001:db8::7"


def test_an_untrusted_peer_is_the_client_whatever_it_claims() -> None:
    assert PROXY.client("198.51.100.4", "203.0.113.9") == "198.51.100.4"


def test_hops_the_client_wrote_itself_are_passed_over() -> None:
    """The client may put anything in the header; the proxy appends the peer it saw, so
    the rightmost untrusted hop is the client, not the leftmost."""
    assert PROXY.client("10.1.2.3", "1.1.1.1, 203.0.113.9") == "203.0.113.9"


def test_a_chain_of_trusted_proxies_is_walked_to_the_first_untrusted_hop() -> None:
    assert PROXY.client("10.0.0.1", "203.0.113.9, 10.0.0.2") == "203.0.113.9"


def test_a_hop_that_is_not_an_address_is_not_a_new_identity() -> None:
    assert PROXY.client("10.1.2.3", "unknown") == "10.1.2.3"
    assert PROXY.client("10.1.2.3", " , ") == "10.1.2.3"


def test_an_ipv4_mapped_peer_is_matched_as_ipv4() -> None:
    assert PROXY.trusts("::ffff:10.9.9.9")
    assert not PROXY.trusts("not-an-address")


def test_the_settings_check_each_network() -> None:
    settings = Settings.from_env({"FLOE_TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1"})
    assert settings.trusted_proxies == ("10.0.0.0/8", "127.0.0.1")
    with pytest.raises(ValueError, match="FLOE_TRUSTED_PROXIES"):
        Settings.from_env({"FLOE_TRUSTED_PROXIES": "10.0.0.0/8, proxy.local"})


def test_the_host_setting_refuses_what_is_no_host() -> None:
    assert Settings.from_env({"FLOE_HOST": "0.0.0.0"}).host == "0.0.0.0"
    assert Settings.from_env({}).host == "127.0.0.1"
    with pytest.raises(ValueError, match="FLOE_HOST"):
        Settings.from_env({"FLOE_HOST": "0.0.0.0; rm"})
