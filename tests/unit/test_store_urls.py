"""``REDIS_URL`` and ``FLOE_QUEUE_URL`` are refused at start-up, by name and without their
password, when no Redis client could open them (rather than by a traceback later)."""

from __future__ import annotations

import pytest

from service.settings import Settings


@pytest.mark.parametrize("name", ["REDIS_URL", "FLOE_QUEUE_URL"])
@pytest.mark.parametrize("url", ["bogus://x", "localhost:6379", "http://h:1"])
def test_a_url_redis_cannot_open_is_refused_by_name(name: str, url: str) -> None:
    with pytest.raises(ValueError, match=rf"^{name} must be redis://host:port") as refused:
        Settings.from_env({name: url})
    assert repr(url) in str(refused.value)


def test_a_refused_url_does_not_echo_its_password() -> None:
    with pytest.raises(ValueError) as refused:
        Settings.from_env({"REDIS_URL": "bogus://floe:s3cret@db:6379"})
    assert "s3cret" not in str(refused.value)
    assert "***" in str(refused.value)


@pytest.mark.parametrize(
    "url", ["redis://localhost:6379/0", "rediss://:pw@h:6380", "unix:///tmp/redis.sock"]
)
def test_every_url_a_redis_client_opens_is_taken_as_given(url: str) -> None:
    settings = Settings.from_env({"REDIS_URL": url, "FLOE_QUEUE_URL": url})
    assert settings.store_url == settings.queue_store_url == url


def test_several_servers_need_the_cluster_flag() -> None:
    nodes = "redis://a:7000,redis://b:7001"
    with pytest.raises(ValueError, match="FLOE_REDIS_CLUSTER=1"):
        Settings.from_env({"REDIS_URL": nodes})
    cluster = Settings.from_env(
        {"REDIS_URL": nodes, "FLOE_REDIS_CLUSTER": "1", "FLOE_QUEUE_URL": "redis://q:6379"}
    )
    assert cluster.store_urls == ["redis://a:7000", "redis://b:7001"]


def test_the_queue_is_always_one_server() -> None:
    with pytest.raises(ValueError, match="FLOE_QUEUE_URL names several"):
        Settings.from_env(
            {
                "REDIS_URL": "redis://a:7000",
                "FLOE_REDIS_CLUSTER": "1",
                "FLOE_QUEUE_URL": "redis://q:1,redis://q:2",
            }
        )


@pytest.mark.parametrize(
    "url", ["redis://:se,cret@h:6379/0", "unix:///tmp/a,b/redis.sock", "rediss://u:p,w@h:1"]
)
def test_a_comma_inside_one_url_is_part_of_it(url: str) -> None:
    settings = Settings.from_env({"REDIS_URL": url, "FLOE_QUEUE_URL": url})
    assert settings.store_urls == [url]
    assert settings.queue_store_url == url


def test_a_refused_list_is_echoed_whole_and_masked() -> None:
    with pytest.raises(ValueError) as refused:
        Settings.from_env({"REDIS_URL": "redis://:se,cret@h:1,bogus://x"})
    assert "se,cret" not in str(refused.value)
    assert "cret" not in str(refused.value)
