"""A test client for the chat websocket: the real ASGI application, the real Redis channel layer."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor

from asgiref.testing import ApplicationCommunicator
from channels.testing import WebsocketCommunicator
from django.test import Client

from agentsite.asgi import application

END_OF_TURN = {"reply_done", "error"}


def session_cookie(user) -> bytes:
    """Log ``user`` in and return the session cookie (run in a throwaway thread: close its connection)."""
    from django.db import connection

    try:
        client = Client()
        client.force_login(user)
        return f"sessionid={client.cookies['sessionid'].value}".encode()
    finally:
        connection.close()


class Communicator(WebsocketCommunicator):
    """Channels' websocket communicator without its process-wide patch of ``channels.db.close_old_connections``.

    Channels replaces that function with a no-op (``mock.patch`` of the module global) around every
    send and receive, to keep ``database_sync_to_async`` from closing a test's connection. The patch
    is one global, not one per task: sockets awaited side by side restore each other's saved value
    out of order, and the no-op stays for the rest of the process (django/channels#2118). Every
    ``database_sync_to_async`` call after that kept its connection open, and the last one held the
    test database at the end of the run, which could then not be dropped. Nothing here needs the
    no-op: ``run`` uses ``asyncio.run``, so sync calls go to asgiref's own thread, never to the main
    thread holding the test's connection, and the app closes its pools' connections itself.
    """

    async def send_input(self, message):
        return await ApplicationCommunicator.send_input(self, message)

    async def receive_output(self, timeout=1):
        return await ApplicationCommunicator.receive_output(self, timeout)


class TurnTaking:
    """What a test does with a chat socket, whatever carries it: ``say`` a message, read the turn's frames."""

    async def receive(self, timeout: float = 30) -> dict:
        raise NotImplementedError

    async def send(self, frame: dict | str) -> None:
        raise NotImplementedError

    async def frames_until(self, types: set[str], timeout: float = 60) -> list[dict]:
        frames = []
        while True:
            frame = await self.receive(timeout)
            frame["_at"] = time.monotonic()
            frames.append(frame)
            if frame["type"] in types:
                return frames

    async def say(self, text: str) -> Turn:
        await self.send({"type": "message", "text": text})
        return Turn(await self.frames_until(END_OF_TURN))

    async def history_of(self, messages: int) -> list[dict]:
        """Ask for the history until it holds ``messages`` messages (refresh frames may still be on their way)."""
        while True:
            await self.send({"type": "history"})
            while (frame := await self.receive())["type"] != "history":
                pass
            if len(frame["messages"]) >= messages:
                return frame["messages"]


class RemoteChatSocket(TurnTaking):
    """A customer's socket to a running server over TCP (a daphne process, or the balancer before them)."""

    def __init__(self, base_url: str, user, *, conversation: str | None = None) -> None:
        self.url = (
            base_url.replace("http://", "ws://")
            + "/ws/chat/"
            + (f"?conversation={conversation}" if conversation else "")
        )
        with ThreadPoolExecutor(1) as thread:
            self.cookie = thread.submit(session_cookie, user).result().decode()
        self.socket = None
        self.history: dict | None = None

    async def connect(self, timeout: float = 30) -> dict:
        """Open the socket and return its first frame: the history (or why not)."""
        import websockets

        headers = {"Cookie": self.cookie, "Origin": "http://localhost"}
        self.socket = await websockets.connect(self.url, additional_headers=headers, open_timeout=timeout)
        self.history = await self.receive(timeout)
        return self.history

    async def receive(self, timeout: float = 30) -> dict:
        return json.loads(await asyncio.wait_for(self.socket.recv(), timeout))

    async def send(self, frame: dict | str) -> None:
        await self.socket.send(frame if isinstance(frame, str) else json.dumps(frame))

    async def close(self) -> None:
        await self.socket.close()


class ChatSocket(TurnTaking):
    """One customer's socket; ``say`` sends a message and returns the frames of the turn."""

    def __init__(
        self, user, *, conversation: str | None = None, origin: bytes = b"http://localhost", language: str = ""
    ) -> None:
        path = "/ws/chat/" + (f"?conversation={conversation}" if conversation else "")
        headers = [(b"origin", origin)] + ([(b"accept-language", language.encode())] if language else [])
        if user is not None:
            # Logging in touches the database: do it off the event loop the test may be running.
            with ThreadPoolExecutor(1) as thread:
                headers.append((b"cookie", thread.submit(session_cookie, user).result()))
        self.communicator = Communicator(application, path, headers=headers)
        self.history: dict | None = None
        self.close_code: int | None = None

    async def connect(self) -> bool:
        """Open the socket; ``True`` once its history frame arrived (``close_code`` says why not)."""
        connected, code = await self.communicator.connect(timeout=10)
        if not connected:  # refused before the handshake completed (a foreign origin)
            self.close_code = code
            return False
        # The server accepts first and authenticates afterwards: the next output is the history or a close.
        output = await self.communicator.receive_output(timeout=30)
        if output["type"] == "websocket.close":
            self.close_code = output.get("code")
            return False
        self.history = json.loads(output["text"])
        return True

    async def receive(self, timeout: float = 30) -> dict:
        return json.loads(await self.communicator.receive_from(timeout=timeout))

    async def send(self, frame: dict | str) -> None:
        await self.communicator.send_to(text_data=frame if isinstance(frame, str) else json.dumps(frame))

    async def new_conversation(self) -> dict:
        await self.send({"type": "new_conversation"})
        self.history = await self.receive()
        return self.history

    async def close(self) -> None:
        await self.communicator.disconnect()


class Turn:
    def __init__(self, frames: list[dict]) -> None:
        self.frames = frames

    @property
    def reply(self) -> str:
        """The reply as the page shows it: the tokens after the last ``reply_reset``."""
        resets = [i for i, f in enumerate(self.frames) if f["type"] == "reply_reset"]
        return "".join(f["text"] for f in self.frames[resets[-1] + 1 if resets else 0 :] if f["type"] == "token")

    def of(self, kind: str) -> list[dict]:
        return [f for f in self.frames if f["type"] == kind]

    @property
    def memory(self) -> dict:
        found = self.of("memory")
        return found[-1] if found else {}


def run(coroutine):
    return asyncio.run(coroutine)
