"""HAProxy in front of several daphne processes: ``python -m agentsite.balancer`` writes its configuration from
the environment and replaces itself with ``haproxy`` in the foreground, so one command serves ``make demo
WEB_PROCESSES=N``, the tests and ``docker-compose.yml``. See docs/operations.md ("Several web processes behind
HAProxy").
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BalancerConfig:
    """What HAProxy needs to know: where it listens and where the web processes are."""

    bind: str  # host:port the customers reach
    servers: tuple[str, ...] = ()  # host:port of each web process
    template: str = ""  # or one name resolving to every web process (compose replicas): host:port
    template_count: int = 0
    resolver: str = ""  # the DNS server to re-resolve ``template`` against (compose: 127.0.0.11:53)
    check_host: str = "localhost"  # Host header of the health check: must be in ALLOWED_HOSTS
    check_interval_ms: int = 2000
    tunnel_timeout: str = "1h"  # an idle websocket stays open this long (the page pings well within it)
    stats_socket: str = ""  # a Unix socket answering HAProxy's runtime commands (`show stat`), if set

    def render(self) -> str:
        """The haproxy.cfg text."""
        if not self.servers and not self.template:
            raise ValueError("no web process to balance: give servers or a template")
        check = f"check inter {self.check_interval_ms} fall 2 rise 2"
        # No log target: in the foreground (-db) HAProxy prints a backend going down or up on stderr,
        # and nothing per request.
        lines = [
            "global",
            *([f"    stats socket {self.stats_socket} mode 600 level admin"] if self.stats_socket else []),
            "defaults",
            "    mode http",
            "    option forwardfor",
            "    option redispatch",  # a connection refused by a dead backend is retried on another
            "    retries 2",
            "    timeout connect 3s",
            "    timeout client 60s",
            "    timeout server 60s",
            "    timeout http-request 10s",
            f"    timeout tunnel {self.tunnel_timeout}",  # a websocket, once upgraded
            "    timeout client-fin 10s",
            "frontend agent",
            f"    bind {self.bind}",
            "    default_backend web",
            "backend web",
            "    balance leastconn",
            "    option httpchk",
            f"    http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host {self.check_host}",
            "    http-check expect status 200",
        ]
        lines += [f"    server web{i} {address} {check}" for i, address in enumerate(self.servers, 1)]
        if self.template:
            resolvers = " resolvers dns init-addr none" if self.resolver else ""
            lines.append(f"    server-template web {self.template_count} {self.template} {check}{resolvers}")
        if self.resolver:
            lines += ["resolvers dns", f"    nameserver dns {self.resolver}", "    hold valid 5s"]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_environ(cls, environ: dict[str, str]) -> BalancerConfig:
        """Read ``BALANCER_BIND``, ``WEB_BACKENDS`` (comma-separated host:port) or ``WEB_BACKEND_TEMPLATE``
        with ``WEB_PROCESSES`` and ``BALANCER_RESOLVER``, ``BALANCER_CHECK_HOST``, ``BALANCER_CHECK_MS``,
        ``BALANCER_STATS_SOCKET``."""
        servers = tuple(s.strip() for s in environ.get("WEB_BACKENDS", "").split(",") if s.strip())
        return cls(
            bind=environ.get("BALANCER_BIND", "127.0.0.1:8000"),
            servers=servers,
            template=environ.get("WEB_BACKEND_TEMPLATE", ""),
            template_count=int(environ.get("WEB_PROCESSES", "1") or 1),
            resolver=environ.get("BALANCER_RESOLVER", ""),
            check_host=environ.get("BALANCER_CHECK_HOST", "localhost"),
            check_interval_ms=int(environ.get("BALANCER_CHECK_MS", "2000")),
            stats_socket=environ.get("BALANCER_STATS_SOCKET", ""),
        )


def write_config(config: BalancerConfig, directory: Path | None = None) -> Path:
    """Write ``config`` to a file of its own and return its path."""
    directory = directory or Path(tempfile.gettempdir())
    handle, name = tempfile.mkstemp(prefix="agentsite-haproxy-", suffix=".cfg", dir=directory)
    with os.fdopen(handle, "w") as file:
        file.write(config.render())
    return Path(name)


def haproxy_binary() -> str:
    """The ``haproxy`` executable, or a sentence saying how to install it."""
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")  # sbin: not on every PATH
    if not found:
        raise SystemExit("haproxy is not installed: `make system-deps WEB_PROCESSES=2` installs Debian's package")
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print", action="store_true", help="print the configuration instead of running haproxy")
    args = parser.parse_args(argv)
    config = BalancerConfig.from_environ(dict(os.environ))
    if args.print:
        sys.stdout.write(config.render())
        return
    path = write_config(config)
    binary = haproxy_binary()
    os.execv(binary, [binary, "-db", "-f", str(path)])


if __name__ == "__main__":
    main()
