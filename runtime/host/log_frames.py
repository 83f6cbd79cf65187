"""Log records reach the host as ``log`` frames (and from there the UI's console)."""

from __future__ import annotations

import logging

from runtime.host.transport import Transport

_MAX_MESSAGE = 4000


class FrameLogHandler(logging.Handler):
    def __init__(self, transport: Transport, level: int = logging.INFO) -> None:
        super().__init__(level)
        self._transport = transport
        self._busy = False

    def emit(self, record: logging.LogRecord) -> None:
        if self._busy:  # a log line from sending a log line
            return
        self._busy = True
        try:
            message = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                message += f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
            self._transport.send(
                {
                    "type": "log",
                    "level": record.levelname.lower(),
                    "logger": record.name,
                    "message": message[:_MAX_MESSAGE],
                }
            )
        except Exception:  # logging must never break the runtime
            self.handleError(record)
        finally:
            self._busy = False
