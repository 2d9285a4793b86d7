"""The HAProxy configuration `agentsite.balancer` writes is one HAProxy accepts, for both topologies."""

import shutil
import subprocess

import pytest

from agentsite.balancer import BalancerConfig, write_config

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


def _check(config: BalancerConfig, tmp_path) -> str:
    path = write_config(config, tmp_path)
    result = subprocess.run([HAPROXY, "-c", "-f", str(path)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    return path.read_text()


def test_listed_servers_are_checked_on_healthz_with_an_allowed_host(tmp_path):
    text = _check(BalancerConfig(bind="127.0.0.1:18000", servers=("127.0.0.1:8001", "127.0.0.1:8002")), tmp_path)
    assert "server web1 127.0.0.1:8001 check" in text and "server web2 127.0.0.1:8002 check" in text
    assert "uri /healthz" in text and "hdr Host localhost" in text
    assert "timeout tunnel 1h" in text  # a websocket outlives the HTTP timeouts


def test_compose_replicas_are_found_by_dns(tmp_path):
    config = BalancerConfig.from_environ(
        {
            "WEB_BACKEND_TEMPLATE": "web:8000",
            "WEB_PROCESSES": "2",
            "BALANCER_RESOLVER": "127.0.0.11:53",
            "BALANCER_BIND": ":8000",
        }
    )
    text = _check(config, tmp_path)
    assert "server-template web 2 web:8000" in text and "nameserver dns 127.0.0.11:53" in text


def test_nothing_to_balance_is_refused():
    with pytest.raises(ValueError, match="no web process"):
        BalancerConfig(bind=":8000").render()
