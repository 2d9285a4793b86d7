"""A logged-in customer and a real websocket to a daphne process, as the customer's page opens it."""

from __future__ import annotations

import json
from dataclasses import dataclass

from websockets.sync.client import ClientConnection, connect

from tests.chat.wsclient import END_OF_TURN


@dataclass
class Customer:
    user: object
    cookie: str


class ChatClient:
    """A real websocket to a daphne process, as the customer's page opens it."""

    def __init__(self, port: int, customer: Customer, conversation: str | None = None) -> None:
        query = f"?conversation={conversation}" if conversation else ""
        self._connection = connect(
            f"ws://127.0.0.1:{port}/ws/chat/{query}",
            origin=f"http://127.0.0.1:{port}",
            additional_headers={"Cookie": customer.cookie},
            open_timeout=30,
        )
        self.ws: ClientConnection = self._connection.__enter__()
        self.history = self.receive()
        assert self.history["type"] == "history", self.history

    @property
    def conversation_id(self) -> str:
        return self.history["conversation_id"]

    def receive(self, timeout: float = 60) -> dict:
        return json.loads(self.ws.recv(timeout=timeout))

    def send(self, frame: dict) -> None:
        self.ws.send(json.dumps(frame))

    def say(self, text: str, timeout: float = 90) -> list[dict]:
        """Send a message; return the turn's frames up to its closing one."""
        self.send({"type": "message", "text": text})
        return self.until(END_OF_TURN, timeout)

    def until(self, types: set[str], timeout: float = 90) -> list[dict]:
        frames = []
        while True:
            frames.append(self.receive(timeout))
            if frames[-1]["type"] in types:
                return frames

    def close(self) -> None:
        self._connection.__exit__(None, None, None)


def reply_of(frames: list[dict]) -> str:
    return "".join(f["text"] for f in frames if f["type"] == "token")
