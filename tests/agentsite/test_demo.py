"""`make demo`'s set-up steps: the staff account and the children's environment."""

import os

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from agentsite.demo import process_environment


@pytest.mark.django_db
def test_ensure_staff_creates_the_account_once_and_prints_the_password_once(settings, capsys):
    settings.DEMO_ADMIN_USERNAME = "boss"
    settings.DEMO_ADMIN_PASSWORD = ""

    call_command("ensure_staff")
    first = capsys.readouterr().out
    call_command("ensure_staff")
    second = capsys.readouterr().out

    user = get_user_model().objects.get(username="boss")
    password = first.split("password: ")[1].split()[0]
    assert user.is_staff and user.is_superuser
    assert user.check_password(password)
    assert "exists" in second and password not in second


@pytest.mark.django_db
def test_ensure_staff_uses_the_configured_password(settings):
    settings.DEMO_ADMIN_USERNAME = "lead"
    settings.DEMO_ADMIN_PASSWORD = "a-configured-password"

    call_command("ensure_staff")

    assert get_user_model().objects.get(username="lead").check_password("a-configured-password")


def test_demo_starts_the_offline_model_only_without_an_endpoint(settings, monkeypatch):
    for name in ("OPENAI_BASE_URL", "PORT", "BIND_HOST"):
        monkeypatch.delenv(name, raising=False)
    settings.OPENAI_BASE_URL = ""
    env, processes = process_environment(settings)
    assert processes == ["web", "worker", "beat", "model"]
    assert env["OPENAI_BASE_URL"] == "http://127.0.0.1:8100/v1"
    assert env["DATABASE_URL"] == settings.DATABASE_URL
    first = env["PATH"].split(os.pathsep)[0]
    assert all(os.access(os.path.join(first, tool), os.X_OK) for tool in ("daphne", "celery", "python"))

    settings.OPENAI_BASE_URL = "https://api.example.com/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example.com/v1")
    env, processes = process_environment(settings)
    assert processes == ["web", "worker", "beat"]
    assert env["OPENAI_BASE_URL"] == "https://api.example.com/v1"


def test_demo_runs_the_embedding_process_only_when_asked(settings, monkeypatch):
    for name in ("EMBEDDING_PROCESS", "EMBEDDING_PORT", "MEMORY_EMBEDDING_BACKEND", "MEMORY_EMBEDDING_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    settings.OPENAI_BASE_URL = ""
    env, processes = process_environment(settings)
    assert "embed" not in processes and "MEMORY_EMBEDDING_BACKEND" not in env

    monkeypatch.setenv("EMBEDDING_PROCESS", "1")
    env, processes = process_environment(settings)
    assert processes == ["web", "worker", "beat", "model", "embed"]
    assert env["MEMORY_EMBEDDING_BACKEND"] == "memory.embeddings.OpenAIEmbedder"
    assert env["MEMORY_EMBEDDING_BASE_URL"] == "http://127.0.0.1:8200/v1"


def test_demo_puts_several_web_processes_behind_the_balancer(settings, monkeypatch):
    from honcho.environ import expand_processes

    from agentsite.balancer import BalancerConfig
    from agentsite.demo import honcho_arguments
    from tests.agentsite.test_deploy_files import procfile

    for name in ("PORT", "BIND_HOST", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    settings.OPENAI_BASE_URL = ""
    monkeypatch.setenv("WEB_PROCESSES", "1")
    assert "balancer" not in process_environment(settings)[1]

    monkeypatch.setenv("WEB_PROCESSES", "3")
    env, processes = process_environment(settings)
    assert processes[0] == "web" and processes[-1] == "balancer"
    arguments = honcho_arguments(env, processes)
    assert arguments[arguments.index("-c") + 1] == "web=3"

    # The ports honcho gives the three web processes are the balancer's backends.
    table = procfile()
    expanded = expand_processes(
        {name: table[name] for name in processes},
        concurrency={"web": 3},
        port=int(arguments[arguments.index("-p") + 1]),
    )
    web_ports = [f"127.0.0.1:{p.env['PORT']}" for p in expanded if p.name.startswith("web.")]
    config = BalancerConfig.from_environ(env)
    assert config.bind == "127.0.0.1:8000"
    assert list(config.servers) == web_ports == ["127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003"]


def test_the_demo_runs_without_debug_pages_but_lists_its_customers(settings, monkeypatch):
    for name in ("DEBUG", "DEMO_MODE"):
        monkeypatch.delenv(name, raising=False)
    env, _ = process_environment(settings)
    assert (env["DEBUG"], env["DEMO_MODE"]) == ("false", "true")

    monkeypatch.setenv("DEBUG", "1")
    env, _ = process_environment(settings)
    assert env["DEBUG"] == "1"
