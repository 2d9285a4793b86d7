"""Run the offline model: ``python -m agentsite.offline_model --host 127.0.0.1 --port 8100``. It prints one line,
``offline model listening on http://HOST:PORT/v1``, once it accepts requests.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from . import tokens
from .server import serve


def _default_pace() -> int:
    try:
        return int(os.environ.get("OFFLINE_MODEL_PACE_MS", "0"))
    except ValueError:
        return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentsite.offline_model", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100, help="0 picks a free port")
    parser.add_argument(
        "--pace-ms",
        type=int,
        default=_default_pace(),
        help="pause between streamed chunks (default: $OFFLINE_MODEL_PACE_MS or 0)",
    )
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    args = parser.parse_args(argv)

    server = serve(args.host, args.port, pace_ms=max(0, args.pace_ms), verbose=args.verbose)
    bound, port = server.server_address[:2]
    host = bound if isinstance(bound, str) else bound.decode()  # typeshed allows bytes; AF_INET gives str
    tokens.preload()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"offline model listening on http://{host}:{port}/v1", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
