"""What a test logged, as production's console handler writes it with LOG_FORMAT=json."""

from __future__ import annotations

import io
import json


class CapturedLog:
    """Every line logged during a test, as production's console handler writes it with LOG_FORMAT=json."""

    def __init__(self, stream: io.StringIO) -> None:
        self._stream = stream

    def text(self) -> str:
        return self._stream.getvalue()

    def lines(self) -> list[dict]:
        return [json.loads(line) for line in self.text().splitlines()]
