"""A minimal browser over real HTTP: cookies, CSRF tokens and the login form, from a chosen loopback address.

The lockout and logout tests need what a person's browser does against a real daphne process (the
ASGI path, not Django's test client), including coming from another address (any of 127.0.0.0/8
reaches a server bound to 127.0.0.1).
"""

from __future__ import annotations

import http.client
import re
from http.cookies import SimpleCookie
from urllib.parse import urlencode

from django.test import Client
from websockets.sync.client import ClientConnection, connect

_CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def login_cookie(user) -> str:
    """Log ``user`` in without the form: a real Django session, as the ``Cookie`` header a browser sends."""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


class HttpBrowser:
    """One browser: its cookie jar, sending from ``source`` to a server on ``127.0.0.1:port``."""

    def __init__(self, port: int, source: str = "127.0.0.1") -> None:
        self.port, self.source = port, source
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, dict, str]:
        """Send one request; return the status, the headers (lower-case names) and the body as text."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=(self.source, 0))
        headers = {"Origin": f"http://127.0.0.1:{self.port}", "Referer": f"http://127.0.0.1:{self.port}{path}"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(header).items():
                    if morsel.value and morsel["max-age"] != "0":
                        self.cookies[name] = morsel.value
                    else:
                        self.cookies.pop(name, None)
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
        finally:
            connection.close()

    def post_form(self, path: str, fields: dict[str, str]) -> tuple[int, dict, str]:
        """GET the page for its CSRF token, then POST ``fields`` to it as its form would."""
        _, _, page = self.request("GET", path)
        token = _CSRF_FIELD.search(page)
        return self.request("POST", path, {**fields, "csrfmiddlewaretoken": token.group(1) if token else ""})

    def log_in(self, username: str, password: str, path: str = "/accounts/login/") -> tuple[int, dict, str]:
        return self.post_form(path, {"username": username, "password": password})

    def log_out(self) -> int:
        _, _, page = self.request("GET", "/")
        token = _CSRF_FIELD.search(page)
        status, _, _ = self.request(
            "POST", "/accounts/logout/", {"csrfmiddlewaretoken": token.group(1) if token else ""}
        )
        return status

    @property
    def session_cookie(self) -> str:
        return f"sessionid={self.cookies['sessionid']}"

    def chat_socket(self) -> ClientConnection:
        """Open the chat websocket as this browser's page does (use it as a context manager)."""
        return connect(
            f"ws://127.0.0.1:{self.port}/ws/chat/",
            origin=f"http://127.0.0.1:{self.port}",
            additional_headers={"Cookie": self.session_cookie},
            open_timeout=30,
        )
