"""The Procfile (used by `make demo`) and docker-compose.yml run the same processes the same way."""

import re

import yaml

from tests.procs import ROOT

INFRASTRUCTURE = {"db", "redis", "migrate"}


def procfile() -> dict[str, str]:
    entries = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, command = line.split(":", 1)
            entries[name.strip()] = command.strip()
    return entries


def compose_commands() -> dict[str, str]:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    commands = {}
    for name, service in services.items():
        if name in INFRASTRUCTURE:
            continue
        command = service["command"]
        match = re.fullmatch(r'sh -c "(.*)"', command)
        commands[name] = (match.group(1) if match else command).replace("$$", "$")
    return commands


def test_compose_and_procfile_name_the_same_processes_and_commands():
    assert compose_commands() == procfile()


def test_procfile_runs_web_worker_beat_the_offline_model_the_embedding_process_and_the_balancer():
    assert set(procfile()) == {"web", "worker", "beat", "model", "embed", "balancer"}
    assert next(iter(procfile())) == "web"  # honcho numbers the first type's ports: agentsite.demo relies on it


def test_compose_redis_never_evicts():
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert "--maxmemory-policy noeviction" in services["redis"]["command"]
    assert services["db"]["image"].startswith("pgvector/pgvector")
